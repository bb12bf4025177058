//! `jtrace slow`: every call over a threshold, with its thread, start and whole subtree.

use crate::cmd::common::Input;

use super::common::{duration, Select, Stream};
use crate::analysis::slow::{Collector, OnePass, SlowCall};
use crate::analysis::tree::{label_name, ANSWER_BYTES, SLOW};
use crate::model::Symbols;
use crate::render;
use crate::split;
use std::io::Write;

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    pub input: Input,
    /// Calls that took at least this long (e.g. 10ms, 1.5s)
    #[arg(long, value_name = "TIME", value_parser = duration, default_value = "10ms")]
    pub over: u64,
    #[command(flatten)]
    pub select: Select,
    /// Show only the N slowest
    #[arg(long, value_name = "N")]
    pub top: Option<usize>,
    /// Levels of each subtree to show
    #[arg(long, value_name = "N")]
    pub depth: Option<usize>,
    /// JSON instead of text
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub out: super::common::Out,
}

/// `--json`: the slow calls with their subtrees, written as they are walked, in the
/// layout of serde_json's pretty printer (two spaces a level), which it replaced for
/// speed (javac's `slow --over 10ms` has 2.9 M nodes): each field from fixed pieces,
/// numbers by itoa, strings escaped by serde_json. A test holds it to the printer's
/// bytes.
pub fn json_to(
    out: &mut impl Write,
    syms: &Symbols,
    calls: &[SlowCall],
    depth: Option<usize>,
) -> std::io::Result<()> {
    fn num(b: &mut Vec<u8>, key: &[u8], v: u64) {
        b.extend_from_slice(key);
        b.extend_from_slice(itoa::Buffer::new().format(v).as_bytes());
    }
    fn text(b: &mut Vec<u8>, key: &[u8], v: &str) -> std::io::Result<()> {
        b.extend_from_slice(key);
        serde_json::to_writer(&mut *b, v).map_err(std::io::Error::from)
    }
    if calls.is_empty() {
        return out.write_all(b"[]\n");
    }
    let mut b = Vec::with_capacity(1 << 17);
    b.push(b'[');
    for (i, c) in calls.iter().enumerate() {
        b.extend_from_slice(if i == 0 { b"\n  {" } else { b",\n  {" });
        text(
            &mut b,
            b"\n    \"thread\": ",
            &syms.threads[c.thread as usize].name,
        )?;
        let method = label_name(syms, c.tree.nodes[0].label);
        text(&mut b, b",\n    \"method\": ", method)?;
        num(
            &mut b,
            b",\n    \"start_ns\": ",
            c.start.saturating_sub(syms.start),
        );
        num(&mut b, b",\n    \"duration_ns\": ", c.duration);
        b.extend_from_slice(b",\n    \"open\": ");
        b.extend_from_slice(if c.open { b"true" } else { b"false" });
        b.extend_from_slice(b",\n    \"subtree\": [");
        let t = &c.tree;
        let rows = t.rows(0, depth);
        for (j, r) in rows.iter().enumerate() {
            let n = &t.nodes[r.node as usize];
            b.extend_from_slice(if j == 0 { b"\n      {" } else { b",\n      {" });
            num(&mut b, b"\n        \"depth\": ", r.depth as u64);
            text(&mut b, b",\n        \"frame\": ", label_name(syms, n.label))?;
            num(&mut b, b",\n        \"calls\": ", n.calls);
            num(&mut b, b",\n        \"total_ns\": ", n.total);
            num(&mut b, b",\n        \"self_ns\": ", n.self_ns);
            // A slow call nested in this one: its subtree is under its own entry.
            if n.label & SLOW != 0 && r.depth > 0 {
                b.extend_from_slice(b",\n        \"shown_apart\": true");
            }
            b.extend_from_slice(b"\n      }");
            if b.len() >= 1 << 16 {
                out.write_all(&b)?;
                b.clear();
            }
        }
        b.extend_from_slice(if rows.is_empty() {
            b"]\n  }"
        } else {
            b"\n    ]\n  }"
        });
    }
    b.extend_from_slice(b"\n]\n");
    out.write_all(&b)
}

/// Bytes of a slow call's heading line, about.
const HEADING: u64 = 100;

/// The depth (None: every level) at which the subtrees of `calls`, and the fewest calls
/// cut off the end (the fastest), keep the answer under [`ANSWER_BYTES`]; said on
/// stderr when something is left out. A deep recursive-descent parser's slow calls
/// nest hundreds of levels deep, each a slow call of its own.
fn fit(syms: &Symbols, calls: &mut Vec<SlowCall>) -> Option<usize> {
    let per_call: Vec<Vec<u64>> = calls
        .iter()
        .map(|c| {
            c.tree
                .bytes_by_depth(&render::text::row_bytes(syms, &c.tree))
        })
        .collect();
    let deepest = per_call.iter().map(Vec::len).max().unwrap_or(0);
    // Bytes of every call's rows down to each depth.
    let mut by_depth = vec![HEADING * calls.len() as u64; deepest];
    for bytes in &per_call {
        let mut sum = 0;
        for (d, total) in by_depth.iter_mut().enumerate() {
            sum += bytes.get(d).copied().unwrap_or(0);
            *total += sum;
        }
    }
    if by_depth.last().is_none_or(|&b| b <= ANSWER_BYTES) {
        return None;
    }
    // The deepest level that fits, at least the call and its callees.
    let depth = by_depth
        .iter()
        .rposition(|&b| b <= ANSWER_BYTES)
        .unwrap_or(0)
        .max(1);
    let mut kept = 0;
    let mut bytes = 0;
    for c in &per_call {
        let own = HEADING + c.iter().take(depth + 1).sum::<u64>();
        if kept > 0 && bytes + own > ANSWER_BYTES {
            break;
        }
        bytes += own;
        kept += 1;
    }
    let cut = calls.len() - kept;
    calls.truncate(kept);
    eprintln!(
        "jtrace: slow: each call's subtree is shown {depth} level{} deep{}, to keep the \
         answer under {} MB (--depth N and --top N show more)",
        if depth == 1 { "" } else { "s" },
        if cut > 0 {
            format!(", and the {cut} fastest slow calls are left out")
        } else {
            String::new()
        },
        ANSWER_BYTES / 1_000_000
    );
    Some(depth)
}

pub fn run(mut a: Args) -> Result<(), String> {
    a.json = super::common::wants_json(a.out.output.as_deref(), a.json)?;
    let filter = a.select.filter()?;
    let ok = |m: &str| filter.method_ok(m);
    let mut one = OnePass::new(a.over, filter.method.is_none(), &ok);
    let trace = a.input.open()?;
    let s = split::run(&trace, filter.clone(), &mut one)?;
    let broken = one.broken;
    let found = std::mem::take(&mut one.found);
    let mut calls = match one.sorted() {
        Some(calls) => calls,
        // One pass could not hold the subtrees: a second collects them.
        None => {
            let mut c = Collector::new(found);
            split::run_quiet(&trace, filter.clone(), &mut c)?;
            c.sorted()
        }
    };
    if std::env::var_os("JTRACE_READ_STATS").is_some() {
        eprintln!("jtrace: slow: {} passes", 1 + broken as u8);
    }
    let found = calls.len();
    calls.truncate(a.top.unwrap_or(found));
    let syms = &s.model.syms;
    if a.depth.is_none() && a.top.is_none() {
        a.depth = fit(syms, &mut calls);
    }
    // A slow `main`'s subtree is the whole call tree: written as it is made.
    let mut out = Stream::open(a.out.output.as_deref())?;
    let r = if a.json {
        json_to(&mut out, syms, &calls, a.depth)
    } else {
        render::text::slow_to(&mut out, syms, &calls, a.over, found, a.depth)
    };
    out.finish(r)
}

#[cfg(test)]
mod tests {
    use crate::analysis::slow::{Collector, OnePass, LOG_CAP};
    use crate::model::filter::Filter;
    use crate::pass::run_quiet;
    use crate::read;
    use std::path::Path;

    /// `slow`'s text for `path`, and whether one pass gave up (`cap`: the logs' limit).
    fn slow_text(
        path: &Path,
        over: u64,
        cap: usize,
        jobs: usize,
        window: Option<(u64, u64)>,
    ) -> (String, bool) {
        let ok = |_: &str| true;
        let filter = Filter {
            jobs,
            from: window.map(|w| w.0),
            to: window.map(|w| w.1),
            ..Filter::default()
        };
        let mut one = OnePass::new(over, true, &ok).with_cap(cap);
        let s = crate::split::run_quiet(
            &crate::read::Trace::open(path).unwrap(),
            filter.clone(),
            &mut one,
        )
        .unwrap();
        let broken = one.broken;
        let found = std::mem::take(&mut one.found);
        let calls = match one.sorted() {
            Some(calls) => calls,
            None => {
                let mut c = Collector::new(found);
                run_quiet(&crate::read::Trace::open(path).unwrap(), filter, &mut c).unwrap();
                c.sorted()
            }
        };
        let mut text = Vec::new();
        crate::render::text::slow_to(&mut text, &s.model.syms, &calls, over, calls.len(), None)
            .unwrap();
        (String::from_utf8(text).unwrap(), broken)
    }

    /// `--json` as written equals serde_json's pretty printer over the same values (the
    /// printer it replaced, kept here as the reference), for every call and for a few,
    /// whole and cut at a depth, on every stored trace.
    #[test]
    fn json_equals_the_pretty_printer() {
        use super::{json_to, label_name, SLOW};
        use serde::Serialize;
        #[derive(Serialize)]
        struct Node<'a> {
            depth: usize,
            frame: &'a str,
            calls: u64,
            total_ns: u64,
            self_ns: u64,
            #[serde(skip_serializing_if = "std::ops::Not::not")]
            shown_apart: bool,
        }
        #[derive(Serialize)]
        struct Slow<'a> {
            thread: &'a str,
            method: &'a str,
            start_ns: u64,
            duration_ns: u64,
            open: bool,
            subtree: Vec<Node<'a>>,
        }
        let ok = |_: &str| true;
        for name in read::STORED {
            let path = read::stored(name, "jtr");
            for over in [0, 1_000_000] {
                let mut one = OnePass::new(over, true, &ok);
                let s = run_quiet(
                    &crate::read::Trace::open(&path).unwrap(),
                    Filter::default(),
                    &mut one,
                )
                .unwrap();
                let calls = one.sorted().unwrap();
                let syms = &s.model.syms;
                for depth in [None, Some(0), Some(2)] {
                    let reference: Vec<_> = calls
                        .iter()
                        .map(|c| {
                            let t = &c.tree;
                            let subtree = t
                                .rows(0, depth)
                                .iter()
                                .map(|r| {
                                    let n = &t.nodes[r.node as usize];
                                    Node {
                                        depth: r.depth,
                                        frame: label_name(syms, n.label),
                                        calls: n.calls,
                                        total_ns: n.total,
                                        self_ns: n.self_ns,
                                        shown_apart: n.label & SLOW != 0 && r.depth > 0,
                                    }
                                })
                                .collect();
                            Slow {
                                thread: &syms.threads[c.thread as usize].name,
                                method: label_name(syms, t.nodes[0].label),
                                start_ns: c.start.saturating_sub(syms.start),
                                duration_ns: c.duration,
                                open: c.open,
                                subtree,
                            }
                        })
                        .collect();
                    let want = serde_json::to_string_pretty(&reference).unwrap() + "\n";
                    let mut got = Vec::new();
                    json_to(&mut got, syms, &calls, depth).unwrap();
                    assert_eq!(String::from_utf8(got).unwrap(), want, "{name} {over}");
                    assert!(!calls.is_empty() || over > 0, "{name}");
                }
            }
        }
    }

    /// One pass gives what two give (the second collecting the subtrees of the calls
    /// the first found), at thresholds from every call to a few, on the stored traces,
    /// whole and in time windows (where a call's slowness may be known only at its
    /// exit, inside calls still in doubt).
    #[test]
    fn one_pass_gives_the_answer_of_two() {
        for name in read::STORED {
            let path = read::stored(name, "jtr");
            for window in [None, Some((0, 1_000_000)), Some((200_000, 30_000_000))] {
                for over in [0, 1_000, 50_000, 1_000_000, 20_000_000] {
                    let what = format!("{name} over {over} in {window:?}");
                    let (one, broken) = slow_text(&path, over, LOG_CAP, 1, window);
                    assert!(!broken, "{what}");
                    let (two, gave_up) = slow_text(&path, over, 0, 1, window);
                    assert!(gave_up || over == 0 || window.is_some(), "{what}");
                    assert_eq!(one, two, "{what}");
                    assert!(
                        one.lines().count() > 1 || over > 0 || window.is_some(),
                        "{what}"
                    );
                }
            }
        }
    }
}
