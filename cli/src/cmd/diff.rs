//! `jtrace diff BEFORE AFTER`: per-method calls, self and total time of two traces.

use super::common::{emit, json, Select};
use crate::analysis::report::Report;
use crate::render;
use crate::session;
use std::path::PathBuf;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The first trace
    pub before: PathBuf,
    /// The second trace (of the same program)
    pub after: PathBuf,
    #[command(flatten)]
    pub select: Select,
    /// Rows to show (text: 30; JSON: all)
    #[arg(long, value_name = "N")]
    pub top: Option<usize>,
    /// One JSON object (schema in docs/CLI.md)
    #[arg(long)]
    pub json: bool,
    /// Write to FILE instead of stdout
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
}

pub fn run(a: Args) -> Result<(), String> {
    let filter = a.select.filter()?;
    let mut rb = Report::default();
    let sb = session::run(&a.before, filter.clone(), &mut rb)?;
    let mut ra = Report::default();
    let sa = session::run(&a.after, filter.clone(), &mut ra)?;
    let ok = |m: &str| filter.method_ok(m);
    let mut d = render::diff::doc(
        (&sb.file, &sb.model.syms, &rb),
        (&sa.file, &sa.model.syms, &ra),
        &ok,
    );
    let all = d.methods.len();
    let out = if a.json {
        if let Some(n) = a.top {
            d.methods.truncate(n);
        }
        json(&d)?
    } else {
        d.methods.truncate(a.top.unwrap_or(30));
        render::diff::text(&d, all).into_bytes()
    };
    emit(a.output.as_deref(), &out)
}
