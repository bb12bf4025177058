//! Raw FFI: JNI types from `jni-sys`, JVMTI bindings generated from `jvmti.h`.

pub mod jvmti;

pub use jni_sys as jni;
