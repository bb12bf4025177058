//! Event families: each file turns one kind of JVM event into records or definitions.

pub mod classes;
pub mod exceptions;
pub mod identity;
pub mod memory;
pub mod methods;
pub mod monitors;
pub mod objects;
pub mod tags;
pub mod threads;
pub mod tracker;
pub mod vthreads;
