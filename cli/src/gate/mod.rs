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
/// each trace's first test class (its outside key, for the second pass).
pub fn observe(traces: &[PathBuf]) -> Result<(Vec<Observation>, Vec<Option<String>>), String> {
    let mut out = Vec::new();
    let mut firsts = Vec::new();
    for t in traces {
        let mut a = CountsAnalysis::default();
        let s = pass::run(t, Filter::default(), &mut a)?;
        firsts.push(a.first_class());
        out.extend(a.into_observations(&s.model.syms, &s.file));
    }
    Ok((out, firsts))
}
