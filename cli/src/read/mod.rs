//! The one trace reader: opens any jtrace output once ([`Trace::open`]) and streams what
//! a [`Selection`] asks of it as typed [`Event`]s ([`Trace::read`]) to whatever analysis
//! a subcommand runs: a `.jtr` through the trace crate's replay, an XML document through
//! quick-xml, into the same events.
//!
//! One reader, one converter per output format (the async-profiler converter pattern):
//! nothing here knows about reports, trees or timelines.

mod event;
mod input;
mod jtr;
mod opened;
mod progress;
mod xml;

pub use event::{Event, Fact};
pub use input::{Input, Source};
pub use opened::{Cut, Selection, Trace, Wanted, Window};
pub use progress::Progress;

/// How reading ended.
#[derive(Debug, Default)]
pub struct Outcome {
    /// The trace is whole (`</TRACE>` read; a `.jtr` with its finish block).
    pub complete: bool,
    /// What the reader skipped or repaired, one line each (cut short, malformed elements).
    pub warnings: Vec<String>,
    /// Bytes of XML read (0 for a `.jtr`, which has none).
    pub xml_bytes: u64,
    /// Record chunks of a `.jtr` replayed whole, and those of threads the answer does
    /// not need, left out (see [`Selection::threads`]); counted for the tests that prove
    /// a selective read reads little.
    pub chunks_replayed: u64,
    pub chunks_skipped: u64,
    /// Of those, the chunks the file's index let the reader seek past unread.
    pub chunks_unread: u64,
    /// Threads resumed at a window's start with another depth than the index's
    /// (should be 0).
    pub resumed_wrong: u64,
}

/// The events of an XML document already in memory (the fuzz targets' way in: no
/// file).
#[doc(hidden)]
pub fn xml_events(bytes: &[u8], sink: impl FnMut(&Event)) -> Result<Outcome, String> {
    xml::read(
        "input",
        Box::new(std::io::Cursor::new(bytes.to_vec())),
        sink,
    )
}

/// The stored traces of every `.jtr` version, each with the XML the agent wrote in
/// the same run (`trace/tests/data`), for the tests of every view.
#[doc(hidden)]
pub const STORED: &[&str] = &[
    "v1-exceptions",
    "v1-monitors",
    "v2-switch",
    "v3-monitors",
    "v3-tags",
    "v3-jvm",
    "v3-lines",
];

/// A stored trace's file: `ext` is `jtr` or `xml`.
#[doc(hidden)]
pub fn stored(name: &str, ext: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../trace/tests/data")
        .join(format!("{name}.{ext}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every stored `.jtr` gives, through the replay, exactly the events its XML twin
    /// (the agent's own document of the same run) gives through the XML reader.
    #[test]
    fn a_jtr_and_its_xml_give_the_same_events() {
        for name in STORED {
            let events = |ext: &str| {
                let trace = Trace::open(&stored(name, ext)).unwrap();
                let mut v = Vec::new();
                let out = trace
                    .read(Selection::default(), None, |e| v.push(format!("{e:?}")))
                    .unwrap();
                (v, out.complete)
            };
            let (jtr, whole_jtr) = events("jtr");
            let (xml, whole_xml) = events("xml");
            assert!(whole_jtr && whole_xml, "{name}");
            assert!(jtr.len() > 10, "{name}");
            assert_eq!(jtr, xml, "{name}");
        }
    }

    /// The JVM's facts (`agentCreate`'s annotations) are events, in order, from both
    /// front ends, right after the agent's own event; a trace from before them has none.
    #[test]
    fn the_jvm_facts_are_events() {
        for ext in ["jtr", "xml"] {
            let mut facts = Vec::new();
            let mut after_agent = false;
            let trace = Trace::open(&stored("v3-jvm", ext)).unwrap();
            trace
                .read(Selection::default(), None, |e| match e {
                    Event::Agent { .. } => after_agent = true,
                    Event::Jvm { name, value } => {
                        assert!(after_agent, "{ext}: {name} before agentCreate");
                        facts.push((name.to_string(), value.to_string()));
                    }
                    _ => {}
                })
                .unwrap();
            let names: Vec<&str> = facts.iter().map(|(n, _)| n.as_str()).collect();
            assert_eq!(
                &names[..3],
                ["java.vm.vendor", "java.vm.name", "java.vm.version"]
            );
            assert!(facts.contains(&("JAVA_TOOL_OPTIONS".into(), "-Djtrace.note=<a&b>".into())));
            let mut none = 0;
            let trace = Trace::open(&stored("v3-tags", ext)).unwrap();
            trace
                .read(Selection::default(), None, |e| {
                    none += matches!(e, Event::Jvm { .. }) as u32
                })
                .unwrap();
            assert_eq!(none, 0, "{ext}");
        }
    }
}
