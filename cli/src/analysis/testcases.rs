//! Per test: its calls, exceptions, slowest calls and per-method calls and self time,
//! from the test marks ([`crate::model::testcase`]).

use crate::model::testcase::{TestCase, Tests};
use crate::model::{Analysis, Call, Exception, Frame, Symbols, Tag};
use std::collections::BTreeMap;

/// Slowest calls kept per test.
pub const SLOWEST: usize = 3;

/// Packages of the test frameworks themselves: their frames enclose every test, so they
/// are left out of a test's slowest calls (not out of its calls), and out of the gate's
/// counts ([`super::counts`]: their background threads run on their own schedule).
const FRAMEWORK: [&str; 5] = [
    "org.junit.",
    "junit.",
    "org.apache.maven.surefire.",
    "org.gradle.",
    "org.apache.tools.ant.",
];

/// Whether a method or class (dotted name first) is the test framework's.
pub fn is_framework(name: &str) -> bool {
    FRAMEWORK.iter().any(|p| name.starts_with(p))
}

/// What one test did.
#[derive(Debug, Clone, Default)]
pub struct TestStats {
    /// Completed calls (and calls left open) attributed to the test.
    pub calls: u64,
    pub exceptions: u64,
    /// Exception classes thrown (named in alloc=exact traces), else the throwing methods.
    pub exception_sites: Vec<String>,
    /// (inclusive ns, method key), slowest first.
    pub slowest: Vec<(u64, String)>,
    /// Per method key: (calls, self ns).
    pub methods: BTreeMap<String, (u64, u64)>,
}

/// The tests of one trace with what each did.
#[derive(Default)]
pub struct TestsAnalysis {
    pub tests: Tests,
    pub stats: Vec<TestStats>,
}

impl TestsAnalysis {
    /// The tests with their figures.
    pub fn into_rows(self, trace: &str) -> Vec<(TestCase, TestStats)> {
        self.tests
            .cases
            .into_iter()
            .map(|mut c| {
                c.trace = trace.to_string();
                c
            })
            .zip(self.stats)
            .collect()
    }
}

impl Analysis for TestsAnalysis {
    fn exit(&mut self, s: &Symbols, t: u32, c: &Call, _parents: &[Frame]) {
        let Some(i) = self.tests.at(t, c.start) else {
            return;
        };
        let st = &mut self.stats[i];
        let key = &s.method(c.method).key;
        st.calls += 1;
        let m = st.methods.entry(key.clone()).or_default();
        m.0 += 1;
        m.1 += c.self_ns;
        let framework = is_framework(key);
        if !framework
            && (st.slowest.len() < SLOWEST || c.incl > st.slowest.last().map_or(0, |x| x.0))
        {
            st.slowest.push((c.incl, key.clone()));
            st.slowest.sort_by_key(|x| std::cmp::Reverse(x.0));
            st.slowest.truncate(SLOWEST);
        }
    }

    fn exception(&mut self, s: &Symbols, e: &Exception) {
        let Some(i) = self.tests.at(e.thread, e.time) else {
            return;
        };
        let st = &mut self.stats[i];
        st.exceptions += 1;
        let what = match e.class {
            Some(c) => s.class_name(c).to_string(),
            None => format!("thrown in {}", s.method(e.thrown_in).frame),
        };
        if !st.exception_sites.contains(&what) && st.exception_sites.len() < 5 {
            st.exception_sites.push(what);
        }
    }

    fn tag(&mut self, _s: &Symbols, t: u32, tag: &Tag, _stack: &[Frame]) {
        if self.tests.tag(t, tag).is_some() {
            self.stats.push(TestStats::default());
        }
    }
}
