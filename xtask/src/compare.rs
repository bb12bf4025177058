//! Mode equivalence: the traces of one program under mode=jvmti and mode=bci must tell the same story, times and ids aside.
//!
//! Each trace is reduced to, per thread name, the sequence of its method events with
//! methods named by class, name and signature: entries (with ticket and depth), exits,
//! throws, catches and lines. Thread ids, class/method/object ids and times may differ
//! between the modes; nothing else may.

use quick_xml::events::{BytesStart, Event};
use quick_xml::Reader;
use std::collections::BTreeMap;
use std::io::BufReader;
use std::path::Path;

/// Per thread name, the event sequences of the threads with that name (sorted).
type Story = BTreeMap<String, Vec<Vec<String>>>;

/// An element's attributes, unescaped, by name.
fn attrs(e: &BytesStart) -> Result<BTreeMap<String, String>, String> {
    e.attributes()
        .map(|a| {
            let a = a.map_err(|e| e.to_string())?;
            let v = a
                .normalized_value(quick_xml::XmlVersion::Implicit1_0)
                .map_err(|e| e.to_string())?;
            Ok((a.key.as_ref().to_string(), v.into_owned()))
        })
        .collect()
}

/// Reduces a trace file to its story (read by quick-xml, as every reader of XML here).
pub fn story(path: &Path) -> Result<Story, String> {
    let f = std::fs::File::open(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut xml = Reader::from_reader(BufReader::new(f));
    let mut buf = Vec::new();
    let mut classes: BTreeMap<String, String> = BTreeMap::new();
    let mut methods: BTreeMap<String, String> = BTreeMap::new();
    let mut names: BTreeMap<String, String> = BTreeMap::new();
    let mut seqs: BTreeMap<String, Vec<String>> = BTreeMap::new();
    loop {
        let e = match xml.read_event_into(&mut buf) {
            Ok(Event::Start(e) | Event::Empty(e)) => e,
            Ok(Event::Eof) => break,
            Ok(_) => {
                buf.clear();
                continue;
            }
            Err(e) => return Err(format!("{}: {e}", path.display())),
        };
        let name = e.name().as_ref().to_string();
        let at = attrs(&e).map_err(|err| format!("{}: <{name}>: {err}", path.display()))?;
        let a = |k: &str| at.get(k).cloned().unwrap_or_default();
        match name.as_str() {
            "classDef" => {
                classes.insert(a("classId"), a("name"));
            }
            "methodDef" => {
                let class = classes.get(&a("classIdRef")).cloned().unwrap_or_default();
                let m = format!("{class}.{}{}", a("name"), a("signature"));
                methods.insert(a("methodId"), m);
            }
            "threadStart" => {
                names.insert(a("threadId"), a("threadName"));
            }
            e @ ("methodEntry" | "methodExit" | "throw" | "catch" | "line") => {
                let tid = if e == "line" {
                    a("threadId")
                } else {
                    a("threadIdRef")
                };
                let m = methods.get(&a("methodIdRef")).cloned().unwrap_or_default();
                let ev = match e {
                    "methodEntry" => format!("enter {m} #{} d{}", a("ticket"), a("stackDepth")),
                    "line" => format!("line {m} #{} {}", a("ticket"), a("line_number")),
                    _ => format!("{e} {m} #{}", a("ticket")),
                };
                seqs.entry(tid).or_default().push(ev);
            }
            _ => {}
        }
        buf.clear();
    }
    let mut story = Story::new();
    for (tid, seq) in seqs {
        let name = names
            .get(&tid)
            .cloned()
            .unwrap_or_else(|| format!("#{tid}"));
        story.entry(name).or_default().push(seq);
    }
    for v in story.values_mut() {
        v.sort();
    }
    Ok(story)
}

/// Compares two traces; `Err` names the first difference.
pub fn same_story(a: &Path, b: &Path) -> Result<(), String> {
    let (sa, sb) = (story(a)?, story(b)?);
    for name in sa.keys().chain(sb.keys()) {
        let (x, y) = (sa.get(name), sb.get(name));
        if x == y {
            continue;
        }
        let (x, y) = (
            x.cloned().unwrap_or_default(),
            y.cloned().unwrap_or_default(),
        );
        if x.len() != y.len() {
            return Err(format!(
                "thread {name:?}: {} thread(s) vs {} with events",
                x.len(),
                y.len()
            ));
        }
        for (s, t) in x.iter().zip(&y) {
            if let Some(i) = (0..s.len().max(t.len())).find(|&i| s.get(i) != t.get(i)) {
                return Err(format!(
                    "thread {name:?}, event {i}: {:?} vs {:?}",
                    s.get(i).map_or("(none)", String::as_str),
                    t.get(i).map_or("(none)", String::as_str)
                ));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stored(name: &str) -> std::path::PathBuf {
        crate::util::root().join(format!("trace/tests/data/{name}.xml"))
    }

    /// A stored trace tells its threads' calls with names, tickets and depths; the same
    /// trace tells the same story, another one does not.
    #[test]
    fn stories_name_calls_and_tell_traces_apart() {
        let s = story(&stored("v1-exceptions")).unwrap();
        let events: Vec<&String> = s.values().flatten().flatten().collect();
        assert!(events
            .iter()
            .any(|e| e.starts_with("enter ") && e.contains(" d")));
        assert!(events.iter().any(|e| e.starts_with("throw ")));
        assert!(
            !events.iter().any(|e| e.contains("enter  #")),
            "a method without a name"
        );
        same_story(&stored("v1-exceptions"), &stored("v1-exceptions")).unwrap();
        assert!(same_story(&stored("v1-exceptions"), &stored("v1-monitors")).is_err());
    }
}
