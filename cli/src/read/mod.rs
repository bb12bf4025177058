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

pub use event::{Event, Fact};
pub use input::{open, open_with, Input, Source};
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
    /// not need, left out (see [`read_threads`]); counted for the tests that prove
    /// a selective read reads little.
    #[allow(dead_code)]
    pub chunks_replayed: u64,
    #[allow(dead_code)]
    pub chunks_skipped: u64,
    /// Of those, the chunks the file's index let the reader seek past unread.
    #[allow(dead_code)]
    pub chunks_unread: u64,
    /// Threads resumed at a window's start with another depth than the index's
    /// (should be 0).
    #[allow(dead_code)]
    pub resumed_wrong: u64,
}

/// Streams `input` to `sink`, one event per element an analysis uses; with `wanted`,
/// for an answer about the threads whose names it accepts: a `.jtr`
/// replays the others' records only for what the wanted threads need of them
/// (`trace::jtr::replay_threads`), so their events and every event the model uses are
/// those of a whole read; an XML document is read whole. With a `window`, a `.jtr`
/// with an index is read only around it (`trace::jtr::replay_window`): the events the
/// model uses under a window (see `crate::model`) are those of a whole read.
pub fn read_threads(
    input: Input,
    wanted: Option<&dyn Fn(&str) -> bool>,
    window: Window,
    sink: impl FnMut(&Event),
) -> Result<Outcome, String> {
    match input.source {
        Source::Xml(r) => xml::read(&input.name, r, sink),
        Source::Jtr(r) => match wanted {
            None => jtr::read(&input.name, r, None, window, sink),
            Some(w) => jtr::read(&input.name, r, Some(&|_, name: &str| w(name)), window, sink),
        },
    }
}

pub use trace::jtr::Window;

/// One part of a `.jtr` read split over workers (`jtrace --jobs`): the threads
/// `wanted(tid, name)` accepts are replayed whole, the others only for what those
/// need (as [`read_threads`]), within `window`. `Err` for XML input, which is read whole.
pub fn read_part(
    input: Input,
    wanted: &dyn Fn(u32, &str) -> bool,
    window: Window,
    sink: impl FnMut(&Event),
) -> Result<Outcome, String> {
    match input.source {
        Source::Xml(_) => Err(format!("{}: an XML trace is read in one part", input.name)),
        Source::Jtr(r) => jtr::read(&input.name, r, Some(wanted), window, sink),
    }
}

/// One side of a `.jtr` thread cut over two workers (`trace::jtr::replay_cut`): the
/// cut thread's records before the cut, or after it with the other threads `wanted`
/// accepts. `Err` for XML input.
pub fn read_cut(
    input: Input,
    wanted: &dyn Fn(u32, &str) -> bool,
    cut: trace::jtr::Cut,
    sink: impl FnMut(&Event),
) -> Result<Outcome, String> {
    match input.source {
        Source::Xml(_) => Err(format!("{}: an XML trace is read in one part", input.name)),
        Source::Jtr(r) => jtr::read_cut(&input.name, r, wanted, cut, sink),
    }
}

/// The index of a `.jtr`'s record chunks (None: XML, or a file without one).
pub fn index(path: &std::path::Path) -> Option<Vec<trace::jtr::index::ChunkEntry>> {
    let file = std::fs::File::open(path).ok()?;
    let mut r = trace::jtr::JtrReader::open(std::io::BufReader::new(file)).ok()?;
    r.index()
}

/// The tags of a `.jtr` whose index lets a reader resume it exactly, with the trace's
/// start (see `trace::jtr::tags`); None for XML or any other file.
pub fn tags(path: &std::path::Path) -> Option<(u64, Vec<trace::jtr::Tagged>)> {
    let file = std::fs::File::open(path).ok()?;
    trace::jtr::tags(std::io::BufReader::new(file)).ok()?
}

/// The threads of a `.jtr` with the file's index (None: XML, or a file without one,
/// such as one cut short): each thread id with the bytes of its record chunks.
pub fn thread_sizes(path: &std::path::Path) -> Option<Vec<(u32, u64)>> {
    let index = index(path)?;
    let mut sizes: std::collections::BTreeMap<u32, u64> = Default::default();
    for e in index {
        *sizes.entry(e.tid).or_default() += e.len as u64;
    }
    Some(sizes.into_iter().collect())
}

/// The stored traces of every `.jtr` version, each with the XML the agent wrote in
/// the same run (`trace/tests/data`).
#[cfg(test)]
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
#[cfg(test)]
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
                let input = open(&stored(name, ext)).unwrap();
                let mut v = Vec::new();
                let out =
                    read_threads(input, None, Window::default(), |e| v.push(format!("{e:?}")))
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
            let input = open(&stored("v3-jvm", ext)).unwrap();
            read_threads(input, None, Window::default(), |e| match e {
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
            let input = open(&stored("v3-tags", ext)).unwrap();
            read_threads(input, None, Window::default(), |e| {
                none += matches!(e, Event::Jvm { .. }) as u32
            })
            .unwrap();
            assert_eq!(none, 0, "{ext}");
        }
    }
}
