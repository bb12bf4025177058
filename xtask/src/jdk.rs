//! The old path of the JDK finder, kept for callers written against it: the JDKs are found in `java.rs`.

#![allow(unused_imports)]

pub use crate::java::{discover, Jdk, JVM_DIR, MIN_FEATURE};
