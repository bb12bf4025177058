//! The one trace reader: opens any jtrace output ([`open`]) and streams it as typed
//! [`Event`]s ([`read`]) to whatever analysis a subcommand runs.
//!
//! One reader, one converter per output format (the async-profiler converter pattern):
//! nothing here knows about reports, trees or timelines.

mod event;
mod input;
mod progress;
mod xml;

pub use event::{Event, Fact};
pub use input::{open, Input};
pub use xml::{read, Outcome};
