//! Windows in a trace (`window=`): the `window` tags that open and close each window the agent kept, and [`WindowScope`], which narrows any analysis to one window.
//!
//! A window's records are exactly its thread's records between its two tags (outside
//! windows the agent records nothing), so an event belongs to a window by its thread
//! and its place in the stream.

use super::idmap::FastMap;
use super::{Alloc, Analysis, Blocked, Call, Exception, Frame, Symbols, Tag};

/// The tag name of a window's start and end.
pub const TAG: &str = "window";

/// One window, from its tags.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct Window {
    /// The agent's id (unique in the run).
    pub id: String,
    /// The thread's index in the symbols.
    #[serde(skip)]
    pub thread: u32,
    /// The window method's id in the trace (0 for a test's window).
    #[serde(skip)]
    pub method_id: u64,
    /// The test whose window it is (`keep=failed`), else "".
    #[serde(skip)]
    pub test: String,
    /// ns since the epoch.
    #[serde(skip)]
    pub start: u64,
    #[serde(skip)]
    pub end: Option<u64>,
    /// `returned`, `threw`, `open` (the trace closed or its thread ended first); "" when
    /// the trace has no end tag for it (cut short).
    pub outcome: String,
    /// Calls in it, as its end tag says.
    pub calls: u64,
    /// The rules that kept it (`over|exception`).
    pub kept: String,
}

impl Window {
    pub fn duration(&self) -> Option<u64> {
        self.end.map(|e| e.saturating_sub(self.start))
    }
}

/// The windows seen so far, and the one open on each thread.
#[derive(Default)]
pub struct Windows {
    pub all: Vec<Window>,
    open: FastMap<u32, usize>,
}

impl Windows {
    /// Takes a tag of thread `thread`; returns the index of the window it opened.
    pub fn tag(&mut self, thread: u32, tag: &Tag) -> Option<usize> {
        if tag.name != TAG {
            return None;
        }
        match tag.get("event") {
            "start" => {
                self.all.push(Window {
                    id: tag.get("id").to_string(),
                    thread,
                    method_id: tag.get("methodIdRef").parse().unwrap_or(0),
                    test: tag.get("test").to_string(),
                    start: tag.time,
                    ..Window::default()
                });
                let i = self.all.len() - 1;
                self.open.insert(thread, i);
                Some(i)
            }
            "end" => {
                if let Some(i) = self.open.remove(&thread) {
                    let w = &mut self.all[i];
                    w.end = Some(tag.time);
                    w.outcome = tag.get("outcome").to_string();
                    w.calls = tag.get("calls").parse().unwrap_or(0);
                    w.kept = tag.get("kept").to_string();
                }
                None
            }
            _ => None,
        }
    }

    /// The window open on `thread`, if any.
    pub fn open_on(&self, thread: u32) -> Option<usize> {
        self.open.get(&thread).copied()
    }
}

/// An analysis that collects the windows.
#[derive(Default)]
pub struct WindowsAnalysis {
    pub windows: Windows,
}

impl Analysis for WindowsAnalysis {
    fn tag(&mut self, _s: &Symbols, t: u32, tag: &Tag, _stack: &[Frame]) {
        self.windows.tag(t, tag);
    }
}

/// An analysis narrowed to the window `--window ID` names: it sees only that window's
/// events.
pub struct WindowScope<'a, A> {
    id: String,
    windows: Windows,
    found: bool,
    inner: &'a mut A,
}

impl<'a, A: Analysis> WindowScope<'a, A> {
    pub fn new(id: &str, inner: &'a mut A) -> Self {
        WindowScope {
            id: id.to_string(),
            windows: Windows::default(),
            found: false,
            inner,
        }
    }

    /// Windows seen, and whether the chosen one was among them.
    pub fn counts(&self) -> (usize, bool) {
        (self.windows.all.len(), self.found)
    }

    fn on(&self, thread: u32) -> bool {
        self.windows
            .open_on(thread)
            .is_some_and(|i| self.windows.all[i].id == self.id)
    }
}

impl<A: Analysis> Analysis for WindowScope<'_, A> {
    fn enter(&mut self, s: &Symbols, t: u32, stack: &[Frame]) {
        if self.on(t) {
            self.inner.enter(s, t, stack);
        }
    }
    fn exit(&mut self, s: &Symbols, t: u32, c: &Call, parents: &[Frame]) {
        if self.on(t) {
            self.inner.exit(s, t, c, parents);
        }
    }
    fn alloc(&mut self, s: &Symbols, t: u32, a: &Alloc, stack: &[Frame]) {
        if self.on(t) {
            self.inner.alloc(s, t, a, stack);
        }
    }
    fn exception(&mut self, s: &Symbols, e: &Exception) {
        if self.on(e.thread) {
            self.inner.exception(s, e);
        }
    }
    fn blocked(&mut self, s: &Symbols, b: &Blocked) {
        if self.on(b.thread) {
            self.inner.blocked(s, b);
        }
    }
    fn gc(&mut self, s: &Symbols, start: u64, end: u64) {
        let chosen = self
            .windows
            .all
            .iter()
            .any(|w| w.id == self.id && w.start <= end && w.end.is_none_or(|e| start <= e));
        if chosen {
            self.inner.gc(s, start, end);
        }
    }
    fn line(&mut self, s: &Symbols, t: u32, m: u32, l: u32, time: u64, stack: &[Frame]) {
        if self.on(t) {
            self.inner.line(s, t, m, l, time, stack);
        }
    }
    fn tag(&mut self, s: &Symbols, t: u32, tag: &Tag, stack: &[Frame]) {
        if let Some(i) = self.windows.tag(t, tag) {
            self.found |= self.windows.all[i].id == self.id;
        }
        self.inner.tag(s, t, tag, stack);
    }
}
