//! `jtrace diff BEFORE AFTER`: per-method calls, self and total time of two traces.

use super::common::{emit, json, Select};
use crate::analysis::report::Report;
use crate::render;
use crate::split;
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
    #[command(flatten)]
    pub out: super::common::Out,
    /// Per test (traces of test runs, see jtrace tests): the tests whose calls or self
    /// times changed, and the methods that changed in each
    #[arg(long)]
    pub by_test: bool,
    /// With --by-test: a self time counts as changed when it moved by this fraction and
    /// by --min-self at least
    #[arg(long, value_name = "FRACTION", default_value_t = 0.5)]
    pub min_ratio: f64,
    /// With --by-test: the smallest change in self time that counts (`100us`)
    #[arg(long, value_name = "DURATION", default_value = "1ms", value_parser = super::common::duration)]
    pub min_self: u64,
}

pub fn run(mut a: Args) -> Result<(), String> {
    a.json = super::common::wants_json(a.out.output.as_deref(), a.json)?;
    if a.by_test {
        let out = crate::render::testcases::by_test(
            &super::testcases::collect(std::slice::from_ref(&a.before))?,
            &super::testcases::collect(std::slice::from_ref(&a.after))?,
            a.min_ratio,
            a.min_self,
            a.json,
        )?;
        return emit(a.out.output.as_deref(), out.as_bytes());
    }
    let filter = a.select.filter()?;
    let mut rb = Report::methods_only();
    let sb = split::run(
        &crate::read::Trace::open(&a.before)?,
        filter.clone(),
        &mut rb,
    )?;
    let mut ra = Report::methods_only();
    let sa = split::run(
        &crate::read::Trace::open(&a.after)?,
        filter.clone(),
        &mut ra,
    )?;
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
    emit(a.out.output.as_deref(), &out)
}
