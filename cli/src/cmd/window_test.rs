//! `--from/--to` on a `.jtr` through its index: for every stored trace, cut into chunks of a few records each (so that windows start and end inside, between and around many chunks of every thread), every window's answers (report JSON, tree, Chrome-JSON timeline) equal the full pass's over the run's XML, and the chunks read are few (counted).

use crate::analysis::coverage::Coverage;
use crate::analysis::report::Report;
use crate::analysis::tree::CallTree;
use crate::model::filter::{Filter, Pattern};
use crate::pass::run_quiet;
use crate::read;
use crate::render::perfetto::Perfetto;
use std::path::{Path, PathBuf};

/// The report (JSON), call tree, timeline and line counts (per test) of `path` under
/// `filter`.
pub(crate) fn answer(path: &Path, filter: Filter) -> (String, read::Outcome) {
    let mut a = (
        (
            (Report::default(), CallTree::default()),
            Perfetto::new(Vec::new()),
        ),
        Coverage::default(),
    );
    let mut s = run_quiet(&crate::read::Trace::open(path).unwrap(), filter, &mut a).unwrap();
    s.file = String::new();
    let (((report, tree), timeline), coverage) = a;
    let doc = report.doc(&s, &|_| true, None);
    let mut out = serde_json::to_string_pretty(&doc).unwrap().into_bytes();
    crate::render::text::tree_to(&mut out, &s.model.syms, &tree.tree, 0, None, true).unwrap();
    out.extend_from_slice(&timeline.finish().unwrap().1);
    for c in coverage.per_test.iter().chain([&coverage.outside]) {
        let mut lines: Vec<_> = c.lines.iter().collect();
        lines.sort_unstable();
        let mut methods: Vec<_> = c.methods.iter().collect();
        methods.sort_unstable();
        out.extend_from_slice(format!("\n{lines:?}\n{methods:?}").as_bytes());
    }
    (String::from_utf8(out).unwrap(), s.outcome)
}

fn window(from: Option<u64>, to: Option<u64>, thread: Option<&str>) -> Filter {
    Filter {
        from,
        to,
        thread: thread.map(Pattern::new),
        ..Filter::default()
    }
}

/// Times (ns from the trace's start) around every chunk of `path`'s index: just
/// before, at and after each chunk's first and last tick, and between them.
fn edges(path: &Path) -> Vec<u64> {
    let f = std::fs::File::open(path).unwrap();
    let mut r = trace::jtr::JtrReader::open(f).unwrap();
    let (start, conv) = (r.header.start_ns, r.conv);
    let mut t = vec![0];
    for e in r.index().unwrap() {
        if let Some((a, b)) = e.ticks {
            for ns in [conv.to_unix_ns(a), conv.to_unix_ns(b)] {
                let rel = ns.saturating_sub(start);
                t.extend([rel.saturating_sub(1), rel, rel + 1, rel + (b - a) / 2]);
            }
        }
    }
    t.sort_unstable();
    t.dedup();
    t
}

#[test]
fn windows_of_a_jtr_answer_as_the_full_pass() {
    let (mut read_, mut total, mut windows) = (0, 0, 0);
    for &name in read::STORED {
        let mut mine = 0;
        let xml = read::stored(name, "xml");
        // The larger trace in chunks of more records: the test stays fast.
        let records = match name {
            "v2-switch" => 400,
            "v3-lines" => 40,
            _ => 3,
        };
        let jtr = rechunked(&read::stored(name, "jtr"), records);
        let times = edges(&jtr);
        let last = *times.last().unwrap();
        // Eight times as starts, each with ends near, far and past the end.
        let mut cases = vec![(None, Some(0)), (Some(last + 10), None), (None, None)];
        let step = times.len().div_ceil(8);
        for (i, &from) in times.iter().enumerate().step_by(step) {
            cases.push((Some(from), None));
            for k in [0, 1, 5, 20, times.len()] {
                let to = times.get(i + k).copied().unwrap_or(last + 10);
                cases.push((Some(from), Some(to)));
            }
        }
        for (from, to) in cases {
            for thread in [None, Some("main")] {
                let f = window(from, to, thread);
                let want = answer(&xml, f.clone()).0;
                let (got, o) = answer(&jtr, f);
                let what = format!("{name} --from {from:?} --to {to:?} --thread {thread:?}");
                assert_eq!(got, want, "{what}");
                assert_eq!(o.resumed_wrong, 0, "{what}");
                if from.is_some() || to.is_some() {
                    windows += 1;
                    let all = o.chunks_replayed + o.chunks_skipped;
                    read_ += all - o.chunks_unread;
                    total += all;
                    mine += o.chunks_unread;
                }
            }
        }
        let _ = std::fs::remove_file(&jtr);
        // Line records (`lines=on`) included: windows seek there too.
        assert!(mine > 0, "{name}: every window read whole");
    }
    assert!(windows > 200, "{windows} windows");
    // A window reads a part of the chunks (each thread's within it, and the few
    // before it that left frames open), not all of them.
    assert!(read_ * 2 < total, "{read_} of {total} chunks read");
}

/// Without resume points (a file cut short, or an index written before them), a
/// window is answered by the full pass, and the same.
#[test]
fn a_jtr_without_resume_points_answers_by_the_full_pass() {
    let name = "v1-exceptions";
    let xml = read::stored(name, "xml");
    let jtr = read::stored(name, "jtr");
    let f = window(Some(1_000_000), Some(30_000_000), None);
    let (got, o) = answer(&jtr, f.clone());
    assert_eq!(got, answer(&xml, f).0);
    assert_eq!(o.chunks_unread, 0);
}

/// `path` written again by the `.jtr` writer (which appends the index with its resume
/// points), each record chunk cut into chunks of `records` records.
pub(crate) fn rechunked(path: &Path, records: usize) -> PathBuf {
    use trace::defs::Msg;
    let f = std::fs::File::open(path).unwrap();
    let mut r = trace::jtr::JtrReader::open(std::io::BufReader::new(f)).unwrap();
    // Tests run at once: each copy its own file.
    static COPIES: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    let copy = COPIES.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let out = std::env::temp_dir().join(format!(
        "jtrace-window-{records}-{}-{copy}-{}",
        std::process::id(),
        path.file_name().unwrap().to_string_lossy()
    ));
    let file = std::fs::File::create(&out).unwrap();
    let mut w = trace::jtr::JtrWriter::new(file, &r.header, &r.conv).unwrap();
    let cut = |tid: u32, data: &[u8], into: &mut Vec<(u32, Vec<u8>)>| {
        let mut rd = trace::record::Reader::new(data);
        let mut from = 0;
        let mut n = 0;
        while rd.next().is_some() {
            n += 1;
            if n % records == 0 {
                into.push((tid, data[from..rd.position()].to_vec()));
                from = rd.position();
            }
        }
        if from < data.len() {
            into.push((tid, data[from..].to_vec()));
        }
    };
    while let Some(m) = r.next_msg().unwrap() {
        let mut pieces = Vec::new();
        match &m {
            Msg::Chunk { tid, data } => cut(*tid, data, &mut pieces),
            Msg::Chunks(c) => c.iter().for_each(|(t, d)| cut(*t, d, &mut pieces)),
            _ => {}
        }
        let end = matches!(m, Msg::Finish { .. });
        if pieces.is_empty() {
            w.write(&m).unwrap();
        } else {
            w.write(&Msg::Chunks(pieces)).unwrap();
        }
        if end {
            break;
        }
    }
    out
}

/// `--test` on a `.jtr` reads from the first chosen test's start (its frames, lines,
/// waits and pending exception rebuilt there): for every stored trace with test marks,
/// each test alone, all of them, and with a window besides, the answers equal the full
/// pass's over the XML twin; a later test leaves chunks unread.
#[test]
fn test_scopes_of_a_jtr_answer_as_the_full_pass() {
    let mut unread = 0;
    for (name, records) in [("v3-tags", 3), ("v3-lines", 40)] {
        let xml = read::stored(name, "xml");
        let jtr = rechunked(&read::stored(name, "jtr"), records);
        let (_, tags) = read::Trace::open(&jtr)
            .unwrap()
            .tags()
            .cloned()
            .expect("an index with end states");
        // As stored (no index): no seeking, read whole.
        assert!(read::Trace::open(&read::stored(name, "jtr"))
            .unwrap()
            .tags()
            .is_none());
        let mut tests: Vec<String> = tags
            .iter()
            .filter(|(t, _)| t.name == "test")
            .filter_map(|(t, _)| t.fields.iter().find(|(k, _)| k == "id"))
            .map(|(_, v)| v.clone())
            .collect();
        tests.sort();
        tests.dedup();
        assert!(!tests.is_empty(), "{name}: no test marks");
        tests.push("*".into());
        let last = *edges(&jtr).last().unwrap();
        for test in &tests {
            for (from, to) in [(None, None), (None, Some(last / 2)), (Some(last / 3), None)] {
                let f = Filter {
                    test: Some(Pattern::new(test)),
                    ..window(from, to, None)
                };
                let want = answer(&xml, f.clone()).0;
                let (got, o) = answer(&jtr, f);
                let what = format!("{name} --test {test} --from {from:?} --to {to:?}");
                assert_eq!(got, want, "{what}");
                assert_eq!(o.resumed_wrong, 0, "{what}");
                unread += o.chunks_unread;
            }
        }
        let _ = std::fs::remove_file(&jtr);
    }
    assert!(unread > 0, "every --test read whole");
}

/// Every time around every chunk edge as a window's start, on every stored trace: a
/// thread resumed anywhere (its pending wait or contended enter rebuilt, its clock as
/// the definitions replayed before moved it) answers as the full pass.
#[test]
fn every_chunk_edge_as_a_start_answers_as_the_full_pass() {
    let mut starts = 0;
    // The two larger traces are left to the sampled windows above: the test stays fast.
    for &name in read::STORED {
        if matches!(name, "v2-switch" | "v3-lines") {
            continue;
        }
        let xml = read::stored(name, "xml");
        let jtr = rechunked(&read::stored(name, "jtr"), 3);
        for from in edges(&jtr) {
            let f = window(Some(from), None, None);
            let want = answer(&xml, f.clone()).0;
            let (got, o) = answer(&jtr, f);
            assert_eq!(got, want, "{name} --from {from}");
            assert_eq!(o.resumed_wrong, 0, "{name} --from {from}");
            starts += 1;
        }
        let _ = std::fs::remove_file(&jtr);
    }
    assert!(starts > 300, "{starts} starts");
}

/// What an analysis is handed under a window, checked as it comes: a wait is seen
/// inside the frame it happened in (that frame handed over before it, even when it
/// started before the window).
#[derive(Default)]
struct Nesting {
    stacks: Vec<Vec<u32>>,
    bad: Vec<String>,
}

impl crate::model::Analysis for Nesting {
    fn enter(&mut self, _: &crate::model::Symbols, t: u32, stack: &[crate::model::Frame]) {
        let t = t as usize;
        if self.stacks.len() <= t {
            self.stacks.resize(t + 1, Vec::new());
        }
        self.stacks[t].extend(stack.last().map(|f| f.method));
    }

    fn exit(
        &mut self,
        _: &crate::model::Symbols,
        t: u32,
        _: &crate::model::Call,
        _: &[crate::model::Frame],
    ) {
        if let Some(s) = self.stacks.get_mut(t as usize) {
            s.pop();
        }
    }

    fn blocked(&mut self, s: &crate::model::Symbols, b: &crate::model::Blocked) {
        let top = self.stacks.get(b.thread as usize).and_then(|s| s.last());
        if b.site.is_some() && top != b.site.as_ref() && !b.open {
            self.bad.push(format!(
                "a wait in {:?} handed over inside {:?}",
                b.site.map(|m| &s.method(m).readable),
                top.map(|&m| &s.method(m).readable)
            ));
        }
    }
}

/// Under every window of every stored trace: waits come inside the frames they
/// happened in; the timeline's slices nest per thread with time never going back
/// (a frame open since before the window begins at its start, before its children);
/// and the report's monitor and collection times lie within the window, as its
/// method times do.
#[test]
fn windows_keep_frames_around_what_happens_in_them() {
    let mut checked = 0;
    for &name in read::STORED {
        let xml = read::stored(name, "xml");
        let jtr = rechunked(&read::stored(name, "jtr"), 50);
        let times = edges(&jtr);
        let _ = std::fs::remove_file(&jtr);
        let step = times.len().div_ceil(12);
        for (i, &from) in times.iter().enumerate().step_by(step) {
            for k in [1, 7, times.len()] {
                let to = times.get(i + k).copied();
                let f = window(Some(from), to, None);
                let mut a = (
                    (Nesting::default(), Report::default()),
                    Perfetto::new(Vec::new()),
                );
                let s = run_quiet(&crate::read::Trace::open(&xml).unwrap(), f, &mut a).unwrap();
                let ((nesting, report), timeline) = a;
                let what = format!("{name} --from {from} --to {to:?}");
                assert!(nesting.bad.is_empty(), "{what}: {:?}", nesting.bad);

                let json = timeline.finish().unwrap().1;
                let doc: serde_json::Value = serde_json::from_slice(&json).unwrap();
                let mut per_thread: std::collections::HashMap<i64, (i64, f64)> = Default::default();
                for e in doc["traceEvents"].as_array().unwrap() {
                    let ph = e["ph"].as_str().unwrap_or_default();
                    if ph != "B" && ph != "E" {
                        continue;
                    }
                    let ts = e["ts"].as_f64().unwrap();
                    let (depth, last) = per_thread.entry(e["tid"].as_i64().unwrap()).or_default();
                    assert!(ts >= *last, "{what}: {e} goes back from {last}");
                    *last = ts;
                    *depth += if ph == "B" { 1 } else { -1 };
                    assert!(*depth >= 0, "{what}: {e} ends no slice");
                }
                assert!(
                    per_thread.values().all(|&(d, _)| d == 0),
                    "{what}: slices left open"
                );

                let span = to.map_or(u64::MAX, |t| t.saturating_sub(from));
                let doc = serde_json::to_value(report.doc(&s, &|_| true, None)).unwrap();
                for m in doc["monitors"].as_array().unwrap() {
                    let n = |k: &str| m[k].as_u64().unwrap();
                    assert!(
                        n("blocked_ns") <= span.saturating_mul(n("contended")),
                        "{what}: {m}"
                    );
                    assert!(
                        n("waited_ns") <= span.saturating_mul(n("waits")),
                        "{what}: {m}"
                    );
                    // Only a window with an end bounds them.
                    checked += to.is_some() as u64;
                }
                let gc = &doc["gc"];
                let n = |k: &str| gc[k].as_u64().unwrap();
                assert!(
                    n("total_pause_ns") <= span.saturating_mul(n("collections")),
                    "{what}: {gc}"
                );
                assert!(n("max_pause_ns") <= span, "{what}: {gc}");
            }
        }
    }
    assert!(checked > 50, "{checked} monitor rows checked");
}
