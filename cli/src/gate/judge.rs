//! The gate's judgement: each test's counts now against its baseline, within the limit of
//! each metric (`--max-rise calls=0%,alloc=5%`); a count above its baseline's highest
//! value plus the limit is a rise, and a test with a rise fails.

use super::baseline::{Baseline, Count, TestBase};
use crate::analysis::counts::{Metric, Observation};
use crate::model::testcase::TestCase;
use std::collections::BTreeMap;

/// The allowed rise per metric, in hundredths of a percent of the baseline's highest
/// count (integers, so that a count exactly at its limit passes); `None`: the metric is
/// not judged.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Limits([Option<u64>; 5]);

impl Default for Limits {
    /// Exact counts, no rise allowed; monitor contentions are not judged (they depend on
    /// how the threads were scheduled, which no run repeats).
    fn default() -> Limits {
        let mut l = Limits([Some(0); 5]);
        l.0[Metric::Monitors as usize] = None;
        l
    }
}

impl Limits {
    /// The allowed rise in percent (None: not judged).
    pub fn get(&self, m: Metric) -> Option<f64> {
        self.0[m as usize].map(|bp| bp as f64 / 100.0)
    }

    /// Leaves metric `m` unjudged.
    pub fn skip(&mut self, m: Metric) {
        self.0[m as usize] = None;
    }

    /// `calls=0%,alloc=5%,monitors=off`: metrics not named keep their default.
    pub fn parse(s: &str) -> Result<Limits, String> {
        let names = Metric::ALL.map(Metric::name).join(", ");
        let mut l = Limits::default();
        for item in s.split(',').map(str::trim).filter(|i| !i.is_empty()) {
            let (k, v) = item.split_once('=').ok_or_else(|| {
                format!(
                    "--max-rise {item}: METRIC=PERCENT% or METRIC=off expected (e.g. \
                     calls=0%,alloc=5%)"
                )
            })?;
            let m = Metric::parse(k.trim())
                .ok_or_else(|| format!("--max-rise: unknown metric {k:?}; the metrics: {names}"))?;
            let v = v.trim();
            l.0[m as usize] = if v == "off" {
                None
            } else {
                let p: f64 = v
                    .strip_suffix('%')
                    .unwrap_or(v)
                    .parse()
                    .ok()
                    .filter(|p: &f64| p.is_finite() && (0.0..=1e9).contains(p))
                    .ok_or_else(|| {
                        format!(
                            "--max-rise {item}: {v:?} is not a percentage (0%, 5%, 12.5%) or off"
                        )
                    })?;
                Some((p * 100.0).round() as u64)
            };
        }
        Ok(l)
    }

    /// The highest count that passes, for a baseline count (None: not judged).
    pub fn limit(&self, m: Metric, base: Count) -> Option<u64> {
        let bp = self.0[m as usize]?;
        let extra = u128::from(base.max) * u128::from(bp) / 10_000;
        Some(
            base.max
                .saturating_add(u64::try_from(extra).unwrap_or(u64::MAX)),
        )
    }
}

/// One count above its limit.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Rise {
    pub metric: Metric,
    /// The method or class.
    pub item: String,
    /// The baseline's count (absent from the baseline: 0).
    pub before: Count,
    pub now: u64,
    pub limit: u64,
    /// Callers whose calls of the method rose (calls only): (caller, before, now).
    pub callers: Vec<(String, Count, u64)>,
    /// The call paths, in this run, that reach the item, most frequent first: (path, count).
    pub paths: Vec<(String, u64)>,
}

/// One gated test.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Verdict {
    pub key: String,
    pub label: String,
    pub class: String,
    pub trace: String,
    pub rises: Vec<Rise>,
    /// Counts now below their baseline (the baseline can be brought down with --update).
    pub lower: usize,
    /// Its duration before and now (information only).
    pub time_before: Option<Count>,
    pub time_now: Option<u64>,
}

impl Verdict {
    pub fn failed(&self) -> bool {
        !self.rises.is_empty()
    }
}

/// The whole judgement.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct Judgement {
    pub tests: Vec<Verdict>,
    /// Tests in this run the baseline does not have (labels).
    pub new_tests: Vec<String>,
    /// Tests of the baseline this run did not have (labels).
    pub missing_tests: Vec<String>,
    /// New and missing tests fail the gate (`--fail-on-new`, `--fail-on-missing`).
    pub new_fail: bool,
    pub missing_fail: bool,
}

impl Judgement {
    pub fn failed(&self) -> bool {
        self.tests.iter().any(Verdict::failed)
            || (self.new_fail && !self.new_tests.is_empty())
            || (self.missing_fail && !self.missing_tests.is_empty())
    }

    pub fn failed_tests(&self) -> usize {
        self.tests.iter().filter(|v| v.failed()).count()
    }
}

fn judge_test(base: &TestBase, now: &Observation, limits: &Limits) -> Verdict {
    let empty = BTreeMap::new();
    let mut rises = Vec::new();
    let mut lower = 0;
    for m in Metric::ALL {
        let before = base.counts(m);
        let current = now.counts.get(&m).unwrap_or(&empty);
        for (item, &n) in current {
            let b = before.get(item).copied().unwrap_or(Count::exact(0));
            let Some(limit) = limits.limit(m, b) else {
                continue;
            };
            if n > limit {
                let callers = if m == Metric::Calls {
                    callers_that_rose(base.callers.get(item), now.callers.get(item))
                } else {
                    Vec::new()
                };
                rises.push(Rise {
                    metric: m,
                    item: item.clone(),
                    before: b,
                    now: n,
                    limit,
                    callers,
                    paths: Vec::new(),
                });
            }
        }
        if limits.get(m).is_none() {
            continue;
        }
        lower += before
            .iter()
            .filter(|(item, b)| current.get(*item).copied().unwrap_or(0) < b.min)
            .count();
    }
    // Calls first (what a reviewer reads first: lines and allocations usually rise with
    // them), then the largest rise.
    rises.sort_by_key(|r| (r.metric, std::cmp::Reverse(r.now - r.before.max)));
    Verdict {
        key: now.key.clone(),
        label: now.label.clone(),
        class: now.case.as_ref().map_or(String::new(), |c| c.class.clone()),
        trace: now.trace.clone(),
        rises,
        lower,
        time_before: base.time_ns,
        time_now: now.duration,
    }
}

fn callers_that_rose(
    before: Option<&BTreeMap<String, Count>>,
    now: Option<&BTreeMap<String, u64>>,
) -> Vec<(String, Count, u64)> {
    let Some(now) = now else { return Vec::new() };
    let mut v: Vec<(String, Count, u64)> = now
        .iter()
        .filter_map(|(caller, &n)| {
            let b = before
                .and_then(|b| b.get(caller))
                .copied()
                .unwrap_or(Count::exact(0));
            (n > b.max).then(|| (caller.clone(), b, n))
        })
        .collect();
    v.sort_by_key(|(_, b, n)| std::cmp::Reverse(n - b.max));
    v
}

/// Chooses the tests gated by (unique id, label, the test when the run has it).
pub type Only<'a> = &'a dyn Fn(&str, &str, Option<&TestCase>) -> bool;

/// Every observation of this run against the baseline; `only` (when given) chooses the
/// tests gated.
pub fn judge(
    base: &Baseline,
    run: &[Observation],
    limits: &Limits,
    only: Option<Only>,
) -> Judgement {
    let chosen =
        |key: &str, label: &str, case: Option<&TestCase>| only.is_none_or(|f| f(key, label, case));
    let mut j = Judgement::default();
    let mut seen = std::collections::BTreeSet::new();
    for o in run
        .iter()
        .filter(|o| chosen(&o.key, &o.label, o.case.as_ref()))
    {
        seen.insert(o.key.as_str());
        match base.tests.get(&o.key) {
            Some(b) => j.tests.push(judge_test(b, o, limits)),
            None => {
                if !j.new_tests.contains(&o.label) {
                    j.new_tests.push(o.label.clone());
                }
            }
        }
    }
    for (k, t) in &base.tests {
        if !seen.contains(k.as_str()) && chosen(k, &t.label, None) {
            j.missing_tests.push(t.label.clone());
        }
    }
    j
}

#[cfg(test)]
mod tests {
    use super::*;

    fn obs(key: &str, calls: &[(&str, u64)]) -> Observation {
        Observation::with_calls(key, calls)
    }

    #[test]
    fn limits_parse_and_refuse() {
        let l = Limits::parse("calls=0%,alloc=5%, lines=12.5%").unwrap();
        assert_eq!(l.get(Metric::Alloc), Some(5.0));
        assert_eq!(l.get(Metric::Lines), Some(12.5));
        assert_eq!(l.get(Metric::Monitors), None);
        assert_eq!(l.limit(Metric::Alloc, Count::exact(100)), Some(105));
        assert_eq!(l.limit(Metric::Calls, Count { min: 3, max: 9 }), Some(9));
        assert_eq!(l.limit(Metric::Monitors, Count::exact(1)), None);
        // 0.57% of 10000 is 57 exactly (in floating point it floored to 56).
        let l = Limits::parse("calls=0.57%").unwrap();
        assert_eq!(l.limit(Metric::Calls, Count::exact(10_000)), Some(10_057));
        let l = Limits::parse("monitors=50%,calls=off").unwrap();
        assert_eq!(l.get(Metric::Monitors), Some(50.0));
        assert_eq!(l.get(Metric::Calls), None);
        let e = Limits::parse("time=5%").unwrap_err();
        assert!(
            e.contains("calls, alloc, exceptions, monitors, lines"),
            "{e}"
        );
        assert!(Limits::parse("calls=-1%").is_err());
        assert!(Limits::parse("calls").is_err());
    }

    #[test]
    fn a_rise_beyond_the_range_fails_within_it_passes() {
        let base = Baseline::learn(
            &[
                obs("t", &[("a", 10), ("b", 5)]),
                obs("t", &[("a", 10), ("b", 7)]),
                obs("u", &[("a", 1)]),
            ],
            2,
            &Metric::ALL,
        );
        let l = Limits::default();
        let j = judge(&base, &[obs("t", &[("a", 10), ("b", 7)])], &l, None);
        assert!(!j.failed());
        assert_eq!(j.missing_tests, vec!["u".to_string()]);
        let j = judge(
            &base,
            &[obs("t", &[("a", 11), ("b", 6), ("c", 1)])],
            &l,
            None,
        );
        assert!(j.failed());
        let r: Vec<(&str, u64)> = j.tests[0]
            .rises
            .iter()
            .map(|r| (r.item.as_str(), r.now))
            .collect();
        assert_eq!(r, vec![("a", 11), ("c", 1)]);
        // A new test is reported, not failed, unless asked.
        let j = judge(&base, &[obs("v", &[("a", 1)])], &l, None);
        assert!(!j.failed());
        assert_eq!(j.new_tests, vec!["v".to_string()]);
        let only = |k: &str, _: &str, _: Option<&TestCase>| k == "u";
        let j = judge(&base, &[obs("t", &[("a", 99)])], &l, Some(&only));
        assert!(j.tests.is_empty() && !j.failed());
    }
}
