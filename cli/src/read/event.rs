//! Typed trace events: the trace crate's replay yields them from a `.jtr`, and the XML
//! reader parses a document into the same type, so every analysis has one input.

pub use trace::event::{Event, Fact};
