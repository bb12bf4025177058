//! `jtrace graph METHOD`: the method's callers above, its callees below, merged by path,
//! with exact counts, total and self time.

use crate::cmd::common::Input;

use super::common::{duration, emit, json, Select};
use crate::analysis::graph::{Graph, Target};
use crate::analysis::tree::{PathTree, ANSWER_BYTES, MORE, MORE_NAME};
use crate::model::Symbols;
use crate::pass;
use crate::render;
use serde::Serialize;
use std::fmt::Write;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The method: `Class.method`, `Class.method(int, String)`, or a pattern with `*`/`?`
    #[arg(value_name = "METHOD")]
    pub target: String,
    #[command(flatten)]
    pub input: Input,
    #[command(flatten)]
    pub select: Select,
    /// Hide paths whose total time is under TIME (e.g. 1ms; 0ns shows every path).
    /// Without it, the least that keeps the answer under 10 MB, said on stderr
    #[arg(long, value_name = "TIME", value_parser = duration)]
    pub min_time: Option<u64>,
    /// Levels of callers and of callees to show
    #[arg(long, value_name = "N")]
    pub depth: Option<usize>,
    /// JSON instead of text
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub out: super::common::Out,
}

#[derive(Serialize)]
struct Node {
    depth: usize,
    frame: String,
    /// `Class.method(descriptor)`: the JVM's name.
    jvm: String,
    calls: u64,
    total_ns: u64,
    self_ns: u64,
}

#[derive(Serialize)]
struct GraphDoc {
    method: String,
    matched: Vec<String>,
    calls: u64,
    callers: Vec<Node>,
    callees: Vec<Node>,
}

/// The `min` of `t`'s rows: `--min-time`, or the least that keeps each of the two trees
/// under half the answer's budget.
fn min(s: &Symbols, t: &PathTree, a: &Args) -> u64 {
    let depth = a.depth.map(|d| d + 1);
    super::common::min_or_fit("graph", a.min_time, s, t, ANSWER_BYTES / 2, depth)
}

fn nodes(s: &Symbols, t: &PathTree, min: u64, depth: Option<usize>) -> Vec<Node> {
    t.rows(min, depth.map(|d| d + 1))
        .into_iter()
        .filter(|r| r.depth > 0)
        .map(|r| {
            let n = &t.nodes[r.node as usize];
            let (frame, jvm) = if n.label == MORE {
                (MORE_NAME.to_string(), String::new())
            } else {
                let m = s.method(n.label);
                let jvm = crate::model::names::jvm(&m.class, &m.name, &m.signature);
                (m.readable.clone(), jvm)
            };
            Node {
                depth: r.depth - 1,
                frame,
                jvm,
                calls: n.calls,
                total_ns: n.total,
                self_ns: n.self_ns,
            }
        })
        .collect()
}

fn table(o: &mut String, rows: &[Node]) {
    let rows: Vec<Vec<String>> = rows
        .iter()
        .map(|n| {
            vec![
                n.calls.to_string(),
                render::fmt::ns(n.total_ns),
                render::fmt::ns(n.self_ns),
                format!("{}{}", "  ".repeat(n.depth), n.frame),
            ]
        })
        .collect();
    render::text::table(o, &["calls", "total", "self", "frame"], &rows);
}

pub fn run(mut a: Args) -> Result<(), String> {
    a.json = super::common::wants_json(a.out.output.as_deref(), a.json)?;
    let mut g = Graph::new(Target::new(&a.target));
    let s = pass::run(
        &a.input.open()?,
        a.select
            .every_method("graph takes its METHOD as an argument")?,
        &mut g,
    )?;
    let syms = &s.model.syms;
    // Once, whichever of the two trees reached the bound.
    let cut = if g.callers.is_cut() {
        &g.callers
    } else {
        &g.callees
    };
    super::common::say_cut(&s.file, cut);
    if g.matched.is_empty() {
        return Err(format!(
            "{}: no call of a method named {:?} (give Class.method, Class.method(int), or a \
             pattern with * and ?; `jtrace report` lists the methods)",
            s.file, a.target
        ));
    }
    let doc = GraphDoc {
        method: a.target.clone(),
        matched: g
            .matched
            .iter()
            .map(|&m| syms.method(m).readable.clone())
            .collect(),
        calls: g.calls,
        callers: nodes(syms, &g.callers, min(syms, &g.callers, &a), a.depth),
        callees: nodes(syms, &g.callees, min(syms, &g.callees, &a), a.depth),
    };
    let out = if a.json {
        json(&doc)?
    } else {
        let mut o = String::new();
        let _ = writeln!(
            o,
            "jtrace graph: {} in {} ({} calls)",
            doc.matched.join(", "),
            s.file,
            doc.calls
        );
        let _ = writeln!(
            o,
            "\nCallers (the method, then who called it, merged by path: each line counts the \
             method's calls through that chain)"
        );
        table(&mut o, &doc.callers);
        let _ = writeln!(
            o,
            "\nCallees (what the method's outermost calls called, merged by path)"
        );
        table(&mut o, &doc.callees);
        o.into_bytes()
    };
    emit(a.out.output.as_deref(), &out)
}
