//! `jtrace flame` (inferno SVG, or an HTML page around it) and `jtrace collapsed`
//! (folded stacks), weighted by exact self time or, with `--alloc`, allocated bytes.

use super::common::{emit, Select};
use crate::analysis::folded;
use crate::analysis::tree::CallTree;
use crate::render;
use crate::session;
use std::path::PathBuf;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The trace (.xml, .xml.gz, .xml.zst, .jtr)
    pub trace: PathBuf,
    /// Output file: .svg, or .html for a page around the SVG
    #[arg(short, long, value_name = "FILE")]
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
}

#[derive(clap::Args, Debug)]
pub struct CollapsedArgs {
    /// The trace (.xml, .xml.gz, .xml.zst, .jtr)
    pub trace: PathBuf,
    #[command(flatten)]
    pub weight: Weight,
    #[command(flatten)]
    pub select: Select,
    /// Write to FILE instead of stdout
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
}

/// The folded stacks of a trace and the unit of their values.
fn stacks(
    trace: &std::path::Path,
    w: &Weight,
    sel: &Select,
    for_svg: bool,
) -> Result<(String, String, &'static str), String> {
    let mut t = CallTree::default();
    let s = session::run(trace, sel.filter()?, &mut t)?;
    let syms = &s.model.syms;
    Ok(if w.alloc {
        let map = t.folded_allocs(syms, w.threads, w.count);
        let mut f = Vec::new();
        render::flame::folded(&map, &mut f).map_err(|e| e.to_string())?;
        let f = String::from_utf8_lossy(&f).into_owned();
        if f.is_empty() {
            eprintln!(
                "jtrace: warning: {}: no allocations in the trace (trace with alloc=exact)",
                s.file
            );
        }
        (s.file, f, if w.count { "allocations" } else { "bytes" })
    } else {
        let min = if for_svg {
            folded::flame_min(&t.tree)
        } else {
            0
        };
        (s.file, folded::folded(syms, &t.tree, w.threads, min), "ns")
    })
}

pub fn run(a: Args) -> Result<(), String> {
    let (file, stacks, unit) = stacks(&a.trace, &a.weight, &a.select, true)?;
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
    let (_, stacks, _) = stacks(&a.trace, &a.weight, &a.select, false)?;
    emit(a.output.as_deref(), stacks.as_bytes())
}
