//! `jtrace gate --baseline FILE TRACE...`: a run's exact counts per test against the
//! committed baseline; exit 1 when a count rose beyond its limit (naming the test, the
//! methods or classes and the call paths that added the work), 0 otherwise, 2 when the
//! gate could not judge (bad input).

use super::common::{emit, json, writable};
use crate::analysis::counts::Metric;
use crate::gate::baseline::Baseline;
use crate::gate::judge::{self, Limits};
use crate::gate::{self, paths};
use crate::model::filter::{Filter, Pattern};
use crate::model::testcase::TestCase;
use crate::{pass, render};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args, Debug)]
#[command(
    after_help = "Example: jtrace gate --baseline jtrace-baseline.json target/jtrace-*.jtr \
                        --markdown \"$GITHUB_STEP_SUMMARY\" --junit-xml target/jtrace-gate.xml\n\
                        Exit status: 0 passed, 1 a count rose beyond its limit, 2 an error."
)]
pub struct Args {
    /// Traces of the run to judge (jtrace record writes one per JVM)
    #[arg(required = true)]
    pub traces: Vec<PathBuf>,
    /// The baseline file (jtrace baseline writes it)
    #[arg(long, value_name = "FILE")]
    pub baseline: PathBuf,
    /// Allowed rise per metric over the baseline's highest count, or `off`: calls, alloc,
    /// exceptions, monitors, lines (`calls=0%,alloc=5%`; default 0% for all but monitors,
    /// which are not judged: contention depends on scheduling)
    #[arg(long, value_name = "LIMITS", value_parser = Limits::parse)]
    pub max_rise: Option<Limits>,
    /// Gate only the tests whose unique id or label matches PATTERN (`*` and `?`
    /// wildcards; without them, any containing PATTERN)
    #[arg(long, value_name = "PATTERN")]
    pub only: Option<String>,
    /// A test the baseline does not have fails the gate (default: reported)
    #[arg(long)]
    pub fail_on_new: bool,
    /// A test of the baseline absent from this run fails the gate (default: reported)
    #[arg(long)]
    pub fail_on_missing: bool,
    /// Rewrite the baseline from these traces (after reporting against the old one, if
    /// any); exits 0
    #[arg(long)]
    pub update: bool,
    /// The judgement as JSON on stdout instead of text
    #[arg(long)]
    pub json: bool,
    /// Also write a Markdown summary to FILE (a GitHub step summary, a PR comment)
    #[arg(long, value_name = "FILE", value_parser = super::common::out_file)]
    pub markdown: Option<PathBuf>,
    /// Also write JUnit XML to FILE: one test case per gated test, failing ones carrying what rose
    #[arg(long, value_name = "FILE", value_parser = super::common::out_file)]
    pub junit_xml: Option<PathBuf>,
}

pub fn run(a: Args) -> ExitCode {
    match judge_run(a) {
        Ok(failed) => {
            if failed {
                ExitCode::from(1)
            } else {
                ExitCode::SUCCESS
            }
        }
        Err(msg) => {
            eprintln!("jtrace: {msg}");
            ExitCode::from(2)
        }
    }
}

/// Judges; `Ok(true)` when the gate fails.
fn judge_run(a: Args) -> Result<bool, String> {
    let base = match Baseline::read(&a.baseline) {
        Ok(b) => Some(b),
        Err(_) if a.update && !a.baseline.exists() => None,
        Err(e) => return Err(e),
    };
    if a.update {
        writable(Some(&a.baseline))?;
    }
    let mut limits = a.max_rise.unwrap_or_default();
    let run = gate::observe(&a.traces)?;
    let recorded = run.recorded();
    if let Some(b) = &base {
        for m in Metric::ALL {
            let (before, now) = (b.recorded.contains(&m), recorded.contains(&m));
            if before != now && limits.get(m).is_some() {
                limits.skip(m);
                eprintln!(
                    "jtrace gate: {} not judged: {} recorded exactly, {} not (record both \
                     with the same agent options: alloc=exact, lines=on)",
                    m.name(),
                    if before {
                        "the baseline's traces"
                    } else {
                        "this run's traces"
                    },
                    if before {
                        "this run's"
                    } else {
                        "the baseline's"
                    }
                );
            }
        }
    }
    let only = a.only.as_deref().map(Pattern::new);
    let choose = |key: &str, label: &str, case: Option<&TestCase>| {
        only.as_ref().is_none_or(|p| match case {
            Some(c) => c.matches(p),
            None => key == p.text() || label == p.text() || p.matches(label),
        })
    };
    let mut seen = std::collections::HashSet::new();
    for o in &run.observations {
        if !seen.insert(o.key.as_str()) {
            eprintln!(
                "jtrace gate: {} is in more than one trace of this run; each is judged",
                o.label
            );
        }
    }
    let mut j = match &base {
        Some(b) => judge::judge(b, &run.observations, &limits, Some(&choose)),
        None => judge::Judgement::default(),
    };
    j.new_fail = a.fail_on_new;
    j.missing_fail = a.fail_on_missing;
    let nothing = j.tests.is_empty() && j.new_tests.is_empty() && j.missing_tests.is_empty();
    if nothing && base.is_some() {
        return Err(match &a.only {
            Some(p) => format!(
                "--only {p}: no test of the run or the baseline has that name (jtrace tests \
                 lists them; * and ? make a pattern)"
            ),
            None => "the traces hold nothing to judge".to_string(),
        });
    }
    // Where the rises came from: a second pass, only when something rose, only over the
    // traces of the tests that failed.
    let wanted = paths::wanted(&j);
    if !wanted.is_empty() {
        let failing: std::collections::HashSet<&str> = j
            .tests
            .iter()
            .filter(|v| v.failed())
            .map(|v| v.trace.as_str())
            .collect();
        let mut found = paths::Found::new();
        for (t, tr) in a.traces.iter().zip(&run.traces) {
            if !tr.kept || !failing.contains(t.to_string_lossy().as_ref()) {
                continue;
            }
            let mut p = paths::PathsAnalysis::new(&wanted, tr.first.as_deref(), found);
            pass::run_quiet(&crate::read::Trace::open(t)?, Filter::default(), &mut p)?;
            found = p.found;
        }
        paths::attach(&mut j, &found);
    }
    let name = a.baseline.display().to_string();
    if let Some(md) = &a.markdown {
        let m = render::gate::markdown(&j, &name, &limits, render::testcases::SUMMARY_LIMIT);
        emit(Some(md), m.as_bytes())?;
    }
    if let Some(x) = &a.junit_xml {
        emit(Some(x), render::gate::junit_xml(&j).as_bytes())?;
    }
    let out = if a.json {
        json(&serde_json::json!({
            "baseline": name,
            "passed": !j.failed(),
            "failed_tests": j.failed_tests(),
            "tests": j.tests,
            "new_tests": j.new_tests,
            "missing_tests": j.missing_tests,
        }))?
    } else {
        render::gate::text(&j, &name, &limits).into_bytes()
    };
    emit(None, &out)?;
    if a.update {
        let chosen: Vec<_> = run
            .observations
            .iter()
            .filter(|o| choose(&o.key, &o.label, o.case.as_ref()))
            .cloned()
            .collect();
        let fresh = Baseline::learn(&chosen, run.kept(), &recorded);
        let (b, narrowed) = Baseline::update(base, fresh);
        if narrowed > 0 {
            eprintln!(
                "jtrace gate: --update: {narrowed} counts learnt as ranges from several runs \
                 are now this run's numbers (jtrace baseline over several runs learns them \
                 again)"
            );
        }
        emit(Some(&a.baseline), &super::common::json(&b)?)?;
        return Ok(false);
    }
    Ok(j.failed())
}
