//! Where a rise came from: a second pass over a failing run's traces that collects, for
//! each risen count, the call paths (within its test, merged) that reach it. Items are
//! named and filtered as [`crate::analysis::counts`] counts them.

use super::judge::Judgement;
use crate::analysis::counts::{
    alloc_name, exception_name, frameworks, method_name, monitor_name, outside_key, Metric,
};
use crate::model::idmap::FastMap;
use crate::model::testcase::Tests;
use crate::model::{Alloc, Analysis, BlockKind, Blocked, Call, Exception, Frame, Symbols, Tag};
use std::collections::{HashMap, HashSet};

/// Distinct paths kept over all risen counts of a run: past it, only paths already
/// kept are counted (a change that adds work to every test keeps the gate's memory
/// bounded; the paths shown are then the most frequent of those kept first).
const BUDGET: usize = 100_000;
/// Frames a path shows at most: the first two and the last ones.
const SHOWN: usize = 12;
/// Paths shown per risen count.
pub const PATHS: usize = 3;

/// (test key, metric, item).
type Want = (String, Metric, String);

/// Paths found per risen count, summed over traces.
pub type Found = HashMap<Want, HashMap<String, u64>>;

/// The second pass over one trace.
pub struct PathsAnalysis<'a> {
    wanted: &'a HashSet<Want>,
    tests_wanted: HashSet<&'a str>,
    outside: String,
    tests: Tests,
    keys: Vec<String>,
    names: FastMap<u32, String>,
    /// Distinct paths kept so far, this trace's and those before it.
    kept: usize,
    pub found: Found,
}

impl<'a> PathsAnalysis<'a> {
    /// `first_class`: the class of the trace's first test (its outside key); `found`:
    /// the paths of the traces read before.
    pub fn new(wanted: &'a HashSet<Want>, first_class: Option<&str>, found: Found) -> Self {
        PathsAnalysis {
            tests_wanted: wanted.iter().map(|w| w.0.as_str()).collect(),
            wanted,
            outside: outside_key(first_class),
            tests: Tests::default(),
            keys: Vec::new(),
            names: FastMap::default(),
            kept: found.values().map(HashMap::len).sum(),
            found,
        }
    }

    /// The test key an event belongs to, if it is wanted, with the test's index.
    fn test(&self, thread: u32, time: u64) -> Option<(String, Option<usize>)> {
        let i = self.tests.at(thread, time);
        let key = match i {
            Some(i) => &self.keys[i],
            None => &self.outside,
        };
        self.tests_wanted
            .contains(key.as_str())
            .then(|| (key.clone(), i))
    }

    fn name(&mut self, s: &Symbols, m: u32) -> &str {
        self.names.entry(m).or_insert_with(|| method_name(s, m))
    }

    fn path(&self, s: &Symbols, i: Option<usize>, stack: &[Frame], last: Option<&str>) -> String {
        let own = match i {
            Some(i) => self.tests.own_frames(i, stack),
            None => stack,
        };
        // The test framework's frames between the test's start and its method (JUnit's
        // interceptors) say nothing about where the work came from.
        let first = own
            .iter()
            .position(|f| !frameworks(s, f.method))
            .unwrap_or(own.len());
        let mut parts: Vec<&str> = own[first..]
            .iter()
            .map(|f| s.method(f.method).frame.as_str())
            .collect();
        if let Some(l) = last {
            parts.push(l);
        }
        if parts.len() > SHOWN {
            let tail = parts.split_off(parts.len() - (SHOWN - 2));
            parts.truncate(2);
            parts.push("…");
            parts.extend(tail);
        }
        parts.join(" > ")
    }

    fn add(&mut self, w: Want, path: String) {
        let paths = self.found.entry(w).or_default();
        if let Some(n) = paths.get_mut(&path) {
            *n += 1;
        } else if self.kept < BUDGET {
            paths.insert(path, 1);
            self.kept += 1;
        }
    }
}

impl Analysis for PathsAnalysis<'_> {
    fn exit(&mut self, s: &Symbols, t: u32, c: &Call, parents: &[Frame]) {
        if c.open {
            return;
        }
        let Some((key, i)) = self.test(t, c.start) else {
            return;
        };
        let name = self.name(s, c.method).to_string();
        let mut path = None;
        for m in [Metric::Calls, Metric::Lines] {
            let w = (key.clone(), m, name.clone());
            if self.wanted.contains(&w) {
                let p = path
                    .get_or_insert_with(|| {
                        self.path(s, i, parents, Some(&s.method(c.method).frame))
                    })
                    .clone();
                self.add(w, p);
            }
        }
    }

    fn alloc(&mut self, s: &Symbols, t: u32, a: &Alloc, stack: &[Frame]) {
        if frameworks(s, a.site) {
            return;
        }
        let Some((key, i)) = self.test(t, a.time) else {
            return;
        };
        let w = (key, Metric::Alloc, alloc_name(s, a.class, a.is_array));
        if self.wanted.contains(&w) {
            let p = self.path(s, i, stack, Some(&format!("new {}", w.2)));
            self.add(w, p);
        }
    }

    fn exception(&mut self, s: &Symbols, e: &Exception) {
        if frameworks(s, e.thrown_in) {
            return;
        }
        let Some((key, _)) = self.test(e.thread, e.time) else {
            return;
        };
        let w = (
            key,
            Metric::Exceptions,
            exception_name(s, e.class, e.thrown_in),
        );
        if self.wanted.contains(&w) {
            let caught = match e.caught_in {
                Some(m) => s.method(m).frame.clone(),
                None => "(not caught in traced code)".to_string(),
            };
            let p = format!(
                "thrown in {} > caught in {caught}",
                s.site(Some(e.thrown_in), e.thrown_line)
            );
            self.add(w, p);
        }
    }

    fn blocked(&mut self, s: &Symbols, b: &Blocked) {
        let Some(site) = b.site else { return };
        if b.kind != BlockKind::Contended || b.open || frameworks(s, site) {
            return;
        }
        let Some((key, _)) = self.test(b.thread, b.start) else {
            return;
        };
        let w = (key, Metric::Monitors, monitor_name(s, b.class, site));
        if self.wanted.contains(&w) {
            let p = format!("blocked in {}", s.method(site).frame);
            self.add(w, p);
        }
    }

    fn tag(&mut self, _s: &Symbols, t: u32, tag: &Tag, _stack: &[Frame]) {
        if let Some(i) = self.tests.tag(t, tag) {
            self.keys.push(self.tests.cases[i].key());
        }
    }
}

/// What the second pass must look for: every risen count of every failing test.
pub fn wanted(j: &Judgement) -> HashSet<Want> {
    j.tests
        .iter()
        .flat_map(|v| {
            v.rises
                .iter()
                .map(|r| (v.key.clone(), r.metric, r.item.clone()))
        })
        .collect()
}

/// Puts the most frequent paths found into the judgement's rises.
pub fn attach(j: &mut Judgement, found: &Found) {
    for v in &mut j.tests {
        for r in &mut v.rises {
            if let Some(paths) = found.get(&(v.key.clone(), r.metric, r.item.clone())) {
                let mut p: Vec<(String, u64)> =
                    paths.iter().map(|(k, &n)| (k.clone(), n)).collect();
                p.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
                p.truncate(PATHS);
                r.paths = p;
            }
        }
    }
}
