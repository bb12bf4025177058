//! The one trace reader: opens any jtrace output ([`open`]) and streams it as typed
//! [`Event`]s ([`read`]) to whatever analysis a subcommand runs: a `.jtr` through the
//! trace crate's replay, an XML document through quick-xml, into the same events.
//!
//! One reader, one converter per output format (the async-profiler converter pattern):
//! nothing here knows about reports, trees or timelines.

mod event;
mod input;
mod jtr;
mod progress;
mod xml;

pub use event::Event;
pub use input::{open, Input, Source};

/// How reading ended.
#[derive(Debug, Default)]
pub struct Outcome {
    /// The trace is whole (`</TRACE>` read; a `.jtr` with its finish block).
    pub complete: bool,
    /// What the reader skipped or repaired, one line each (cut short, malformed elements).
    pub warnings: Vec<String>,
    /// Bytes of XML read (0 for a `.jtr`, which has none).
    pub xml_bytes: u64,
}

/// Streams `input` to `sink`, one event per element an analysis uses.
pub fn read(input: Input, sink: impl FnMut(&Event)) -> Result<Outcome, String> {
    match input.source {
        Source::Xml(r) => xml::read(&input.name, r, sink),
        Source::Jtr(r) => jtr::read(&input.name, r, sink),
    }
}
