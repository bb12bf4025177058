//! Tests in a trace: the `test` tags the JUnit listener writes (start, end, skipped), and
//! which test an event belongs to; [`TestScope`] narrows any analysis to chosen tests.
//!
//! An event belongs to a test by its thread and time: on a thread that runs tests, to
//! the test open on that thread (calls that started before the test, such as the test
//! engine's own frames, are not the test's); on any other thread (threads the test
//! started, pools), to the one test whose start and end enclose the event's time, when
//! exactly one does (tests run one at a time: always; in parallel: only unambiguous
//! events are attributed).

use super::filter::Pattern;
use super::idmap::FastMap;
use super::{Alloc, Analysis, Blocked, Call, Exception, Frame, Symbols, Tag};

/// One test, from its tags.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct TestCase {
    /// The engine's unique id (`[engine:junit-jupiter]/[class:...]/[method:...]`).
    pub id: String,
    /// Display name (`adds()`, `[1] 2, 3`).
    pub name: String,
    pub class: String,
    pub method: String,
    /// `SUCCESSFUL`, `FAILED`, `ABORTED`, `SKIPPED`; "" while running (or the trace ended first).
    pub outcome: String,
    /// Class of the throwable that ended it, if any.
    pub exception: String,
    /// The trace file it came from.
    pub trace: String,
    /// ns since the epoch.
    #[serde(skip)]
    pub start: u64,
    #[serde(skip)]
    pub end: Option<u64>,
}

impl TestCase {
    /// Whether `--test ID` selects it: without `*` or `?`, ID is one of its names
    /// exactly (unique id, display name, method name, `Class.method`,
    /// `SimpleClass.method`, or its label as `jtrace tests` shows it); with them, a
    /// wildcard pattern any of those names matches.
    pub fn matches(&self, p: &Pattern) -> bool {
        let simple = self.class.rsplit('.').next().unwrap_or("");
        let names = [
            self.id.clone(),
            self.name.clone(),
            self.method.clone(),
            format!("{}.{}", self.class, self.method),
            format!("{simple}.{}", self.method),
            self.label(),
        ];
        if p.text().contains(['*', '?']) {
            names.iter().any(|n| p.matches(n))
        } else {
            names.iter().any(|n| n == p.text())
        }
    }

    /// A short label: `Class.method display-name` (the display name only when it says more).
    pub fn label(&self) -> String {
        let simple = self.class.rsplit('.').next().unwrap_or("");
        if self.method.is_empty() {
            return self.name.clone();
        }
        // Jupiter names a method test `method(Params)`, Vintage (JUnit 4) `method`.
        let plain = self.name == self.method || self.name.starts_with(&format!("{}(", self.method));
        if plain {
            format!("{simple}.{}", self.method)
        } else {
            format!("{simple}.{} {}", self.method, self.name)
        }
    }

    /// What identifies a test across runs: its unique id (its label without one).
    pub fn key(&self) -> String {
        if self.id.is_empty() {
            self.label()
        } else {
            self.id.clone()
        }
    }

    pub fn duration(&self) -> Option<u64> {
        self.end.map(|e| e.saturating_sub(self.start))
    }
}

/// The tests seen so far and the attribution of events to them.
#[derive(Default)]
pub struct Tests {
    pub cases: Vec<TestCase>,
    /// The test open on each thread that runs tests.
    open: FastMap<u32, Option<usize>>,
    /// The last test found by time (most lookups hit it again).
    last: std::cell::Cell<usize>,
}

impl Tests {
    /// Takes a tag; returns the index of the test it started (`start` and `skipped`).
    pub fn tag(&mut self, thread: u32, tag: &Tag) -> Option<usize> {
        if tag.name != "test" {
            return None;
        }
        let case = || TestCase {
            id: tag.get("id").to_string(),
            name: tag.get("name").to_string(),
            class: tag.get("class").to_string(),
            method: tag.get("method").to_string(),
            outcome: tag.get("outcome").to_string(),
            exception: tag.get("exception").to_string(),
            trace: String::new(),
            start: tag.time,
            end: None,
        };
        match tag.get("event") {
            "start" => {
                self.cases.push(case());
                let i = self.cases.len() - 1;
                self.open.insert(thread, Some(i));
                Some(i)
            }
            "end" => {
                let open = self.open.get(&thread).copied().flatten();
                if let Some(i) = open.filter(|&i| self.cases[i].id == tag.get("id")) {
                    let c = &mut self.cases[i];
                    c.end = Some(tag.time);
                    c.outcome = tag.get("outcome").to_string();
                    c.exception = tag.get("exception").to_string();
                    self.open.insert(thread, None);
                }
                None
            }
            "skipped" => {
                let mut c = case();
                c.end = Some(tag.time);
                self.cases.push(c);
                Some(self.cases.len() - 1)
            }
            _ => None,
        }
    }

    /// The test an event on `thread` at `time` belongs to.
    pub fn at(&self, thread: u32, time: u64) -> Option<usize> {
        if let Some(open) = self.open.get(&thread) {
            return open.filter(|&i| self.cases[i].start <= time);
        }
        let inside = |c: &TestCase| c.start <= time && c.end.is_none_or(|e| time <= e);
        let last = self.last.get();
        if self.cases.get(last).is_some_and(inside) && self.unique(last, time) {
            return Some(last);
        }
        let mut found = None;
        for (i, c) in self.cases.iter().enumerate().rev() {
            if inside(c) {
                if found.is_some() {
                    return None;
                }
                found = Some(i);
            }
        }
        if let Some(i) = found {
            self.last.set(i);
        }
        found
    }

    /// No test but `i` is open on another thread at `time`.
    fn unique(&self, i: usize, time: u64) -> bool {
        self.open
            .values()
            .flatten()
            .all(|&j| j == i || self.cases[j].start > time)
    }

    /// Frames of `stack` that started within test `i` (those before are the test
    /// engine's).
    pub fn own_frames<'s>(&self, i: usize, stack: &'s [Frame]) -> &'s [Frame] {
        let start = self.cases[i].start;
        let k = stack
            .iter()
            .position(|f| f.start >= start)
            .unwrap_or(stack.len());
        &stack[k..]
    }
}

/// The earliest start of the tests `p` selects among `tags` (thread, tag, in the
/// trace's order), None if it selects none. No event before it is any selected test's
/// (an event belongs to a test only at or after the test's start), so a read of the
/// trace may begin there.
pub fn first_start(tags: impl Iterator<Item = (u32, Tag)>, p: &Pattern) -> Option<u64> {
    let mut tests = Tests::default();
    let mut first: Option<u64> = None;
    for (thread, tag) in tags {
        if let Some(i) = tests.tag(thread, &tag) {
            let c = &tests.cases[i];
            if c.matches(p) {
                first = Some(first.map_or(c.start, |f| f.min(c.start)));
            }
        }
    }
    first
}

/// An analysis narrowed to the tests `--test` selects: it sees only their events, with
/// stacks cut to the frames each test started.
pub struct TestScope<'a, A> {
    pattern: Pattern,
    tests: Tests,
    selected: Vec<bool>,
    inner: &'a mut A,
}

impl<'a, A: Analysis> TestScope<'a, A> {
    pub fn new(pattern: Pattern, inner: &'a mut A) -> Self {
        TestScope {
            pattern,
            tests: Tests::default(),
            selected: Vec::new(),
            inner,
        }
    }

    /// Tests seen, and how many were selected.
    pub fn counts(&self) -> (usize, usize) {
        (
            self.selected.len(),
            self.selected.iter().filter(|&&s| s).count(),
        )
    }

    fn pick(&self, thread: u32, time: u64) -> Option<usize> {
        self.tests.at(thread, time).filter(|&i| self.selected[i])
    }
}

impl<A: Analysis> Analysis for TestScope<'_, A> {
    fn enter(&mut self, s: &Symbols, t: u32, stack: &[Frame]) {
        let Some(f) = stack.last() else { return };
        if let Some(i) = self.pick(t, f.start) {
            self.inner.enter(s, t, self.tests.own_frames(i, stack));
        }
    }
    fn exit(&mut self, s: &Symbols, t: u32, c: &Call, parents: &[Frame]) {
        if let Some(i) = self.pick(t, c.start) {
            self.inner.exit(s, t, c, self.tests.own_frames(i, parents));
        }
    }
    fn alloc(&mut self, s: &Symbols, t: u32, a: &Alloc, stack: &[Frame]) {
        if let Some(i) = self.pick(t, a.time) {
            self.inner.alloc(s, t, a, self.tests.own_frames(i, stack));
        }
    }
    fn exception(&mut self, s: &Symbols, e: &Exception) {
        if self.pick(e.thread, e.time).is_some() {
            self.inner.exception(s, e);
        }
    }
    fn blocked(&mut self, s: &Symbols, b: &Blocked) {
        if self.pick(b.thread, b.start).is_some() {
            self.inner.blocked(s, b);
        }
    }
    fn gc(&mut self, s: &Symbols, start: u64, end: u64) {
        let during = self
            .tests
            .cases
            .iter()
            .zip(&self.selected)
            .any(|(c, &sel)| sel && c.start <= end && c.end.is_none_or(|e| start <= e));
        if during {
            self.inner.gc(s, start, end);
        }
    }
    fn line(&mut self, s: &Symbols, t: u32, m: u32, l: u32, time: u64, stack: &[Frame]) {
        if let Some(i) = self.pick(t, time) {
            self.inner
                .line(s, t, m, l, time, self.tests.own_frames(i, stack));
        }
    }
    fn tag(&mut self, s: &Symbols, t: u32, tag: &Tag, stack: &[Frame]) {
        if let Some(i) = self.tests.tag(t, tag) {
            let sel = self.tests.cases[i].matches(&self.pattern);
            self.selected.push(sel);
        }
        self.inner.tag(s, t, tag, stack);
    }
}
