//! Raw FFI: JNI types from `jni-sys`, JVMTI bindings generated from `jvmti.h`, and the libc/CPU calls in `os`.

pub mod jvmti;
pub mod os;

pub use jni_sys as jni;
