//! `jtrace tests TRACE...`: the tests the traces mark, each with its duration, calls,
//! exceptions and slowest calls (text, `--json`, `--markdown` for a CI step summary,
//! `--junit-xml` for a CI's test view); `--baseline` names what changed.

use super::common::{emit, json};
use crate::analysis::testcases::TestsAnalysis;
use crate::model::filter::Filter;
use crate::pass;
use crate::render;
use crate::render::testcases::{Change, Row};
use std::collections::BTreeMap;
use std::path::PathBuf;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Traces of test runs (one per JVM: jtrace record writes them)
    #[arg(required = true)]
    pub traces: Vec<PathBuf>,
    /// One JSON array, one object per test
    #[arg(long, conflicts_with_all = ["markdown", "junit_xml"])]
    pub json: bool,
    /// A GitHub step summary (Markdown, under GitHub's 1 MiB limit): slowest tests, tests
    /// whose calls changed against --baseline, new exceptions
    #[arg(long, conflicts_with = "junit_xml")]
    pub markdown: bool,
    /// JUnit XML with jtrace's figures as properties of each testcase
    #[arg(long)]
    pub junit_xml: bool,
    /// Traces of an earlier run to compare with (Markdown and text)
    #[arg(long, value_name = "TRACE", num_args = 1..)]
    pub baseline: Vec<PathBuf>,
    /// Rows of the slowest-tests table (--markdown)
    #[arg(long, value_name = "N", default_value_t = 30)]
    pub top: usize,
    #[command(flatten)]
    pub out: super::common::Out,
}

/// The tests of all `traces`, in order.
pub fn collect(traces: &[PathBuf]) -> Result<Vec<Row>, String> {
    let mut rows = Vec::new();
    for t in traces {
        let mut a = TestsAnalysis::default();
        let s = pass::run(&crate::read::Trace::open(t)?, Filter::default(), &mut a)?;
        rows.extend(a.into_rows(&s.file));
    }
    Ok(rows)
}

pub fn run(mut a: Args) -> Result<(), String> {
    use super::common::Form;
    let form = super::common::form(
        a.out.output.as_deref(),
        Form::Text,
        &[
            (Form::Json, a.json),
            (Form::Markdown, a.markdown),
            (Form::JunitXml, a.junit_xml),
        ],
    )?;
    (a.json, a.markdown, a.junit_xml) = (
        form == Form::Json,
        form == Form::Markdown,
        form == Form::JunitXml,
    );
    let rows = collect(&a.traces)?;
    if rows.is_empty() {
        return Err(format!(
            "{}: no tests marked in the trace(s); record the test run with jtrace record \
             (or put jtrace.jar on the test class path)",
            a.traces
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    let (changes, new_exc) = if a.baseline.is_empty() {
        (None, Vec::new())
    } else {
        let base = collect(&a.baseline)?;
        let before: BTreeMap<String, &Row> = base.iter().map(|r| (r.0.key(), r)).collect();
        let mut changes: Vec<Change> = Vec::new();
        let mut new_exc = Vec::new();
        for (c, st) in &rows {
            let Some((_, b)) = before.get(&c.key()) else {
                continue;
            };
            if b.calls != st.calls {
                changes.push((c.label(), b.calls, st.calls));
            }
            for e in &st.exception_sites {
                if !b.exception_sites.contains(e) {
                    new_exc.push((c.label(), e.clone()));
                }
            }
        }
        (Some(changes), new_exc)
    };
    let out = if a.json {
        let v: Vec<serde_json::Value> = rows
            .iter()
            .map(|(c, st)| {
                serde_json::json!({
                    "id": c.id, "name": c.name, "class": c.class, "method": c.method,
                    "outcome": c.outcome, "exception": c.exception, "trace": c.trace,
                    "duration_ns": c.duration(), "calls": st.calls, "exceptions": st.exceptions,
                    "slowest": st.slowest.iter().map(|(ns, k)| serde_json::json!({"method": k, "ns": ns})).collect::<Vec<_>>(),
                })
            })
            .collect();
        json(&v)?
    } else if a.markdown {
        render::testcases::markdown(
            &rows,
            changes.as_deref(),
            &new_exc,
            a.top,
            render::testcases::SUMMARY_LIMIT,
        )
        .into_bytes()
    } else if a.junit_xml {
        render::testcases::junit_xml(&rows).into_bytes()
    } else {
        let mut s = render::testcases::text(&rows);
        if let Some(ch) = &changes {
            s.push_str(&format!(
                "\n{} tests whose calls changed against the baseline\n",
                ch.len()
            ));
            for (l, b, after) in ch {
                s.push_str(&format!("  {l}: {b} -> {after} calls\n"));
            }
        }
        for (t, e) in &new_exc {
            s.push_str(&format!("  new exception in {t}: {e}\n"));
        }
        s.into_bytes()
    };
    emit(a.out.output.as_deref(), &out)
}
