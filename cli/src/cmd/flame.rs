//! `jtrace flame` (inferno SVG, or an HTML page around it) and `jtrace collapsed`
//! (folded stacks), weighted by exact self time or, with `--alloc`, allocated bytes.

use crate::cmd::common::Input;

use super::common::{emit, Select, Stream};
use crate::analysis::folded;
use crate::analysis::tree::CallTree;
use crate::render;
use crate::split;
use std::io::Write;
use std::path::PathBuf;

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    pub input: Input,
    /// Output file: .svg, or .html for a page around the SVG
    #[arg(short, long, value_name = "FILE", value_parser = flame_file)]
    pub output: PathBuf,
    #[command(flatten)]
    pub weight: Weight,
    #[command(flatten)]
    pub select: Select,
    /// Title of the graph
    #[arg(long)]
    pub title: Option<String>,
}

#[derive(clap::Args, Debug)]
pub struct Weight {
    /// Weigh stacks by bytes allocated under them (allocated class as the leaf frame);
    /// needs a trace taken with alloc=exact or alloc=sampled:N
    #[arg(long)]
    pub alloc: bool,
    /// With --alloc: weigh by number of allocations instead of bytes
    #[arg(long, requires = "alloc")]
    pub count: bool,
    /// Start each stack with its thread's name
    #[arg(long)]
    pub threads: bool,
    /// Every stack, however large the answer (by default a stack lighter than the share
    /// said on stderr is counted in its caller's own time, so that the answer stays
    /// under 10 MB)
    #[arg(long)]
    pub all: bool,
}

#[derive(clap::Args, Debug)]
pub struct CollapsedArgs {
    #[command(flatten)]
    pub input: Input,
    #[command(flatten)]
    pub weight: Weight,
    #[command(flatten)]
    pub select: Select,
    #[command(flatten)]
    pub out: super::common::Out,
}

/// A flame graph's file: `.svg`, or `.html`/`.htm` for a page around it.
fn flame_file(s: &str) -> Result<PathBuf, String> {
    super::common::out_format(s, &[".svg", ".html", ".htm"])
}

/// Writes the folded stacks of a trace to `out`; the trace's name and the unit of the
/// values.
fn stacks(
    trace: &Input,
    w: &Weight,
    sel: &Select,
    for_svg: bool,
    out: &mut dyn Write,
) -> Result<(String, &'static str), String> {
    let mut t = CallTree::default();
    let s = split::run(
        &trace.open()?,
        sel.every_method("flame and collapsed show every method")?,
        &mut t,
    )?;
    let syms = &s.model.syms;
    if w.alloc {
        let map = t.folded_allocs(syms, w.threads, w.count);
        if map.is_empty() {
            eprintln!(
                "jtrace: warning: {}: no allocations in the trace (trace with alloc=exact)",
                s.file
            );
        }
        render::flame::folded(&map, out).map_err(|e| format!("cannot write: {e}"))?;
        Ok((s.file, if w.count { "allocations" } else { "bytes" }))
    } else {
        super::common::say_cut(&s.file, &t.tree);
        let (what, min) = match (for_svg, w.all) {
            (_, true) => ("", folded::Min::Fixed(0)),
            (true, false) => ("flame", folded::for_flame(&t.tree)),
            (false, false) => (
                "collapsed",
                folded::Min::Fit(folded::Budget::Lines(folded::ANSWER_BYTES), 0),
            ),
        };
        // Streamed: every folded line of a large trace can be gigabytes (--all).
        let (min, total) = folded::folded(syms, &t.tree, w.threads, min, out)
            .map_err(|e| format!("cannot write: {e}"))?;
        super::common::say_min(what, min, total, " (--all shows every stack)");
        Ok((s.file, "ns"))
    }
}

pub fn run(a: Args) -> Result<(), String> {
    let mut text = Vec::new();
    let (file, unit) = stacks(&a.input, &a.weight, &a.select, true, &mut text)?;
    // Names are UTF-8 already: checked, not copied.
    let stacks = String::from_utf8(text)
        .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
    let what = if a.weight.alloc {
        "allocations"
    } else {
        "self time"
    };
    let title = a.title.unwrap_or(format!("{file}: {what}"));
    let mut svg = Vec::new();
    render::flame::svg(&stacks, &title, unit, &mut svg)?;
    let name = a.output.to_string_lossy().to_lowercase();
    let out = if name.ends_with(".html") || name.ends_with(".htm") {
        render::html::flame_page(&title, &svg).into_bytes()
    } else {
        svg
    };
    emit(Some(&a.output), &out)
}

pub fn collapsed(a: CollapsedArgs) -> Result<(), String> {
    super::common::form(a.out.output.as_deref(), super::common::Form::Collapsed, &[])?;
    let mut out = Stream::open(a.out.output.as_deref())?;
    let r = stacks(&a.input, &a.weight, &a.select, false, &mut out);
    match r {
        Ok(_) => out.finish(Ok(())),
        // A closed stdout while writing is not an error (`| head`).
        Err(e) if e.contains("Broken pipe") && a.out.output.is_none() => Ok(()),
        Err(e) => Err(e),
    }
}
