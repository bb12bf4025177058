//! `jtrace coverage TRACE... --source-root DIR -o FILE`: line and method coverage with
//! exact counts, as an lcov tracefile (`.info`) or JaCoCo XML (`.xml`), by the file's name.

use super::common::emit;
use crate::analysis::coverage::{Coverage, Model};
use crate::model::filter::Filter;
use crate::pass;
use crate::render;
use std::path::PathBuf;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Traces (one per JVM; lines=on for line coverage, method coverage without it)
    #[arg(required = true)]
    pub traces: Vec<PathBuf>,
    /// Where the sources are (`src/main/java`); only classes whose source file is found
    /// under one of them are reported. Repeatable.
    #[arg(long, value_name = "DIR", required = true)]
    pub source_root: Vec<PathBuf>,
    /// The report: `.info` = lcov tracefile, `.xml` = JaCoCo XML
    #[arg(short, long, value_name = "FILE", value_parser = coverage_file)]
    pub output: PathBuf,
}

/// A coverage report's file: `.info` (lcov) or `.xml` (JaCoCo XML).
fn coverage_file(s: &str) -> Result<PathBuf, String> {
    super::common::out_format(s, &[".info", ".xml"])
}

pub fn run(a: Args) -> Result<(), String> {
    // `coverage_file` let through `.info` and `.xml` only.
    let lcov = a.output.to_string_lossy().to_lowercase().ends_with(".info");
    for r in &a.source_root {
        if !r.is_dir() {
            return Err(format!("--source-root {}: not a directory", r.display()));
        }
    }
    let roots: Vec<PathBuf> = a
        .source_root
        .iter()
        .map(|r| std::path::absolute(r).unwrap_or_else(|_| r.clone()))
        .collect();
    let mut model = Model::default();
    let mut lines_on = false;
    for t in &a.traces {
        let mut cov = Coverage::default();
        let s = pass::run(&crate::read::Trace::open(t)?, Filter::default(), &mut cov)?;
        lines_on |=
            cov.outside.lines.len() + cov.per_test.iter().map(|c| c.lines.len()).sum::<usize>() > 0;
        model.add(&s.model.syms, cov, &s.file);
    }
    let left_out = model.keep_sources(&roots);
    if model.classes.is_empty() {
        return Err(format!(
            "no traced class has its source under {} ({left_out} classes looked for)",
            roots
                .iter()
                .map(|r| r.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    if !lines_on {
        eprintln!("jtrace coverage: the traces have no line events (record with lines=on); lines are reported as not run, methods by their calls");
    }
    let out = if lcov {
        let root = &roots[0];
        // Each class under the root that has its source.
        let mut s = String::new();
        for r in &roots {
            let mut part = Model {
                classes: model
                    .classes
                    .iter()
                    .filter(|(_, c)| r.join(&c.source).is_file())
                    .map(|(k, c)| (k.clone(), c.clone()))
                    .collect(),
                sheets: model.sheets.clone(),
            };
            model.classes.retain(|k, _| !part.classes.contains_key(k));
            if !part.classes.is_empty() {
                s.push_str(&render::coverage::lcov(&part, r));
            }
            part.sheets.clear();
        }
        let _ = root;
        s
    } else {
        render::coverage::jacoco(&model)
    };
    emit(Some(&a.output), out.as_bytes())
}
