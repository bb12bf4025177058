//! `jtrace replay`: every call of the selected threads in order, as a debugger's log:
//! an entry line (`Class.method(int) {`), the call's own events inside it (exceptions,
//! allocations, monitor waits), then an exit line with the exact duration; a call with
//! nothing inside is one line. Lines stream out as soon as they are final: a line waits
//! only while a call it belongs to may still be hidden (`--min-time`, `--from`) or may
//! still turn out to be a leaf, so memory is bounded by the calls open at once and
//! the lines of calls younger than `--min-time`.

use crate::model::{Alloc, Analysis, BlockKind, Blocked, Call, Exception, Frame, Symbols, NONE};

/// What one line of the replay says.
#[derive(Debug, Clone)]
pub enum What {
    /// A call with nothing shown inside it: one line, with its duration.
    Call {
        method: u32,
        threw: bool,
        open: bool,
    },
    /// The entry of a call with lines inside it.
    Enter { method: u32 },
    /// Its exit, with the duration.
    Exit {
        method: u32,
        threw: bool,
        open: bool,
    },
    /// An exception thrown at `time` (reported where it was caught or left the code).
    Exception {
        class: Option<u32>,
        thrown_in: u32,
        line: u32,
        caught_in: Option<u32>,
    },
    Alloc {
        class: u32,
        is_array: u8,
        size: u64,
        line: u32,
    },
    Blocked {
        kind: BlockKind,
        class: Option<u32>,
        owner: Option<u32>,
        /// Still blocked at the end.
        open: bool,
    },
}

#[derive(Debug, Clone)]
pub struct Line {
    pub thread: u32,
    /// Stack depth: 1 for a thread's outermost call; a call's events are one deeper.
    pub depth: usize,
    pub time: u64,
    pub duration: Option<u64>,
    pub what: What,
}

/// What the replay shows.
#[derive(Debug, Clone, Copy)]
pub struct Show {
    pub min_time: u64,
    pub max_depth: Option<usize>,
}

struct Open {
    /// Absolute index of its entry line, None when hidden.
    line: Option<usize>,
    start: u64,
}

#[derive(Default)]
struct ThreadLines {
    /// Lines not yet final; `lines[0]` has absolute index `flushed`.
    lines: Vec<Line>,
    flushed: usize,
    frames: Vec<Open>,
}

/// Hands each final line to `out`, in the order of its thread's events.
pub struct Replay<F: FnMut(&Symbols, &Line)> {
    show: Show,
    threads: Vec<ThreadLines>,
    out: F,
}

impl<F: FnMut(&Symbols, &Line)> Replay<F> {
    pub fn new(show: Show, out: F) -> Self {
        Replay {
            show,
            threads: Vec::new(),
            out,
        }
    }

    #[inline]
    fn thread(&mut self, t: u32) -> &mut ThreadLines {
        let i = t as usize;
        if self.threads.len() <= i {
            self.grow(i + 1);
        }
        &mut self.threads[i]
    }

    /// Room for `n` threads (once per thread).
    #[cold]
    fn grow(&mut self, n: usize) {
        self.threads.resize_with(n, ThreadLines::default);
    }

    /// Whether a line inside the current top frame is shown.
    #[inline]
    fn inside_shown(&mut self, t: u32) -> Option<usize> {
        let max = self.show.max_depth;
        let th = self.thread(t);
        let depth = th.frames.len() + 1;
        if th.frames.last().is_some_and(|f| f.line.is_none()) || max.is_some_and(|m| depth > m) {
            return None;
        }
        Some(depth)
    }

    fn push(&mut self, s: &Symbols, t: u32, line: Line, now: u64) {
        self.thread(t).lines.push(line);
        self.flush(s, t, now);
    }

    /// Prints the lines of `t` that can no longer change.
    fn flush(&mut self, s: &Symbols, t: u32, now: u64) {
        let (min, ws) = (self.show.min_time, s.window.0);
        let th = &mut self.threads[t as usize];
        if th.lines.is_empty() {
            return;
        }
        let mut limit = th.flushed + th.lines.len();
        // Frames are in start order: the undecided ones (too young to be known long
        // enough, or not yet inside the window) are the top ones.
        for f in th.frames.iter().rev() {
            let Some(ix) = f.line else { continue };
            if now < f.start.saturating_add(min) || now < ws {
                limit = limit.min(ix);
            } else {
                break;
            }
        }
        // The innermost shown frame's entry may still become a one-line call (frames
        // above it, hidden by `--depth`, show nothing inside it).
        if let Some(ix) = th.frames.iter().rev().find_map(|f| f.line) {
            if ix + 1 == th.flushed + th.lines.len() {
                limit = limit.min(ix);
            }
        }
        let n = limit.saturating_sub(th.flushed).min(th.lines.len());
        if n == 0 {
            return;
        }
        th.flushed += n;
        // Printed in place, then dropped (nearly always all of them): no line moved.
        let out = &mut self.out;
        for l in &th.lines[..n] {
            out(s, l);
        }
        if n == th.lines.len() {
            th.lines.clear();
        } else {
            th.lines.drain(..n);
        }
    }

    /// Prints whatever is left (at the end of the trace every call has ended).
    pub fn finish(&mut self, s: &Symbols) {
        for t in 0..self.threads.len() as u32 {
            let th = &mut self.threads[t as usize];
            th.flushed += th.lines.len();
            for l in th.lines.drain(..) {
                (self.out)(s, &l);
            }
        }
    }
}

impl<F: FnMut(&Symbols, &Line)> Analysis for Replay<F> {
    fn enter(&mut self, s: &Symbols, t: u32, stack: &[Frame]) {
        let Some(f) = stack.last() else { return };
        let (method, start) = (f.method, f.start);
        let shown = self.inside_shown(t).filter(|_| start <= s.window.1);
        let th = self.thread(t);
        let waiting = !th.lines.is_empty();
        let line = shown.map(|depth| {
            let ix = th.flushed + th.lines.len();
            th.lines.push(Line {
                thread: t,
                depth,
                time: start,
                duration: None,
                what: What::Enter { method },
            });
            ix
        });
        th.frames.push(Open { line, start });
        // With no line waiting before it, nothing can go out: its own entry waits (it
        // may still become a one-line call).
        if waiting {
            self.flush(s, t, start);
        }
    }

    fn exit(&mut self, s: &Symbols, t: u32, c: &Call, _parents: &[Frame]) {
        let min = self.show.min_time;
        let th = self.thread(t);
        let Some(f) = th.frames.pop() else { return };
        let Some(ix) = f.line else {
            return self.flush(s, t, c.end);
        };
        let (ws, we) = s.window;
        let dur = c.end.saturating_sub(c.start);
        let keep = dur >= min && c.end >= ws && c.start <= we;
        // The entry line may be out already (the call was known to be shown).
        let local = ix.checked_sub(th.flushed);
        if !keep {
            if let Some(local) = local {
                th.lines.truncate(local);
            }
        } else if let Some(local) = local.filter(|&l| l + 1 == th.lines.len()) {
            let l = &mut th.lines[local];
            l.duration = Some(dur);
            l.what = What::Call {
                method: c.method,
                threw: c.by_exception,
                open: c.open,
            };
        } else {
            th.lines.push(Line {
                thread: t,
                depth: th.frames.len() + 1,
                time: c.end,
                duration: Some(dur),
                what: What::Exit {
                    method: c.method,
                    threw: c.by_exception,
                    open: c.open,
                },
            });
        }
        self.flush(s, t, c.end);
    }

    fn alloc(&mut self, s: &Symbols, t: u32, a: &Alloc, _stack: &[Frame]) {
        let Some(depth) = self.inside_shown(t) else {
            return;
        };
        let line = Line {
            thread: t,
            depth,
            time: a.time,
            duration: None,
            what: What::Alloc {
                class: a.class,
                is_array: a.is_array,
                size: a.size,
                line: a.line,
            },
        };
        self.push(s, t, line, a.time);
    }

    fn exception(&mut self, s: &Symbols, e: &Exception) {
        let Some(depth) = self.inside_shown(e.thread) else {
            return;
        };
        let line = Line {
            thread: e.thread,
            depth,
            time: e.time,
            duration: None,
            what: What::Exception {
                class: e.class,
                thrown_in: e.thrown_in,
                line: e.thrown_line,
                caught_in: e.caught_in,
            },
        };
        self.push(s, e.thread, line, e.time);
    }

    fn blocked(&mut self, s: &Symbols, b: &Blocked) {
        let Some(depth) = self.inside_shown(b.thread) else {
            return;
        };
        let line = Line {
            thread: b.thread,
            depth,
            time: b.start,
            duration: Some(b.end.saturating_sub(b.start)),
            what: What::Blocked {
                kind: b.kind,
                class: b.class,
                owner: b.owner,
                open: b.open,
            },
        };
        self.push(s, b.thread, line, b.end);
    }
}

/// The class an allocation or exception names, for people.
pub fn class_of(s: &Symbols, class: Option<u32>) -> String {
    match class {
        Some(c) if c != NONE => s.class_name(c).to_string(),
        _ => "?".to_string(),
    }
}
