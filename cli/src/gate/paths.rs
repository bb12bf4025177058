//! Where a rise came from: a second pass over a failing run's traces that collects, for
//! each risen count, the call paths (within its test, merged) that reach it.

use super::judge::Judgement;
use crate::analysis::counts::{outside_key, stable_name, Metric};
use crate::analysis::tests::is_framework;
use crate::model::idmap::FastMap;
use crate::model::testcase::Tests;
use crate::model::{
    Alloc, Analysis, BlockKind, Blocked, Call, Exception, Frame, Symbols, Tag, NONE,
};
use std::collections::{HashMap, HashSet};

/// Distinct paths kept per risen count (the rest are counted in the most frequent ones'
/// total only).
const KEPT: usize = 10_000;
/// Frames a path shows at most: the first two and the last ones.
const SHOWN: usize = 12;
/// Paths shown per risen count.
pub const PATHS: usize = 3;

/// (test key, metric, item).
type Want = (String, Metric, String);

/// The second pass over one trace.
pub struct PathsAnalysis<'a> {
    wanted: &'a HashSet<Want>,
    tests_wanted: HashSet<&'a str>,
    outside: String,
    tests: Tests,
    keys: Vec<String>,
    names: FastMap<u32, String>,
    pub found: Found,
}

impl<'a> PathsAnalysis<'a> {
    /// `first_class`: the class of the trace's first test (its outside key).
    pub fn new(wanted: &'a HashSet<Want>, first_class: Option<&str>) -> Self {
        PathsAnalysis {
            tests_wanted: wanted.iter().map(|w| w.0.as_str()).collect(),
            wanted,
            outside: outside_key(first_class),
            tests: Tests::default(),
            keys: Vec::new(),
            names: FastMap::default(),
            found: HashMap::new(),
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
        self.names
            .entry(m)
            .or_insert_with(|| stable_name(&s.method(m).key))
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
            .position(|f| !is_framework(&s.method(f.method).key))
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
        if paths.len() < KEPT || paths.contains_key(&path) {
            *paths.entry(path).or_default() += 1;
        }
    }
}

impl Analysis for PathsAnalysis<'_> {
    fn exit(&mut self, s: &Symbols, t: u32, c: &Call, parents: &[Frame]) {
        let Some((key, i)) = self.test(t, c.start) else {
            return;
        };
        let name = self.name(s, c.method).to_string();
        for m in [Metric::Calls, Metric::Lines] {
            let w = (key.clone(), m, name.clone());
            if self.wanted.contains(&w) {
                let p = self.path(s, i, parents, Some(&s.method(c.method).frame));
                self.add(w, p);
            }
        }
    }

    fn alloc(&mut self, s: &Symbols, t: u32, a: &Alloc, stack: &[Frame]) {
        let Some((key, i)) = self.test(t, a.time) else {
            return;
        };
        let mut class = stable_name(if a.class == NONE {
            "?"
        } else {
            s.class_name(a.class)
        });
        if a.is_array != 0 && !class.ends_with(']') {
            class.push_str("[]");
        }
        let w = (key, Metric::Alloc, class);
        if self.wanted.contains(&w) {
            let p = self.path(s, i, stack, Some(&format!("new {}", w.2)));
            self.add(w, p);
        }
    }

    fn exception(&mut self, s: &Symbols, e: &Exception) {
        let Some((key, _)) = self.test(e.thread, e.time) else {
            return;
        };
        let item = match e.class {
            Some(c) => stable_name(s.class_name(c)),
            None => format!("thrown in {}", self.name(s, e.thrown_in)),
        };
        let w = (key, Metric::Exceptions, item);
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
        if b.kind != BlockKind::Contended {
            return;
        }
        let Some((key, _)) = self.test(b.thread, b.start) else {
            return;
        };
        let Some(site) = b.site else { return };
        let item = match b.class {
            Some(c) => stable_name(s.class_name(c)),
            None => format!("in {}", self.name(s, site)),
        };
        let w = (key, Metric::Monitors, item);
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
                .filter_map(|r| Metric::parse(r.metric).map(|m| (v.key.clone(), m, r.item.clone())))
        })
        .collect()
}

/// Paths found per risen count, summed over traces.
pub type Found = HashMap<Want, HashMap<String, u64>>;

/// Adds one trace's paths to those of the traces before it.
pub fn merge(into: &mut Found, from: Found) {
    for (w, paths) in from {
        let to = into.entry(w).or_default();
        for (p, n) in paths {
            *to.entry(p).or_default() += n;
        }
    }
}

/// Puts the most frequent paths found into the judgement's rises.
pub fn attach(j: &mut Judgement, found: &Found) {
    for v in &mut j.tests {
        for r in &mut v.rises {
            let Some(m) = Metric::parse(r.metric) else {
                continue;
            };
            if let Some(paths) = found.get(&(v.key.clone(), m, r.item.clone())) {
                let mut p: Vec<(String, u64)> =
                    paths.iter().map(|(k, &n)| (k.clone(), n)).collect();
                p.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
                p.truncate(PATHS);
                r.paths = p;
            }
        }
    }
}
