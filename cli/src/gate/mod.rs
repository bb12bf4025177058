//! The performance gate: exact counts per test learnt into a committed baseline
//! ([`baseline`]), a run judged against it ([`judge`]), and the call paths that added
//! the work ([`paths`]).

pub mod baseline;
pub mod judge;
pub mod paths;

use crate::analysis::counts::{CountsAnalysis, Metric, Observation};
use crate::model::filter::Filter;
use crate::pass;
use std::path::PathBuf;

/// One trace of a run.
pub struct TraceRun {
    /// The class of its first test (its outside key, for the second pass); `None` when
    /// it marks no tests.
    pub first: Option<String>,
    /// Judged (a trace that marks no tests beside traces that do is left out).
    pub kept: bool,
    /// The metrics its agent options made exact (calls, exceptions and monitors unless
    /// turned off; allocations with `alloc=exact`, lines with `lines=on`).
    pub recorded: Vec<Metric>,
}

/// One run's traces as the gate sees them.
pub struct Run {
    /// Every test of every trace kept, and what ran outside tests.
    pub observations: Vec<Observation>,
    /// Per trace given, in order.
    pub traces: Vec<TraceRun>,
}

/// The metrics an agent option string (`out=t.jtr,alloc=exact,lines=on`) records exactly.
pub fn recorded(agent_options: &str) -> Vec<Metric> {
    let opt = |key: &str| {
        agent_options
            .split(',')
            .filter_map(|o| o.split_once('='))
            .filter(|(k, _)| k.trim() == key)
            .map(|(_, v)| v.trim())
            .next_back()
    };
    Metric::ALL
        .into_iter()
        .filter(|m| match m {
            Metric::Calls => true,
            Metric::Alloc => opt("alloc") == Some("exact"),
            Metric::Exceptions => opt("exceptions") != Some("off"),
            Metric::Monitors => opt("monitors") != Some("off"),
            Metric::Lines => opt("lines") == Some("on"),
        })
        .collect()
}

/// Reads a run's traces. A trace that marks no tests (the build tool's own JVM beside the
/// test JVMs) is left out, said on stderr, unless no trace marks tests: then each is a
/// program's whole run. A trace cut short or with dropped records is refused: its
/// counts would be low, and a rise would pass unseen.
pub fn observe(traces: &[PathBuf]) -> Result<Run, String> {
    let mut per_trace = Vec::new();
    for t in traces {
        let mut a = CountsAnalysis::default();
        let s = pass::run(&crate::read::Trace::open(t)?, Filter::default(), &mut a)?;
        if !s.outcome.complete {
            return Err(format!(
                "{}: the trace is cut short (the JVM was killed or the disk filled): its \
                 counts would be low; the gate needs whole traces",
                s.file
            ));
        }
        let facts = &s.model.syms.trace;
        if let Some(n) = facts.end_count("droppedRecordBytes").filter(|&n| n > 0) {
            return Err(format!(
                "{}: {n} bytes of records were dropped while recording: its counts would be \
                 low; the gate needs whole traces",
                s.file
            ));
        }
        let rec = recorded(facts.agent_options.as_deref().unwrap_or(""));
        let first = a.first_class();
        per_trace.push((
            first,
            rec,
            a.into_observations(&s.model.syms, &s.file),
            s.file,
        ));
    }
    let any_tests = per_trace.iter().any(|(f, _, _, _)| f.is_some());
    let mut run = Run {
        observations: Vec::new(),
        traces: Vec::new(),
    };
    for (first, recorded, mut obs, file) in per_trace {
        let kept = !any_tests || first.is_some();
        if kept {
            for o in &mut obs {
                o.counts.retain(|m, _| recorded.contains(m));
            }
            run.observations.extend(obs);
        } else {
            eprintln!(
                "jtrace: {file} marks no tests (a build tool's own JVM): left out of the gate"
            );
        }
        run.traces.push(TraceRun {
            first,
            kept,
            recorded,
        });
    }
    Ok(run)
}

impl Run {
    /// How many traces were kept.
    pub fn kept(&self) -> usize {
        self.traces.iter().filter(|t| t.kept).count()
    }

    /// The metrics every kept trace recorded exactly.
    pub fn recorded(&self) -> Vec<Metric> {
        Metric::ALL
            .into_iter()
            .filter(|m| {
                self.traces
                    .iter()
                    .filter(|t| t.kept)
                    .all(|t| t.recorded.contains(m))
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_the_agent_options_record() {
        assert_eq!(
            recorded("out=t.jtr"),
            vec![Metric::Calls, Metric::Exceptions, Metric::Monitors]
        );
        assert_eq!(
            recorded("out=t.jtr,include=a.*;b.*,alloc=exact,lines=on,monitors=off"),
            vec![
                Metric::Calls,
                Metric::Alloc,
                Metric::Exceptions,
                Metric::Lines
            ]
        );
        assert!(!recorded("alloc=sampled:512k").contains(&Metric::Alloc));
    }
}
