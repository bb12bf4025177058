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

use crate::analysis::testcases::is_framework;
use crate::model::idmap::FastMap;
use crate::model::testcase::{TestCase, Tests};
use crate::model::NONE;
use crate::model::{Alloc, Analysis, BlockKind, Blocked, Call, Exception, Frame, Symbols, Tag};
use std::collections::BTreeMap;

/// The kinds of count a baseline keeps, in the file's order.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
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

impl std::fmt::Display for Metric {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
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
    /// The test (None outside tests): its names, for `--only`.
    pub case: Option<TestCase>,
    pub trace: String,
    pub duration: Option<u64>,
    /// Per metric: item (method, class) to count.
    pub counts: BTreeMap<Metric, BTreeMap<String, u64>>,
    /// Per method: caller to calls.
    pub callers: BTreeMap<String, BTreeMap<String, u64>>,
}

impl Observation {
    /// An observation of test `key` with only these calls (unit tests of the gate).
    #[cfg(test)]
    pub fn with_calls(key: &str, calls: &[(&str, u64)]) -> Observation {
        let mut o = Observation {
            key: key.into(),
            label: key.into(),
            ..Default::default()
        };
        o.counts.insert(
            Metric::Calls,
            calls.iter().map(|(k, n)| (k.to_string(), *n)).collect(),
        );
        o
    }
}

/// The key of what ran outside tests in a trace whose first test is of `first_class`
/// (one test JVM per first class: the same JVM across runs).
pub fn outside_key(first_class: Option<&str>) -> String {
    match first_class {
        Some(c) if !c.is_empty() => format!("(outside tests) {c}"),
        _ => "(outside tests)".to_string(),
    }
}

/// Classes the JVM or a library names with a counter or a random suffix, which differs
/// between runs: the suffix right after each marker is dropped.
const GENERATED: [&str; 9] = [
    "$Proxy",
    "GeneratedMethodAccessor",
    "GeneratedConstructorAccessor",
    "GeneratedSerializationConstructorAccessor",
    "$MockitoMock$",
    "$ByteBuddy$",
    "$$EnhancerByCGLIB$$",
    "$$FastClassByCGLIB$$",
    "$HibernateProxy$",
];

/// A name that is the same in every run: a hidden class's address, a lambda's counter
/// (`Calc$$Lambda$14/0x0000000800c03000` → `Calc$$Lambda`) and the suffixes of
/// [`GENERATED`] classes (`$Proxy12` → `$Proxy`) are the JVM's or a library's choice,
/// not the program's.
pub fn stable_name(name: &str) -> String {
    // `$$Lambda$14` (JDK 17; JDK 21+ has no counter).
    let mut s = drop_after(name, "$$Lambda", |r| {
        r.strip_prefix('$')
            .map(|d| d.bytes().take_while(u8::is_ascii_digit).count())
            .filter(|&n| n > 0)
            .map_or(0, |n| n + 1)
    });
    // `/0x<hex>`: a hidden class's address.
    while let Some(i) = s.find("/0x") {
        let hex = s[i + 3..].bytes().take_while(u8::is_ascii_hexdigit).count();
        s.replace_range(i..i + 3 + hex, "");
    }
    for m in GENERATED {
        s = drop_after(&s, m, |r| {
            r.bytes().take_while(u8::is_ascii_alphanumeric).count()
        });
    }
    s
}

/// `name` without the `len(rest)` bytes after each `marker`.
fn drop_after(name: &str, marker: &str, len: impl Fn(&str) -> usize) -> String {
    let mut out = String::with_capacity(name.len());
    let mut rest = name;
    while let Some(i) = rest.find(marker) {
        out.push_str(&rest[..i + marker.len()]);
        rest = &rest[i + marker.len()..];
        let n = len(rest).min(rest.len());
        rest = &rest[n..];
    }
    out.push_str(rest);
    out
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
        m != NONE && *self.framework.entry(m).or_insert_with(|| frameworks(s, m))
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
                case: Some(c.clone()),
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

/// A method as the baseline names it (`-` for none: the test engine).
pub fn method_name(s: &Symbols, m: u32) -> String {
    if m == NONE {
        return ENGINE.to_string();
    }
    stable_name(&s.method(m).key)
}

/// An allocated class as the baseline names it (`int[][]`, as every view spells it).
pub fn alloc_name(s: &Symbols, class: u32, is_array: u8) -> String {
    stable_name(&s.alloc_class(class, is_array))
}

/// An exception's item: its class when the trace names it (`alloc=exact`), else the
/// method that threw it.
pub fn exception_name(s: &Symbols, class: Option<u32>, thrown_in: u32) -> String {
    match class {
        Some(c) => alloc_name(s, c, 0),
        None => format!("thrown in {}", method_name(s, thrown_in)),
    }
}

/// A contended monitor's item: its class when known, else the method that blocked.
pub fn monitor_name(s: &Symbols, class: Option<u32>, site: u32) -> String {
    match class {
        Some(c) => alloc_name(s, c, 0),
        None => format!("in {}", method_name(s, site)),
    }
}

/// Whether method `m` is the test framework's (NONE: not): its work is not counted.
pub fn frameworks(s: &Symbols, m: u32) -> bool {
    m != NONE && is_framework(&s.method(m).key)
}

fn name_into(o: &mut Observation, t: &Tally, s: &Symbols) {
    let mut put = |m: Metric, k: String, n: u64| {
        *o.counts.entry(m).or_default().entry(k).or_default() += n;
    };
    for (&m, &n) in &t.calls {
        put(Metric::Calls, method_name(s, m), n);
    }
    for (&(c, arr), &n) in &t.alloc {
        put(Metric::Alloc, alloc_name(s, c, arr), n);
    }
    // Keyed (index, by_class): a class index when the trace named the class, else the
    // method's.
    for (&(ix, by_class), &n) in &t.exceptions {
        put(
            Metric::Exceptions,
            exception_name(s, by_class.then_some(ix), ix),
            n,
        );
    }
    for (&(ix, by_class), &n) in &t.monitors {
        put(
            Metric::Monitors,
            monitor_name(s, by_class.then_some(ix), ix),
            n,
        );
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
        // A call still open when the trace ended (a daemon thread inside a method at
        // exit) is there or not by timing: not counted.
        if c.open || self.framework(s, c.method) {
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
        if b.kind != BlockKind::Contended || b.open || self.framework(s, site) {
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
        assert_eq!(
            stable_name("com.sun.proxy.$Proxy12.run()V"),
            "com.sun.proxy.$Proxy.run()V"
        );
        assert_eq!(
            stable_name("jdk.internal.reflect.GeneratedMethodAccessor17.invoke"),
            "jdk.internal.reflect.GeneratedMethodAccessor.invoke"
        );
        assert_eq!(
            stable_name("a.Repo$MockitoMock$1234567.find(I)V"),
            "a.Repo$MockitoMock$.find(I)V"
        );
    }

    #[test]
    fn metrics_round_trip_by_name() {
        for m in Metric::ALL {
            assert_eq!(Metric::parse(m.name()), Some(m));
        }
        assert_eq!(Metric::parse("time"), None);
    }
}
