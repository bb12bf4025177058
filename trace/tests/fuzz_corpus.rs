//! The `jtr` fuzz target's corpus and seeds (`fuzz/`), replayed as plain tests: every input the fuzzer kept (each a new path through the reader, any crash it found among them) is opened, replayed by every selection and rendered without a panic, and a rendering that succeeds is a closed document.

use std::io::Cursor;
use trace::jtr::{Opened, Selection, Window};

fn inputs(dirs: &[&str]) -> Vec<(String, Vec<u8>)> {
    let fuzz = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz");
    let mut out = Vec::new();
    for d in dirs {
        let Ok(entries) = std::fs::read_dir(fuzz.join(d)) else {
            continue;
        };
        for e in entries.flatten() {
            if let Ok(data) = std::fs::read(e.path()) {
                out.push((e.path().display().to_string(), data));
            }
        }
    }
    out
}

#[test]
fn every_kept_input_reads_without_a_panic() {
    let all = inputs(&["corpus/jtr", "seeds/jtr"]);
    assert!(all.len() >= 5, "{} inputs: the seeds at least", all.len());
    let mut rendered = 0;
    for (name, data) in &all {
        let mut xml = Vec::new();
        if trace::jtr::to_xml(&data[..], &mut xml).is_ok() {
            let text = String::from_utf8_lossy(&xml);
            assert!(text.trim_end().ends_with("</TRACE>"), "{name}: not closed");
            rendered += 1;
        }
        let Ok(opened) = Opened::read(Cursor::new(&data[..])) else {
            continue;
        };
        let _ = opened.replay(Cursor::new(&data[..]), Selection::default(), |_| {});
        let odd = Selection {
            threads: Some(Box::new(|tid, _: &str| tid % 2 == 1)),
            ..Selection::default()
        };
        let _ = opened.replay(Cursor::new(&data[..]), odd, |_| {});
        let window = Selection {
            window: Window {
                from: Some(1_000),
                to: Some(1_000_000),
            },
            ..Selection::default()
        };
        let _ = opened.replay(Cursor::new(&data[..]), window, |_| {});
        let _ = opened.tags(Cursor::new(&data[..]));
    }
    assert!(rendered >= 5, "{rendered} rendered: the seeds at least");
}
