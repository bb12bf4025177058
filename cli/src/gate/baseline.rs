//! The baseline file (`jtrace-baseline.json`): per test, the exact counts of one or more
//! runs, each an exact number or, where runs disagreed, the range they spanned; sorted
//! and one key per line, so that a diff of two baselines reads as a review.

use crate::analysis::counts::{Metric, Observation};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;

/// The format's version; a reader refuses any other.
pub const VERSION: u32 = 1;

/// A count: one number when every run agreed, else `[min, max]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(from = "CountText", into = "CountText")]
pub struct Count {
    pub min: u64,
    pub max: u64,
}

#[derive(Serialize, Deserialize)]
#[serde(untagged)]
enum CountText {
    Exact(u64),
    Range([u64; 2]),
}

impl From<CountText> for Count {
    fn from(c: CountText) -> Count {
        match c {
            CountText::Exact(n) => Count { min: n, max: n },
            CountText::Range([a, b]) => Count {
                min: a.min(b),
                max: a.max(b),
            },
        }
    }
}

impl From<Count> for CountText {
    fn from(c: Count) -> CountText {
        if c.min == c.max {
            CountText::Exact(c.min)
        } else {
            CountText::Range([c.min, c.max])
        }
    }
}

impl Count {
    pub fn exact(n: u64) -> Count {
        Count { min: n, max: n }
    }

    pub fn varies(&self) -> bool {
        self.min != self.max
    }
}

impl std::fmt::Display for Count {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.varies() {
            write!(f, "{}..{}", self.min, self.max)
        } else {
            write!(f, "{}", self.min)
        }
    }
}

type Counts = BTreeMap<String, Count>;

/// What one test (or the run outside tests) did, over every run the baseline learnt from.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TestBase {
    /// The test as `jtrace tests` names it.
    pub label: String,
    /// Runs of it the counts come from.
    pub runs: u32,
    /// Its duration in ns: information only, never judged.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_ns: Option<Count>,
    /// Calls per method (`Class.method(descriptor)`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub calls: Counts,
    /// Allocations per class.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub alloc: Counts,
    /// Exceptions per class (or per throwing method where the trace names no class).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub exceptions: Counts,
    /// Contended monitor entries per monitor class.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub monitors: Counts,
    /// Executed source lines per method (`lines=on` traces).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub lines: Counts,
    /// Per method, its calls per caller (`-`: the test engine).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub callers: BTreeMap<String, Counts>,
}

impl TestBase {
    pub fn counts(&self, m: Metric) -> &Counts {
        match m {
            Metric::Calls => &self.calls,
            Metric::Alloc => &self.alloc,
            Metric::Exceptions => &self.exceptions,
            Metric::Monitors => &self.monitors,
            Metric::Lines => &self.lines,
        }
    }

    fn counts_mut(&mut self, m: Metric) -> &mut Counts {
        match m {
            Metric::Calls => &mut self.calls,
            Metric::Alloc => &mut self.alloc,
            Metric::Exceptions => &mut self.exceptions,
            Metric::Monitors => &mut self.monitors,
            Metric::Lines => &mut self.lines,
        }
    }

    /// Counts that differed between the runs.
    fn varying(&self) -> usize {
        let n: usize = Metric::ALL
            .iter()
            .map(|&m| self.counts(m).values().filter(|c| c.varies()).count())
            .sum();
        n + self
            .callers
            .values()
            .flat_map(|c| c.values())
            .filter(|c| c.varies())
            .count()
    }
}

/// The file.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Baseline {
    /// The format's version ([`VERSION`]).
    pub jtrace_baseline: u32,
    /// The jtrace that wrote it.
    pub written_by: String,
    /// How many traces it was learnt from.
    pub traces: usize,
    /// How many of its counts are ranges (they differed between runs).
    pub varying: usize,
    /// The metrics its traces recorded exactly (the others are not in it and not judged).
    pub recorded: Vec<Metric>,
    /// Per test, by its unique id.
    pub tests: BTreeMap<String, TestBase>,
}

/// The span of `values` (None when there are none).
fn span(values: impl Iterator<Item = u64>) -> Option<Count> {
    values.fold(None, |c: Option<Count>, n| {
        Some(c.map_or(Count::exact(n), |c| Count {
            min: c.min.min(n),
            max: c.max.max(n),
        }))
    })
}

/// Per item, the span of its counts over `runs` (absent from a run: 0 in that run).
fn span_maps(runs: &[Option<&BTreeMap<String, u64>>]) -> Counts {
    let items: std::collections::BTreeSet<&String> =
        runs.iter().flatten().flat_map(|m| m.keys()).collect();
    items
        .into_iter()
        .filter_map(|k| {
            let counts = runs
                .iter()
                .map(|m| m.and_then(|m| m.get(k)).copied().unwrap_or(0));
            span(counts).map(|c| (k.clone(), c))
        })
        .collect()
}

impl Baseline {
    /// Learnt from every observation of every test (several runs of a test give ranges).
    pub fn learn(observations: &[Observation], traces: usize, recorded: &[Metric]) -> Baseline {
        let mut groups: BTreeMap<&str, Vec<&Observation>> = BTreeMap::new();
        for o in observations {
            groups.entry(&o.key).or_default().push(o);
        }
        let mut tests = BTreeMap::new();
        for (key, runs) in groups {
            let mut t = TestBase {
                label: runs[0].label.clone(),
                runs: runs.len() as u32,
                time_ns: span(runs.iter().filter_map(|o| o.duration)),
                ..TestBase::default()
            };
            for &m in recorded {
                let maps: Vec<_> = runs.iter().map(|o| o.counts.get(&m)).collect();
                *t.counts_mut(m) = span_maps(&maps);
            }
            let callees: std::collections::BTreeSet<&String> =
                runs.iter().flat_map(|o| o.callers.keys()).collect();
            for callee in callees {
                let maps: Vec<_> = runs.iter().map(|o| o.callers.get(callee)).collect();
                t.callers.insert(callee.clone(), span_maps(&maps));
            }
            tests.insert(key.to_string(), t);
        }
        let varying = tests.values().map(TestBase::varying).sum();
        Baseline {
            jtrace_baseline: VERSION,
            written_by: format!("jtrace {}", trace::VERSION),
            traces,
            varying,
            recorded: recorded.to_vec(),
            tests,
        }
    }

    /// `jtrace gate --update`: the tests `fresh` has replace the old ones, the others
    /// stay as they were. Returns the baseline and how many counts learnt as ranges
    /// from several runs are now one run's numbers.
    pub fn update(old: Option<Baseline>, fresh: Baseline) -> (Baseline, usize) {
        let Some(mut b) = old else {
            return (fresh, 0);
        };
        let mut narrowed = 0;
        for (k, t) in fresh.tests {
            if let Some(before) = b.tests.get(&k) {
                narrowed += before.varying().saturating_sub(t.varying());
            }
            b.tests.insert(k, t);
        }
        b.recorded = fresh.recorded;
        b.traces = fresh.traces;
        b.written_by = fresh.written_by;
        b.varying = b.tests.values().map(TestBase::varying).sum();
        (b, narrowed)
    }

    /// Reads and checks a baseline file.
    pub fn read(path: &Path) -> Result<Baseline, String> {
        let text =
            std::fs::read(path).map_err(|e| format!("{}: cannot read: {e}", path.display()))?;
        let b: Baseline = serde_json::from_slice(&text).map_err(|e| {
            format!(
                "{}: not a jtrace baseline ({e}); jtrace baseline TRACE... -o FILE writes one",
                path.display()
            )
        })?;
        if b.jtrace_baseline != VERSION {
            return Err(format!(
                "{}: baseline format {}; this jtrace reads format {VERSION} (write it again \
                 with jtrace baseline)",
                path.display(),
                b.jtrace_baseline
            ));
        }
        Ok(b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn obs(key: &str, calls: &[(&str, u64)]) -> Observation {
        Observation::with_calls(key, calls)
    }

    #[test]
    fn one_run_is_exact_several_give_ranges() {
        let b = Baseline::learn(&[obs("t", &[("a", 3), ("b", 5)])], 1, &Metric::ALL);
        assert_eq!(b.tests["t"].calls["a"], Count::exact(3));
        assert_eq!(b.varying, 0);
        let b = Baseline::learn(
            &[
                obs("t", &[("a", 3), ("b", 5)]),
                obs("t", &[("a", 3), ("b", 7), ("c", 1)]),
                obs("t", &[("a", 3), ("b", 6)]),
            ],
            3,
            &Metric::ALL,
        );
        let t = &b.tests["t"];
        assert_eq!(t.runs, 3);
        assert_eq!(t.calls["a"], Count::exact(3));
        assert_eq!(t.calls["b"], Count { min: 5, max: 7 });
        // Absent from two runs: 0 there.
        assert_eq!(t.calls["c"], Count { min: 0, max: 1 });
        assert_eq!(b.varying, 2);
    }

    #[test]
    fn the_file_round_trips_and_reads_as_a_review() {
        let b = Baseline::learn(
            &[
                obs("t", &[("a", 3), ("b", 5)]),
                obs("t", &[("a", 3), ("b", 7)]),
            ],
            2,
            &Metric::ALL,
        );
        let json = serde_json::to_string_pretty(&b).unwrap();
        assert!(json.contains("\"a\": 3"), "{json}");
        assert!(json.contains("\"b\": [\n"), "{json}");
        let back: Baseline = serde_json::from_str(&json).unwrap();
        assert_eq!(back.tests["t"].calls["b"], Count { min: 5, max: 7 });
        assert_eq!(back.recorded, Metric::ALL.to_vec());
    }

    #[test]
    fn update_replaces_the_tests_it_has_and_keeps_the_others() {
        let old = Baseline::learn(
            &[
                obs("t", &[("a", 3)]),
                obs("t", &[("a", 5)]),
                obs("u", &[("a", 1)]),
            ],
            2,
            &Metric::ALL,
        );
        let fresh = Baseline::learn(&[obs("t", &[("a", 9)])], 1, &Metric::ALL);
        let (b, narrowed) = Baseline::update(Some(old), fresh);
        assert_eq!(b.tests["t"].calls["a"], Count::exact(9));
        assert_eq!(b.tests["u"].calls["a"], Count::exact(1));
        assert_eq!(narrowed, 1);
        assert_eq!(b.varying, 0);
    }
}
