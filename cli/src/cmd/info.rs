//! `jtrace info`: the recorded run at a glance: the JVM's process and command line, the
//! JVM itself (vendor, name, version, home, main command), the agent's options, the time span, events by kind, what was dropped or repaired (by
//! cause), and every thread with its lifetime and calls.

use crate::cmd::common::Input;

use super::common::{emit, json};
use crate::model::filter::Filter;
use crate::model::idmap::FastMap;
use crate::model::Analysis;
use crate::pass;
use crate::read::Event;
use crate::render::fmt;
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt::Write;

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    pub input: Input,
    /// JSON instead of text
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub out: super::common::Out,
}

#[derive(Serialize, Default)]
struct ThreadRow {
    id: u64,
    name: String,
    start_ns: u64,
    /// None: alive when the trace ended.
    end_ns: Option<u64>,
    lifetime_ns: u64,
    calls: u64,
}

#[derive(Serialize, Default)]
struct InfoDoc {
    file: String,
    complete: bool,
    pid: Option<u64>,
    command: Option<String>,
    /// The JVM's facts (`agentCreate`'s annotations) by name: `java.vm.vendor`,
    /// `java.vm.name`, `java.vm.version`, `java.home`, ...; empty for a trace from
    /// before they were recorded.
    jvm: BTreeMap<String, String>,
    agent_version: Option<String>,
    agent_parameters: Option<String>,
    options: BTreeMap<String, String>,
    start_unix_ns: u64,
    duration_ns: u64,
    /// Trace elements by kind (method entries, exits, exceptions, ...).
    events: BTreeMap<&'static str, u64>,
    /// `traceEnd`'s annotations: drops and repairs by cause (0 is good), notes.
    drops_and_repairs: BTreeMap<String, String>,
    /// With `window=`: traceEnd's window counts (windowsSeen, windowsKept, per rule,
    /// too large, open at the close).
    windows: BTreeMap<String, u64>,
    threads: Vec<ThreadRow>,
    warnings: Vec<String>,
}

/// The element kinds events count as, in [`kind`]'s order.
const KINDS: [&str; 18] = [
    "methodEntry",
    "methodExit",
    "throw",
    "catch",
    "line",
    "objAlloc",
    "objDef",
    "objFree",
    "gcStart",
    "gcFinish",
    "monContendedEnter",
    "monContendedEntered",
    "monWait",
    "monWaited",
    "threadStart",
    "threadEnd",
    "classDef",
    "methodDef",
];

/// The element kind an event counts as: its index in [`KINDS`] (counted in an array
/// per event, not a map keyed by name: a string compare per event was half of `info`).
fn kind(ev: &Event) -> Option<usize> {
    Some(match ev {
        Event::Entry { .. } => 0,
        Event::Exit { .. } => 1,
        Event::Throw { .. } => 2,
        Event::Catch { .. } => 3,
        Event::Line { .. } => 4,
        Event::Alloc { .. } => 5,
        Event::ObjDef { .. } => 6,
        Event::ObjFree { .. } => 7,
        Event::GcStart { .. } => 8,
        Event::GcFinish { .. } => 9,
        Event::ContendedEnter { .. } => 10,
        Event::ContendedEntered { .. } => 11,
        Event::Wait { .. } => 12,
        Event::Waited { .. } => 13,
        Event::ThreadStart { .. } => 14,
        Event::ThreadEnd { .. } => 15,
        Event::ClassDef { .. } => 16,
        Event::MethodDef { .. } => 17,
        _ => return None,
    })
}

struct Nothing;
impl Analysis for Nothing {}

pub fn run(mut a: Args) -> Result<(), String> {
    a.json = super::common::wants_json(a.out.output.as_deref(), a.json)?;
    let mut d = InfoDoc::default();
    let mut counts = [0u64; KINDS.len()];
    // Entries by thread id, and the last thread's count apart (its calls come in runs).
    let mut calls: FastMap<u64, u64> = FastMap::default();
    let mut last: Option<(u64, u64)> = None;
    let s = pass::run_tapped(&a.input.open()?, Filter::default(), &mut Nothing, |ev| {
        if let Some(k) = kind(ev) {
            counts[k] += 1;
        }
        match ev {
            Event::Entry { thread, .. } => match &mut last {
                Some((t, n)) if t == thread => *n += 1,
                _ => {
                    if let Some((t, n)) = last.replace((*thread, 1)) {
                        *calls.entry(t).or_default() += n;
                    }
                }
            },
            Event::Process { pid, command } => {
                d.pid = Some(*pid);
                d.command = Some(command.to_string());
            }
            Event::Agent {
                parameters,
                version,
            } => {
                d.agent_parameters = Some(parameters.to_string());
                d.agent_version = Some(version.to_string());
            }
            Event::AgentOption { key, value } => {
                d.options.insert(key.to_string(), value.to_string());
            }
            Event::Annotation { name, value }
                if name.starts_with("windows") && value.parse::<u64>().is_ok() =>
            {
                d.windows
                    .insert(name.to_string(), value.parse().unwrap_or_default());
            }
            Event::Annotation { name, value } => {
                let e = d.drops_and_repairs.entry(name.to_string()).or_default();
                if !e.is_empty() {
                    e.push_str("; ");
                }
                e.push_str(value);
            }
            _ => {}
        }
    })?;
    pass::warn(&s);
    if let Some((t, n)) = last {
        *calls.entry(t).or_default() += n;
    }
    d.events = KINDS
        .iter()
        .zip(counts)
        .filter(|&(_, n)| n > 0)
        .map(|(&k, n)| (k, n))
        .collect();
    let syms = &s.model.syms;
    let t = &s.model.totals;
    let end = t.end.unwrap_or(t.last);
    d.file = s.file.clone();
    d.complete = s.outcome.complete;
    d.warnings = s.outcome.warnings.clone();
    d.start_unix_ns = syms.start;
    d.jvm = syms.trace.jvm.iter().cloned().collect();
    d.duration_ns = end.saturating_sub(syms.start);
    d.threads = syms
        .threads
        .iter()
        .map(|th| ThreadRow {
            id: th.id,
            name: th.name.clone(),
            start_ns: th.start.saturating_sub(syms.start),
            end_ns: th.end.map(|e| e.saturating_sub(syms.start)),
            lifetime_ns: th.end.unwrap_or(end).saturating_sub(th.start),
            calls: calls.get(&th.id).copied().unwrap_or(0),
        })
        .collect();
    let out = if a.json {
        json(&d)?
    } else {
        text(&d).into_bytes()
    };
    emit(a.out.output.as_deref(), &out)
}

/// The facts shown on the `jvm:` line; the others get a line each.
const JVM_LINE: [&str; 4] = [
    "java.vm.name",
    "java.vm.version",
    "java.vm.vendor",
    "java.vm.info",
];

/// `jvm: NAME VERSION (VENDOR; INFO)`, then each other JVM fact as `NAME: VALUE`.
fn jvm_text(o: &mut String, d: &InfoDoc) {
    if d.jvm.is_empty() {
        return;
    }
    let get = |k: &str| d.jvm.get(k).map_or("?", |v| v.as_str());
    let _ = write!(
        o,
        "  jvm: {} {} ({}",
        get("java.vm.name"),
        get("java.vm.version"),
        get("java.vm.vendor")
    );
    if let Some(i) = d.jvm.get("java.vm.info") {
        let _ = write!(o, "; {i}");
    }
    let _ = writeln!(o, ")");
    for (k, v) in d
        .jvm
        .iter()
        .filter(|(k, _)| !JVM_LINE.contains(&k.as_str()))
    {
        let _ = writeln!(o, "    {k}: {v}");
    }
}

fn text(d: &InfoDoc) -> String {
    let mut o = String::new();
    let _ = writeln!(o, "jtrace info: {}", d.file);
    if !d.complete {
        let _ = writeln!(
            o,
            "  CUT SHORT: {}",
            d.warnings
                .first()
                .map_or("the trace stops early", |w| w.as_str())
        );
    }
    if let Some(pid) = d.pid {
        let _ = writeln!(o, "  process: pid {pid}");
    }
    if let Some(c) = &d.command {
        let _ = writeln!(o, "  command: {c}");
    }
    jvm_text(&mut o, d);
    if let Some(v) = &d.agent_version {
        let _ = writeln!(
            o,
            "  agent: jtrace {v}, options \"{}\"",
            d.agent_parameters.as_deref().unwrap_or("")
        );
    }
    if !d.options.is_empty() {
        let opts: Vec<String> = d.options.iter().map(|(k, v)| format!("{k}={v}")).collect();
        let _ = writeln!(o, "  in force: {}", opts.join(","));
    }
    let _ = writeln!(
        o,
        "  time: {} from {}",
        fmt::ns(d.duration_ns),
        fmt::date(d.start_unix_ns)
    );
    let _ = writeln!(o, "\nEvents by kind");
    let rows: Vec<Vec<String>> = d
        .events
        .iter()
        .map(|(k, v)| vec![v.to_string(), k.to_string()])
        .collect();
    crate::render::text::table(&mut o, &["count", "element"], &rows);
    let _ = writeln!(o, "\nDropped and repaired (traceEnd annotations)");
    let rows: Vec<Vec<String>> = d
        .drops_and_repairs
        .iter()
        .map(|(k, v)| vec![v.clone(), k.clone()])
        .collect();
    crate::render::text::table(&mut o, &["value", "cause"], &rows);
    if !d.windows.is_empty() {
        let rules: Vec<String> = ["window", "keep"]
            .iter()
            .filter_map(|k| Some(format!("{k}={}", d.options.get(*k)?)))
            .collect();
        let _ = writeln!(
            o,
            "\nWindows ({}; jtrace windows lists them)",
            rules.join(",")
        );
        let rows: Vec<Vec<String>> = d
            .windows
            .iter()
            .map(|(k, v)| vec![v.to_string(), k.clone()])
            .collect();
        crate::render::text::table(&mut o, &["count", "windows"], &rows);
    }
    let _ = writeln!(o, "\nThreads");
    let rows: Vec<Vec<String>> = d
        .threads
        .iter()
        .map(|t| {
            vec![
                t.id.to_string(),
                format!("+{}", fmt::ns(t.start_ns)),
                t.end_ns
                    .map_or_else(|| "(alive)".to_string(), |e| format!("+{}", fmt::ns(e))),
                fmt::ns(t.lifetime_ns),
                t.calls.to_string(),
                t.name.clone(),
            ]
        })
        .collect();
    crate::render::text::table(
        &mut o,
        &["id", "start", "end", "lifetime", "calls", "name"],
        &rows,
    );
    o
}
