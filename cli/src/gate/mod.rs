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

/// One run's traces as the gate sees them.
pub struct Run {
    /// Every test of every trace kept, and what ran outside tests.
    pub observations: Vec<Observation>,
    /// Per trace given, the class of its first test (its outside key, for the second
    /// pass); `None` for a trace that marks no tests.
    pub firsts: Vec<Option<String>>,
    /// Whether each trace given is kept.
    pub kept: Vec<bool>,
}

/// Reads a run's traces. A trace that marks no tests (the build tool's own JVM beside the
/// test JVMs) is left out, said on stderr, unless no trace marks tests: then each is a
/// program's whole run.
pub fn observe(traces: &[PathBuf]) -> Result<Run, String> {
    let mut per_trace = Vec::new();
    for t in traces {
        let mut a = CountsAnalysis::default();
        let s = pass::run(t, Filter::default(), &mut a)?;
        let first = a.first_class();
        per_trace.push((first, a.into_observations(&s.model.syms, &s.file), s.file));
    }
    let any_tests = per_trace.iter().any(|(f, _, _)| f.is_some());
    let mut run = Run {
        observations: Vec::new(),
        firsts: Vec::new(),
        kept: Vec::new(),
    };
    for (first, obs, file) in per_trace {
        let keep = !any_tests || first.is_some();
        if keep {
            run.observations.extend(obs);
        } else {
            eprintln!(
                "jtrace: {file} marks no tests (a build tool's own JVM): left out of the gate"
            );
        }
        run.firsts.push(first);
        run.kept.push(keep);
    }
    Ok(run)
}

impl Run {
    /// How many traces were kept.
    pub fn traces(&self) -> usize {
        self.kept.iter().filter(|&&k| k).count()
    }
}
