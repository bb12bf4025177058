//! `jtrace windows TRACE`: the windows a trace recorded with `window=` kept (id, thread, method, start, duration, outcome, calls, the rules that kept it), slowest first, under the rules and how many windows were seen and kept.

use crate::cmd::common::Input;

use super::common::{emit, json};
use crate::model::filter::Filter;
use crate::model::windows::WindowsAnalysis;
use crate::pass;
use crate::read::Event;
use crate::render::fmt;
use serde::Serialize;
use std::fmt::Write;

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    pub input: Input,
    /// JSON instead of text
    #[arg(long)]
    pub json: bool,
    /// Only the N slowest windows (default: all)
    #[arg(long, value_name = "N")]
    pub top: Option<usize>,
    #[command(flatten)]
    pub out: super::common::Out,
}

#[derive(Serialize)]
struct Row {
    id: String,
    thread: String,
    method: String,
    /// From the trace's start.
    start_ns: u64,
    /// None: the trace has no end for it (cut short).
    duration_ns: Option<u64>,
    outcome: String,
    calls: u64,
    kept: String,
}

#[derive(Serialize, Default)]
struct Doc {
    file: String,
    /// `window=`, `keep=`, `window-max=` as the trace's option elements give them.
    rules: Vec<(String, String)>,
    /// traceEnd's window counts: windowsSeen, windowsKept, windowsKeptOver, ...
    counts: Vec<(String, u64)>,
    windows: Vec<Row>,
}

pub fn run(a: Args) -> Result<(), String> {
    let trace = a.input.open()?;
    let mut an = WindowsAnalysis::default();
    let mut doc = Doc::default();
    let mut p = pass::run_tapped(&trace, Filter::default(), &mut an, |e| match e {
        Event::AgentOption { key, value } if matches!(&**key, "window" | "keep" | "window-max") => {
            doc.rules.push((key.to_string(), value.to_string()));
        }
        Event::Annotation { name, value } if name.starts_with("windows") => {
            if let Ok(n) = value.parse() {
                doc.counts.push((name.to_string(), n));
            }
        }
        _ => {}
    })?;
    if doc.rules.is_empty() && an.windows.all.is_empty() {
        return Err(format!(
            "{}: the trace has no windows; record with window=Class.method (docs/OPTIONS.md)",
            p.file
        ));
    }
    doc.file = p.file.clone();
    let syms = &mut p.model.syms;
    let start = syms.start;
    for w in an.windows.all {
        let method = if w.test.is_empty() {
            let m = syms.method_or_placeholder(w.method_id);
            syms.method(m).frame.clone()
        } else {
            format!("test {}", w.test)
        };
        doc.windows.push(Row {
            duration_ns: w.duration(),
            id: w.id,
            thread: syms
                .threads
                .get(w.thread as usize)
                .map_or_else(String::new, |t| t.name.clone()),
            method,
            start_ns: w.start.saturating_sub(start),
            outcome: w.outcome,
            calls: w.calls,
            kept: w.kept,
        });
    }
    doc.windows.sort_by_key(|r| {
        (
            std::cmp::Reverse(r.duration_ns.unwrap_or(u64::MAX)),
            r.start_ns,
        )
    });
    if let Some(n) = a.top {
        doc.windows.truncate(n);
    }
    let bytes = if a.json {
        json(&doc)?
    } else {
        text(&doc).into_bytes()
    };
    emit(a.out.output.as_deref(), &bytes)
}

fn text(d: &Doc) -> String {
    let mut o = String::new();
    let rules: Vec<String> = d.rules.iter().map(|(k, v)| format!("{k}={v}")).collect();
    let _ = writeln!(o, "jtrace windows: {} ({})", d.file, rules.join(","));
    let count = |n: &str| d.counts.iter().find(|(k, _)| k == n).map(|(_, v)| *v);
    let mut line = format!(
        "  seen {}, kept {}",
        count("windowsSeen").unwrap_or(0),
        count("windowsKept").unwrap_or(d.windows.len() as u64)
    );
    for (name, what) in [
        ("windowsKeptOver", "by over"),
        ("windowsKeptException", "by exception"),
        ("windowsKeptSample", "by sample"),
        ("windowsTooLarge", "too large to hold"),
        ("windowsOpenAtClose", "open at the close"),
    ] {
        if let Some(n) = count(name) {
            let _ = write!(line, ", {n} {what}");
        }
    }
    let _ = writeln!(o, "{line}\n");
    let rows: Vec<Vec<String>> = d
        .windows
        .iter()
        .map(|r| {
            vec![
                r.id.clone(),
                r.duration_ns.map_or_else(|| "?".to_string(), fmt::ns),
                format!("+{}", fmt::ns(r.start_ns)),
                r.calls.to_string(),
                r.outcome.clone(),
                r.kept.clone(),
                r.thread.clone(),
                r.method.clone(),
            ]
        })
        .collect();
    crate::render::text::table(
        &mut o,
        &[
            "id", "duration", "start", "calls", "outcome", "kept by", "thread", "method",
        ],
        &rows,
    );
    o
}
