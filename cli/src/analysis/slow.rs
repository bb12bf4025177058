//! Slow calls with their whole subtree, in one pass over the trace. A call's length is
//! known only at its exit, after its subtree streamed by, so each thread's events are
//! held back in a log from the entry of its lowest open call not yet known to be slow
//! or not: a call is known slow as soon as its thread's clock is `over` past its start,
//! and known not slow at its exit. The log therefore spans less than `over` of the
//! thread's time, at 4 bytes an event (16 more per exit); what leaves it is added to
//! the subtrees of the slow calls it belongs to, once, and what is decided already goes
//! there directly. Should a call known slow early turn out not slow at its exit (times
//! that went backwards in a hand-written trace) or the logs outgrow [`LOG_CAP`], the pass
//! still knows every slow call exactly, and a second pass ([`Collector`]) collects their
//! subtrees. Memory: the slow calls found and one path tree per slow call. A slow call
//! inside another is a marked leaf of the outer one's subtree (its own subtree is shown
//! once, under its own entry), so nothing is printed twice.

use super::tree::{PathTree, SLOW};
use crate::model::idmap::FastMap;
use crate::model::{Analysis, Call, Frame, Symbols};

/// Events the threads' logs may hold together before the pass gives up on one pass
/// (at most 20 bytes each: 84 MB).
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

    /// A finished slow call in the innermost subtree: its marked leaf.
    fn leaf(&mut self, method: u32, c: Fig) {
        if let Some(a) = self.list.last_mut() {
            let parent = *a.stack.last().unwrap_or(&0);
            let n = a.call.tree.child(parent, method | SLOW);
            c.record(&mut a.call.tree, n);
        }
    }

    /// Adds what `log` holds, `open` the open frames whose entries it holds, lowest
    /// first (those known slow get their own subtree).
    /// No call finishes in it but in a subtree's stack (what is slow in it and
    /// finished is a marked leaf already): entries and exits inside the innermost
    /// subtree take the short way.
    fn replay(&mut self, t: u32, log: LogPart, open: &[Open], done: &mut Vec<SlowCall>) {
        let mut open = open.iter().peekable();
        let mut figs = log.figs.iter();
        for (i, &op) in log.ops.iter().enumerate() {
            if op & SLOW == 0 {
                // An entry: of an open frame, perhaps known slow, or of a finished one.
                if let Some(o) = open.next_if(|o| o.at as usize == log.at + i) {
                    self.enter(t, op, o.start, o.known == Known::Slow);
                } else if let Some(a) = self.list.last_mut() {
                    let parent = *a.stack.last().unwrap_or(&0);
                    let n = a.call.tree.child(parent, op);
                    a.stack.push(n);
                }
                continue;
            }
            let fig = if op == EXIT_OFF {
                Fig::OFF
            } else {
                Fig::counted(figs.next().copied().unwrap_or_default())
            };
            if op != EXIT && op != EXIT_OFF {
                self.leaf(op & !SLOW, fig);
                continue;
            }
            match self.list.last_mut() {
                Some(a) if a.stack.len() > 1 => {
                    if let Some(n) = a.stack.pop() {
                        fig.record(&mut a.call.tree, n);
                    }
                }
                _ => self.exit(fig, done),
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
    /// A call outside the window.
    const OFF: Fig = Fig {
        incl: 0,
        self_ns: 0,
        counted: false,
        open: false,
    };

    fn of(c: &Call) -> Fig {
        Fig {
            incl: c.incl,
            self_ns: c.self_ns,
            counted: c.counted,
            open: c.open,
        }
    }

    /// A counted call's figures from the log.
    fn counted((incl, self_ns): (u64, u64)) -> Fig {
        Fig {
            incl,
            self_ns,
            counted: true,
            open: false,
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
    start: u64,
    method: u32,
    /// Positions of its entry in the log's ops and figures (while it is logged).
    at: u32,
    fig_at: u32,
    known: Known,
    method_ok: bool,
}

/// A log op: an exit with figures (the next in `figs`), an exit outside the window;
/// else an entry's method, or a finished slow call's method with [`SLOW`] (a marked
/// leaf, with figures).
const EXIT: u32 = u32::MAX;
const EXIT_OFF: u32 = u32::MAX - 1;

/// A thread's events since the entry of its lowest open call not known slow or not.
#[derive(Default)]
struct Log {
    ops: Vec<u32>,
    /// (inclusive, self) of each counted exit and marked leaf.
    figs: Vec<(u64, u64)>,
}

/// The log from an open frame's entry (`at`: where in the log).
#[derive(Clone, Copy)]
struct LogPart<'a> {
    ops: &'a [u32],
    figs: &'a [(u64, u64)],
    at: usize,
}

impl Log {
    fn from(&self, o: &Open) -> LogPart<'_> {
        LogPart {
            ops: &self.ops[o.at as usize..],
            figs: &self.figs[o.fig_at as usize..],
            at: o.at as usize,
        }
    }
}

#[derive(Default)]
struct ThreadLog {
    open: Vec<Open>,
    /// `open[..low]` are known slow or not; `open[low]`, if any, is not.
    low: usize,
    log: Log,
    /// The thread's clock: the latest time it was seen at.
    time: u64,
    trees: Subtrees,
}

impl ThreadLog {
    /// Whether the lowest call not known slow or not is known slow now.
    #[inline]
    fn due(&self) -> bool {
        self.open
            .get(self.low)
            .is_some_and(|o| self.time >= o.deadline)
    }

    /// The log from `open[from]`'s entry on is no longer needed: dropped. Returns the
    /// ops dropped.
    fn drop_log(&mut self, from: usize) -> usize {
        let Some(o) = self.open.get(from) else {
            let n = self.log.ops.len();
            self.log.ops.clear();
            self.log.figs.clear();
            return n;
        };
        let (at, fig_at) = (o.at, o.fig_at);
        self.log.ops.drain(..at as usize);
        self.log.figs.drain(..fig_at as usize);
        for o in &mut self.open[from..] {
            o.at -= at;
            o.fig_at -= fig_at;
        }
        at as usize
    }
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
    /// Ops in the logs now, and how many they may reach.
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

    /// The calls from the lowest not known slow or not up to the last whose deadline
    /// passed are known slow now (deadlines grow up the stack): the log up to the
    /// next call still in doubt leaves for the subtrees.
    #[cold]
    #[inline(never)]
    fn decide(&mut self, t: u32) {
        let tl = &mut self.threads[t as usize];
        let first = tl.low;
        let mut j = first;
        while let Some(o) = tl.open.get_mut(j) {
            if o.known == Known::Undecided {
                if tl.time < o.deadline {
                    break;
                }
                o.known = Known::Slow;
            }
            j += 1;
        }
        tl.low = j;
        let mut part = tl.log.from(&tl.open[first]);
        if let Some(next) = tl.open.get(j) {
            part.ops = &part.ops[..(next.at - tl.open[first].at) as usize];
            part.figs = &part.figs[..(next.fig_at - tl.open[first].fig_at) as usize];
        }
        tl.trees.replay(t, part, &tl.open[first..j], &mut self.done);
        self.logged -= tl.drop_log(j);
    }

    /// A call in doubt until its exit, slow (`o`, already popped): its subtree, from
    /// the log, is its own. When a lower call is still in doubt, it stays in the log as
    /// a marked leaf.
    #[cold]
    #[inline(never)]
    fn slow_at_exit(&mut self, t: u32, o: &Open, fig: Fig) {
        let tl = &mut self.threads[t as usize];
        let lowest = tl.low == tl.open.len();
        let mut apart = Subtrees::default();
        let trees = if lowest { &mut tl.trees } else { &mut apart };
        trees.enter(t, o.method, o.start, true);
        let part = tl.log.from(o);
        let inner = LogPart {
            ops: &part.ops[1..],
            figs: part.figs,
            at: part.at + 1,
        };
        trees.replay(t, inner, &[], &mut self.done);
        trees.exit(fig, &mut self.done);
        let before = tl.log.ops.len();
        tl.log.ops.truncate(o.at as usize);
        tl.log.figs.truncate(o.fig_at as usize);
        if !lowest {
            tl.log.ops.push(o.method | SLOW);
            tl.log.figs.push((fig.incl, fig.self_ns));
        }
        self.logged = self.logged + tl.log.ops.len() - before;
    }

    /// One pass cannot hold the subtrees: from here on, only which calls are slow.
    #[cold]
    #[inline(never)]
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
        let method_ok = self.ok.all || self.ok.get(s, f.method, self.method_ok);
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
            start: f.start,
            method: f.method,
            at: tl.log.ops.len() as u32,
            fig_at: tl.log.figs.len() as u32,
            known,
            method_ok,
        });
        if tl.low + 1 == tl.open.len() && known == Known::Not {
            tl.low += 1;
        }
        if tl.low == tl.open.len() {
            tl.trees.enter(t, f.method, f.start, false);
            return;
        }
        tl.log.ops.push(f.method);
        self.logged += 1;
        if tl.due() {
            self.decide(t);
        }
        if self.logged > self.cap {
            self.give_up();
        }
    }

    fn exit(&mut self, s: &Symbols, t: u32, c: &Call, _parents: &[Frame]) {
        let o = match self.threads.get_mut(t as usize) {
            Some(tl) if !self.broken => tl.open.pop(),
            _ => None,
        };
        let method_ok = match &o {
            Some(o) => o.method_ok,
            None => self.ok.all || self.ok.get(s, c.method, self.method_ok),
        };
        let slow = is_slow(self.over, method_ok, c);
        if slow {
            self.found.insert((t, c.ticket), ());
        }
        let Some(o) = o else { return };
        let tl = &mut self.threads[t as usize];
        tl.time = tl.time.max(c.end);
        tl.low = tl.low.min(tl.open.len());
        let fig = Fig::of(c);
        match o.known {
            // Decided early: must agree with the exit (and all below it is known).
            Known::Slow if !slow || tl.low < tl.open.len() => return self.give_up(),
            Known::Undecided if slow => self.slow_at_exit(t, &o, fig),
            // The lowest call in doubt, not slow: its log leaves for the subtrees.
            Known::Undecided if tl.low == tl.open.len() => {
                tl.trees.replay(t, tl.log.from(&o), &[], &mut self.done);
                tl.trees.exit(fig, &mut self.done);
                self.logged -= tl.drop_log(tl.open.len());
            }
            // Below it all is known: straight to the subtrees.
            _ if tl.low == tl.open.len() => tl.trees.exit(fig, &mut self.done),
            _ => {
                let log = &mut tl.log;
                if fig.counted {
                    log.ops.push(EXIT);
                    log.figs.push((fig.incl, fig.self_ns));
                } else {
                    log.ops.push(EXIT_OFF);
                }
                self.logged += 1;
            }
        }
        if self.threads[t as usize].due() {
            self.decide(t);
        }
        if self.logged > self.cap {
            self.give_up();
        }
    }
}

impl super::merge::Split for OnePass<'_> {
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
impl super::merge::Split for Collector {
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
