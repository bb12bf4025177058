//! The performance gate: exact counts per test learnt into a committed baseline
//! ([`baseline`]), a run judged against it ([`judge`]), and the call paths that added
//! the work ([`paths`]).

pub mod baseline;
pub mod judge;
pub mod paths;

use crate::analysis::counts::{CountsAnalysis, Observation};
use crate::model::filter::Filter;
use crate::pass;
use std::path::PathBuf;

/// One run's observations: every test of every trace, and what ran outside tests; with
/// each trace's first test class (its outside key, for the second pass; `None` for a
/// trace left out). A trace that marks no tests (the build tool's own JVM beside the test
/// JVMs) is left out, said on stderr, unless no trace marks tests: then each is a
/// program's whole run.
pub fn observe(traces: &[PathBuf]) -> Result<(Vec<Observation>, Vec<Option<String>>), String> {
    let mut per_trace = Vec::new();
    for t in traces {
        let mut a = CountsAnalysis::default();
        let s = pass::run(t, Filter::default(), &mut a)?;
        let first = a.first_class();
        per_trace.push((first, a.into_observations(&s.model.syms, &s.file), s.file));
    }
    let any_tests = per_trace.iter().any(|(f, _, _)| f.is_some());
    let mut out = Vec::new();
    let mut firsts = Vec::new();
    for (first, obs, file) in per_trace {
        if any_tests && first.is_none() {
            eprintln!(
                "jtrace: {file} marks no tests (a build tool's own JVM): left out of the gate"
            );
        } else {
            out.extend(obs);
        }
        firsts.push(first);
    }
    Ok((out, firsts))
}
