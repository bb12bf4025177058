//! Exact counts per test (and for what ran outside tests): calls per method with their
//! callers, allocations per class, exceptions per class, monitor contentions per
//! monitor class and executed lines per method; what `jtrace baseline` keeps and
//! `jtrace gate` judges ([`crate::gate`]).
//!
//! A test's events are attributed as [`crate::model::testcase`] says (its thread and
//! time); a caller is the frame below within the test's own frames (`-` for the test's
//! first frame, whose caller is the test engine). What the test framework itself does
//! (its methods' calls and lines, what its methods allocate, throw or block on) is not
//! counted: its threads (surefire's command reader, Gradle's workers) run on their own
//! schedule, and it is not the code under test.

use crate::analysis::tests::is_framework;
use crate::model::idmap::FastMap;
use crate::model::testcase::Tests;
use crate::model::NONE;
use crate::model::{Alloc, Analysis, BlockKind, Blocked, Call, Exception, Frame, Symbols, Tag};
use std::collections::BTreeMap;

/// The kinds of count a baseline keeps, in the file's order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Metric {
    Calls,
    Alloc,
    Exceptions,
    Monitors,
    Lines,
}

impl Metric {
    pub const ALL: [Metric; 5] = [
        Metric::Calls,
        Metric::Alloc,
        Metric::Exceptions,
        Metric::Monitors,
        Metric::Lines,
    ];

    /// The word the baseline file, `--max-rise` and every output use.
    pub fn name(self) -> &'static str {
        match self {
            Metric::Calls => "calls",
            Metric::Alloc => "alloc",
            Metric::Exceptions => "exceptions",
            Metric::Monitors => "monitors",
            Metric::Lines => "lines",
        }
    }

    pub fn parse(s: &str) -> Option<Metric> {
        Metric::ALL.into_iter().find(|m| m.name() == s)
    }
}

/// The caller named for a test's first frame (its caller is the test engine's).
pub const ENGINE: &str = "-";

/// What one test (or the run outside tests) did in one trace.
#[derive(Debug, Clone, Default)]
pub struct Observation {
    /// What identifies it across runs: the test's unique id, or [`outside_key`].
    pub key: String,
    pub label: String,
    /// The test's class ("" outside tests).
    pub class: String,
    pub trace: String,
    pub duration: Option<u64>,
    /// Per metric: item (method, class) to count.
    pub counts: BTreeMap<Metric, BTreeMap<String, u64>>,
    /// Per method: caller to calls.
    pub callers: BTreeMap<String, BTreeMap<String, u64>>,
}

/// The key of what ran outside tests in a trace whose first test is of `first_class`
/// (one test JVM per first class: the same JVM across runs).
pub fn outside_key(first_class: Option<&str>) -> String {
    match first_class {
        Some(c) if !c.is_empty() => format!("(outside tests) {c}"),
        _ => "(outside tests)".to_string(),
    }
}

/// A name that is the same in every run: a hidden class's address and a lambda's
/// counter (`Calc$$Lambda$14/0x0000000800c03000` → `Calc$$Lambda`) are the JVM's
/// choice, not the program's.
pub fn stable_name(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut rest = name;
    while let Some(i) = rest.find("$$Lambda") {
        out.push_str(&rest[..i + "$$Lambda".len()]);
        rest = &rest[i + "$$Lambda".len()..];
        // `$14`, then `/0x...`.
        if let Some(r) = rest.strip_prefix('$') {
            let digits = r.bytes().take_while(u8::is_ascii_digit).count();
            if digits > 0 {
                rest = &r[digits..];
            }
        }
    }
    out.push_str(rest);
    // Any remaining hidden-class suffix `/0x<hex>`.
    let mut s = String::with_capacity(out.len());
    let mut rest = out.as_str();
    while let Some(i) = rest.find("/0x") {
        s.push_str(&rest[..i]);
        let r = &rest[i + 3..];
        let hex = r.bytes().take_while(u8::is_ascii_hexdigit).count();
        rest = &r[hex..];
    }
    s.push_str(rest);
    s
}

/// Counts while reading, by symbol index; named at the end.
#[derive(Default)]
struct Tally {
    calls: FastMap<u32, u64>,
    callers: FastMap<(u32, u32), u64>,
    alloc: FastMap<(u32, u8), u64>,
    exceptions: FastMap<(u32, bool), u64>,
    monitors: FastMap<(u32, bool), u64>,
    lines: FastMap<u32, u64>,
}

/// The counts of every test of one trace, and of what ran outside them.
#[derive(Default)]
pub struct CountsAnalysis {
    tests: Tests,
    per_test: Vec<Tally>,
    outside: Tally,
    /// Per method index: the test framework's ([`is_framework`]).
    framework: FastMap<u32, bool>,
}

impl CountsAnalysis {
    /// Whether method `m` is the test framework's (NONE: not).
    fn framework(&mut self, s: &Symbols, m: u32) -> bool {
        m != NONE
            && *self
                .framework
                .entry(m)
                .or_insert_with(|| is_framework(&s.method(m).key))
    }

    /// The counts of the test an event on `thread` at `time` belongs to.
    fn tally(&mut self, thread: u32, time: u64) -> &mut Tally {
        let i = self.tests.at(thread, time);
        self.slot(i)
    }

    fn slot(&mut self, i: Option<usize>) -> &mut Tally {
        match i {
            Some(i) => &mut self.per_test[i],
            None => &mut self.outside,
        }
    }

    /// The class of the trace's first test.
    pub fn first_class(&self) -> Option<String> {
        self.tests.cases.first().map(|c| c.class.clone())
    }

    /// The observations of this trace (`trace`: its file), every test then the outside.
    pub fn into_observations(self, s: &Symbols, trace: &str) -> Vec<Observation> {
        let first_class = self.tests.cases.first().map(|c| c.class.as_str());
        let outside = Observation {
            key: outside_key(first_class),
            label: outside_key(first_class),
            trace: trace.to_string(),
            duration: None,
            ..Default::default()
        };
        let mut out: Vec<Observation> = self
            .tests
            .cases
            .iter()
            .map(|c| Observation {
                key: c.key(),
                label: c.label(),
                class: c.class.clone(),
                trace: trace.to_string(),
                duration: c.duration(),
                ..Default::default()
            })
            .chain(std::iter::once(outside))
            .collect();
        for (o, t) in out
            .iter_mut()
            .zip(self.per_test.iter().chain(std::iter::once(&self.outside)))
        {
            name_into(o, t, s);
        }
        out
    }
}

fn method_name(s: &Symbols, m: u32) -> String {
    if m == NONE {
        return ENGINE.to_string();
    }
    stable_name(&s.method(m).key)
}

fn class_name(s: &Symbols, c: u32, array: bool) -> String {
    let n = if c == NONE { "?" } else { s.class_name(c) };
    let mut n = stable_name(n);
    if array && !n.ends_with(']') {
        n.push_str("[]");
    }
    n
}

/// `class` when known (`by_class`), else `at` the method's name.
fn site_name(s: &Symbols, ix: u32, by_class: bool, prefix: &str) -> String {
    if by_class {
        class_name(s, ix, false)
    } else {
        format!("{prefix} {}", method_name(s, ix))
    }
}

fn name_into(o: &mut Observation, t: &Tally, s: &Symbols) {
    let mut put = |m: Metric, k: String, n: u64| {
        *o.counts.entry(m).or_default().entry(k).or_default() += n;
    };
    for (&m, &n) in &t.calls {
        put(Metric::Calls, method_name(s, m), n);
    }
    for (&(c, arr), &n) in &t.alloc {
        put(Metric::Alloc, class_name(s, c, arr != 0), n);
    }
    for (&(ix, by_class), &n) in &t.exceptions {
        put(
            Metric::Exceptions,
            site_name(s, ix, by_class, "thrown in"),
            n,
        );
    }
    for (&(ix, by_class), &n) in &t.monitors {
        put(Metric::Monitors, site_name(s, ix, by_class, "in"), n);
    }
    for (&m, &n) in &t.lines {
        put(Metric::Lines, method_name(s, m), n);
    }
    for (&(caller, callee), &n) in &t.callers {
        *o.callers
            .entry(method_name(s, callee))
            .or_default()
            .entry(method_name(s, caller))
            .or_default() += n;
    }
}

impl Analysis for CountsAnalysis {
    fn exit(&mut self, s: &Symbols, t: u32, c: &Call, parents: &[Frame]) {
        if self.framework(s, c.method) {
            return;
        }
        let i = self.tests.at(t, c.start);
        let own = match i {
            Some(i) => self.tests.own_frames(i, parents),
            None => parents,
        };
        let caller = own.last().map_or(NONE, |f| f.method);
        let tally = self.slot(i);
        *tally.calls.entry(c.method).or_default() += 1;
        *tally.callers.entry((caller, c.method)).or_default() += 1;
    }

    fn alloc(&mut self, s: &Symbols, t: u32, a: &Alloc, _stack: &[Frame]) {
        if self.framework(s, a.site) {
            return;
        }
        let tally = self.tally(t, a.time);
        *tally.alloc.entry((a.class, a.is_array)).or_default() += 1;
    }

    fn exception(&mut self, s: &Symbols, e: &Exception) {
        if self.framework(s, e.thrown_in) {
            return;
        }
        let tally = self.tally(e.thread, e.time);
        let k = match e.class {
            Some(c) => (c, true),
            None => (e.thrown_in, false),
        };
        *tally.exceptions.entry(k).or_default() += 1;
    }

    fn blocked(&mut self, s: &Symbols, b: &Blocked) {
        // A thread blocked with no traced frame (the JVM's reference handler) is not the
        // code under test.
        let Some(site) = b.site else { return };
        if b.kind != BlockKind::Contended || self.framework(s, site) {
            return;
        }
        let tally = self.tally(b.thread, b.start);
        let k = match b.class {
            Some(c) => (c, true),
            None => (site, false),
        };
        *tally.monitors.entry(k).or_default() += 1;
    }

    fn line(&mut self, s: &Symbols, t: u32, m: u32, _l: u32, time: u64, _st: &[Frame]) {
        if self.framework(s, m) {
            return;
        }
        let tally = self.tally(t, time);
        *tally.lines.entry(m).or_default() += 1;
    }

    fn tag(&mut self, _s: &Symbols, t: u32, tag: &Tag, _stack: &[Frame]) {
        if self.tests.tag(t, tag).is_some() {
            self.per_test.push(Tally::default());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_the_same_in_every_run() {
        assert_eq!(
            stable_name("example.Calc$$Lambda$14/0x0000000800c03000.apply(Ljava/lang/Object;)V"),
            "example.Calc$$Lambda.apply(Ljava/lang/Object;)V"
        );
        assert_eq!(
            stable_name("example.Calc$$Lambda/0x00007f3c1c00a000.run()V"),
            "example.Calc$$Lambda.run()V"
        );
        assert_eq!(stable_name("example.Calc.fib(I)I"), "example.Calc.fib(I)I");
        assert_eq!(stable_name("a$$Lambda$"), "a$$Lambda$");
    }

    #[test]
    fn metrics_round_trip_by_name() {
        for m in Metric::ALL {
            assert_eq!(Metric::parse(m.name()), Some(m));
        }
        assert_eq!(Metric::parse("time"), None);
    }
}
