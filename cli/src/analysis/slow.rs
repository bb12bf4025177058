//! Slow calls with their whole subtree, in one pass over the trace. A call's length is
//! known only at its exit, after its subtree streamed by, so each thread's events are
//! held back in a log from the entry of its lowest open frame not yet known to be slow
//! or not: a call is known slow as soon as its thread's clock is `over` past its start,
//! and known not slow at its exit. The log therefore spans less than `over` of the
//! thread's time; what leaves it is merged into the subtrees of the slow calls it
//! belongs to. Should a call known slow early turn out not slow at its exit (times that
//! went backwards in a hand-written trace) or the log outgrow [`LOG_CAP`], the pass
//! still knows every slow call exactly, and a second pass ([`Collector`]) collects their
//! subtrees. Memory: the slow calls found and one path tree per slow call. A slow call
//! inside another is a marked leaf of the outer one's subtree (its own subtree is shown
//! once, under its own entry), so nothing is printed twice.

use super::tree::{PathTree, SLOW};
use crate::model::idmap::FastMap;
use crate::model::{Analysis, Call, Frame, Symbols};
use std::collections::VecDeque;

/// Events the threads' logs may hold together before the pass gives up on one pass
/// (32 bytes each: 134 MB).
pub const LOG_CAP: usize = 1 << 22;

/// One slow call and its subtree (labels are method indexes; the root is the call).
pub struct SlowCall {
    pub thread: u32,
    pub start: u64,
    pub duration: u64,
    pub open: bool,
    pub tree: PathTree,
}

struct Active {
    call: SlowCall,
    stack: Vec<u32>,
}

/// One thread's slow calls still open, innermost last. Only the innermost grows: in
/// the outer ones, the inner call is a marked leaf whose frames are not theirs.
#[derive(Default)]
struct Subtrees {
    list: Vec<Active>,
}

impl Subtrees {
    fn enter(&mut self, t: u32, method: u32, start: u64, slow: bool) {
        if let Some(a) = self.list.last_mut() {
            let parent = *a.stack.last().unwrap_or(&0);
            let label = if slow { method | SLOW } else { method };
            let n = a.call.tree.child(parent, label);
            a.stack.push(n);
        }
        if slow {
            self.list.push(Active {
                call: SlowCall {
                    thread: t,
                    start,
                    duration: 0,
                    open: false,
                    tree: PathTree::new(method),
                },
                stack: vec![0],
            });
        }
    }

    fn exit(&mut self, c: Fig, done: &mut Vec<SlowCall>) {
        let Some(a) = self.list.last_mut() else {
            return;
        };
        if let Some(n) = a.stack.pop() {
            c.record(&mut a.call.tree, n);
        }
        if !a.stack.is_empty() {
            return;
        }
        let Some(mut a) = self.list.pop() else { return };
        a.call.duration = c.incl;
        a.call.open = c.open;
        done.push(a.call);
        // The call is a marked leaf of the one around it.
        if let Some(outer) = self.list.last_mut() {
            if let Some(n) = outer.stack.pop() {
                c.record(&mut outer.call.tree, n);
            }
        }
    }
}

/// What a subtree keeps of a finished call.
#[derive(Clone, Copy)]
struct Fig {
    incl: u64,
    self_ns: u64,
    counted: bool,
    open: bool,
}

impl Fig {
    fn of(c: &Call) -> Fig {
        Fig {
            incl: c.incl,
            self_ns: c.self_ns,
            counted: c.counted,
            open: c.open,
        }
    }

    /// [`PathTree::record`]'s figures.
    fn record(&self, t: &mut PathTree, n: u32) {
        if self.counted {
            let node = &mut t.nodes[n as usize];
            node.calls += 1;
            node.total += self.incl;
            node.self_ns += self.self_ns;
        }
    }
}

/// Whether a finished call is slow: in the window, at least `over`, of a method the
/// filter keeps.
fn is_slow(over: u64, method_ok: bool, c: &Call) -> bool {
    c.counted && c.incl >= over && method_ok
}

/// Per method index: 0 not asked yet, 1 kept by the method filter, 2 not. `all`: no
/// filter.
#[derive(Default, Clone)]
struct MethodOk {
    all: bool,
    known: Vec<u8>,
}

impl MethodOk {
    #[inline]
    fn get(&mut self, s: &Symbols, m: u32, ok: &(dyn Fn(&str) -> bool + Sync)) -> bool {
        if self.all {
            return true;
        }
        let i = m as usize;
        if self.known.len() <= i {
            self.known.resize(i + 1, 0);
        }
        if self.known[i] == 0 {
            self.known[i] = if s.method(m).named(ok) { 1 } else { 2 };
        }
        self.known[i] == 1
    }
}

#[derive(Clone, Copy, PartialEq)]
enum Known {
    Not,
    Slow,
    Undecided,
}

struct Open {
    /// When its thread's clock reaches this, the call is known slow (`u64::MAX`:
    /// only its exit tells).
    deadline: u64,
    known: Known,
    /// Index (from the log's base) of its entry in the log.
    at: usize,
    method_ok: bool,
}

enum Logged {
    Enter { method: u32, start: u64, slow: bool },
    Exit(Fig),
}

#[derive(Default)]
struct ThreadLog {
    open: Vec<Open>,
    /// `open[..low]` are known slow or not.
    low: usize,
    log: VecDeque<Logged>,
    /// Index of `log[0]` since the thread's first event.
    base: usize,
    /// The thread's clock: the latest time it was seen at.
    time: u64,
    trees: Subtrees,
}

/// The slow calls of one pass, or, when one pass could not collect their subtrees, the
/// calls a second pass must collect ([`OnePass::found`]).
pub struct OnePass<'f> {
    pub over: u64,
    pub method_ok: &'f (dyn Fn(&str) -> bool + Sync),
    ok: MethodOk,
    /// By thread index.
    threads: Vec<ThreadLog>,
    /// Every slow call (thread, ticket), for a second pass.
    pub found: FastMap<(u32, u64), ()>,
    done: Vec<SlowCall>,
    /// The subtrees are incomplete: a second pass is needed.
    pub broken: bool,
    /// Events in the logs now, and how many they may reach.
    logged: usize,
    cap: usize,
}

impl<'f> OnePass<'f> {
    /// `all`: the method filter keeps every method (`method_ok` is not asked).
    pub fn new(over: u64, all: bool, method_ok: &'f (dyn Fn(&str) -> bool + Sync)) -> OnePass<'f> {
        OnePass {
            over,
            method_ok,
            ok: MethodOk {
                all,
                known: Vec::new(),
            },
            threads: Vec::new(),
            found: FastMap::default(),
            done: Vec::new(),
            broken: false,
            logged: 0,
            cap: LOG_CAP,
        }
    }

    /// The same with the logs limited to `cap` events (tests force the second pass).
    #[cfg(test)]
    pub fn with_cap(self, cap: usize) -> OnePass<'f> {
        OnePass { cap, ..self }
    }

    /// The slow calls with their subtrees, longest first, unless a second pass is
    /// needed (then `None`: collect [`OnePass::found`] with a [`Collector`]).
    pub fn sorted(self) -> Option<Vec<SlowCall>> {
        (!self.broken).then(|| sort(self.done))
    }

    /// The time from which a call that started at `start` and is still open is known
    /// slow: at its exit, its time in the window will be at least `over`, and it will
    /// overlap the window.
    fn deadline(over: u64, window: (u64, u64), start: u64) -> u64 {
        let d = start.max(window.0).saturating_add(over);
        if d <= window.1 {
            d
        } else {
            u64::MAX
        }
    }

    /// Known slow early, known not slow, or still open to doubt.
    fn early(o: &Open, time: u64) -> Known {
        if !o.method_ok {
            Known::Not
        } else if o.deadline != u64::MAX && time >= o.deadline {
            Known::Slow
        } else {
            Known::Undecided
        }
    }

    /// Decides what the thread's clock now tells, then moves what is decided out of
    /// the log into the subtrees.
    fn settle(&mut self, t: u32) {
        let Some(tl) = self.threads.get_mut(t as usize) else {
            return;
        };
        while tl.low < tl.open.len() {
            let o = &mut tl.open[tl.low];
            if o.known == Known::Undecided {
                o.known = Self::early(o, tl.time);
                if o.known == Known::Undecided {
                    break;
                }
                if let Some(Logged::Enter { slow, .. }) =
                    o.at.checked_sub(tl.base).and_then(|i| tl.log.get_mut(i))
                {
                    *slow = o.known == Known::Slow;
                }
            }
            tl.low += 1;
        }
        let upto = match tl.open.get(tl.low) {
            Some(o) => o.at.saturating_sub(tl.base),
            None => tl.log.len(),
        };
        if upto == 0 {
            if self.logged > self.cap {
                self.give_up();
            }
            return;
        }
        self.logged -= upto;
        for e in tl.log.drain(..upto) {
            match e {
                Logged::Enter {
                    method,
                    start,
                    slow,
                } => tl.trees.enter(t, method, start, slow),
                Logged::Exit(c) => tl.trees.exit(c, &mut self.done),
            }
        }
        tl.base += upto;
        if self.logged > self.cap {
            self.give_up();
        }
    }

    /// One pass cannot hold the subtrees: from here on, only which calls are slow.
    fn give_up(&mut self) {
        self.broken = true;
        self.threads.clear();
        self.done.clear();
        self.logged = 0;
    }
}

impl Analysis for OnePass<'_> {
    fn enter(&mut self, s: &Symbols, t: u32, stack: &[Frame]) {
        let Some(f) = stack.last() else { return };
        let method_ok = self.ok.get(s, f.method, self.method_ok);
        if self.broken {
            return;
        }
        let i = t as usize;
        if self.threads.len() <= i {
            self.threads.resize_with(i + 1, ThreadLog::default);
        }
        let tl = &mut self.threads[i];
        tl.time = tl.time.max(f.start);
        let known = if method_ok {
            Known::Undecided
        } else {
            Known::Not
        };
        tl.open.push(Open {
            deadline: Self::deadline(self.over, s.window, f.start),
            known,
            at: tl.base + tl.log.len(),
            method_ok,
        });
        tl.log.push_back(Logged::Enter {
            method: f.method,
            start: f.start,
            slow: false,
        });
        self.logged += 1;
        self.settle(t);
    }

    fn exit(&mut self, s: &Symbols, t: u32, c: &Call, _parents: &[Frame]) {
        let method_ok = self.ok.get(s, c.method, self.method_ok);
        let slow = is_slow(self.over, method_ok, c);
        if slow {
            self.found.insert((t, c.ticket), ());
        }
        if self.broken {
            return;
        }
        let Some(tl) = self.threads.get_mut(t as usize) else {
            return;
        };
        tl.time = tl.time.max(c.end);
        let Some(o) = tl.open.pop() else { return };
        tl.low = tl.low.min(tl.open.len());
        match o.known {
            // Decided early: must agree with the exit.
            Known::Slow if !slow => {
                self.give_up();
                return;
            }
            Known::Slow | Known::Not => {}
            Known::Undecided => {
                if let Some(Logged::Enter { slow: s, .. }) =
                    o.at.checked_sub(tl.base).and_then(|i| tl.log.get_mut(i))
                {
                    *s = slow;
                }
            }
        }
        tl.log.push_back(Logged::Exit(Fig::of(c)));
        self.logged += 1;
        self.settle(t);
    }
}

impl crate::model::merge::Split for OnePass<'_> {
    fn fresh(&self) -> Self {
        OnePass {
            cap: self.cap,
            ..OnePass::new(self.over, self.ok.all, self.method_ok)
        }
    }
    fn merge(&mut self, other: Self) {
        self.found.extend(other.found);
        if other.broken {
            self.give_up();
        }
        if !self.broken {
            self.done.extend(other.done);
        }
    }
}

/// The slow calls, longest first; ties by start, then thread (then as found: the
/// same order whether one pass or several workers found them).
fn sort(mut done: Vec<SlowCall>) -> Vec<SlowCall> {
    done.sort_by_key(|c| (std::cmp::Reverse(c.duration), c.start, c.thread));
    done
}

/// A second pass: the subtrees of the calls the first found.
pub struct Collector {
    pub wanted: FastMap<(u32, u64), ()>,
    active: FastMap<u32, Subtrees>,
    pub done: Vec<SlowCall>,
}

impl Collector {
    pub fn new(wanted: FastMap<(u32, u64), ()>) -> Collector {
        Collector {
            wanted,
            active: FastMap::default(),
            done: Vec::new(),
        }
    }

    /// The slow calls, longest first (see [`OnePass::sorted`]).
    pub fn sorted(self) -> Vec<SlowCall> {
        sort(self.done)
    }
}

/// Workers' slow calls after one another: each thread's in the order one pass finds
/// them (a worker has all of a thread's), for the stable sort.
impl crate::model::merge::Split for Collector {
    fn fresh(&self) -> Self {
        Collector::new(self.wanted.clone())
    }
    fn merge(&mut self, other: Self) {
        self.done.extend(other.done);
    }
}

impl Analysis for Collector {
    fn enter(&mut self, _s: &Symbols, t: u32, stack: &[Frame]) {
        let Some(f) = stack.last() else { return };
        let wanted = self.wanted.contains_key(&(t, f.ticket));
        self.active
            .entry(t)
            .or_default()
            .enter(t, f.method, f.start, wanted);
    }

    fn exit(&mut self, _s: &Symbols, t: u32, c: &Call, _parents: &[Frame]) {
        if let Some(list) = self.active.get_mut(&t) {
            list.exit(Fig::of(c), &mut self.done);
        }
    }
}

const _: () = assert!(std::mem::size_of::<Logged>() <= 32);
