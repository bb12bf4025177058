//! Mode equivalence: the traces of one program under mode=jvmti and mode=bci must tell the same story, times and ids aside.
//!
//! Each trace is reduced to, per thread name, the sequence of its method events with
//! methods named by class, name and signature: entries (with ticket and depth), exits,
//! throws, catches and lines. Thread ids, class/method/object ids and times may differ
//! between the modes; nothing else may.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::path::Path;

/// Per thread name, the event sequences of the threads with that name (sorted).
type Story = BTreeMap<String, Vec<Vec<String>>>;

fn attr<'a>(line: &'a str, key: &str) -> Option<&'a str> {
    let pat = format!(" {key}=\"");
    let start = line.find(&pat)? + pat.len();
    let end = line[start..].find('"')? + start;
    Some(&line[start..end])
}

fn element(line: &str) -> &str {
    let rest = line.strip_prefix('<').unwrap_or("");
    rest.split([' ', '/', '>']).next().unwrap_or("")
}

/// Reduces a trace file to its story.
pub fn story(path: &Path) -> Result<Story, String> {
    let f = std::fs::File::open(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut classes: BTreeMap<String, String> = BTreeMap::new();
    let mut methods: BTreeMap<String, String> = BTreeMap::new();
    let mut names: BTreeMap<String, String> = BTreeMap::new();
    let mut seqs: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for line in BufReader::new(f).lines() {
        let line = line.map_err(|e| e.to_string())?;
        let a = |k: &str| attr(&line, k).unwrap_or("").to_string();
        match element(&line) {
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
