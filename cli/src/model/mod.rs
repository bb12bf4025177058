//! From events to calls: per-thread stacks of open frames that turn entries and exits
//! into completed calls with exact inclusive and self time, plus the exceptions,
//! allocations, monitor waits and collections around them, handed to an [`Analysis`].
//!
//! Memory is bounded by what is live (threads, open frames, methods, tagged objects),
//! never by the length of the trace.

pub mod cut;
pub mod filter;
pub mod hist;
pub mod idmap;
pub mod names;
pub mod symbols;
pub mod testcase;
pub mod windows;

use crate::read::Event;
use filter::Filter;
use idmap::FastMap;
pub use symbols::{Symbols, ThreadInfo, NONE};

/// An open frame. Laid out by hand (`repr(C)`) so that `ticket` and `start` are not
/// neighbours: an entry's ticket and time are neighbours in the [`Event`] the renderer
/// has just stored field by field, and a frame with them side by side was filled by one
/// 16-byte load of both, which the processor cannot forward from two 8-byte stores (on
/// javac the instruction after that load held 31% of `Model::event`'s samples).
#[derive(Debug, Clone)]
#[repr(C)]
pub struct Frame {
    pub ticket: u64,
    /// Inclusive time of the frame's finished children (within the window).
    pub child: u64,
    pub start: u64,
    pub method: u32,
    /// Last source line executed in the frame (0: unknown; `lines=on` traces only).
    pub line: u32,
    /// The same method is open further down this thread's stack.
    pub recursive: bool,
    /// An exception is passing through (thrown, not caught here yet).
    pub throwing: bool,
    /// Counted in its thread's `ThreadState::shared` (see [`Model::open`]), not in
    /// the method's owner count.
    in_shared: bool,
    /// Open at a cut this worker reads after (see [`cut`]): its exit is held back.
    inherited: bool,
}

/// A finished call (or one left open at the end of the trace).
#[derive(Debug, Clone)]
pub struct Call {
    pub method: u32,
    pub ticket: u64,
    pub start: u64,
    pub end: u64,
    /// Inclusive time within the window.
    pub incl: u64,
    /// Inclusive time minus the children's, within the window.
    pub self_ns: u64,
    pub recursive: bool,
    /// Left by an exception.
    pub by_exception: bool,
    /// Still open when the trace ended (`end` is the thread's or the trace's end).
    pub open: bool,
    /// The call overlaps the time window (always, without one).
    pub counted: bool,
}

/// An allocation (`class` [`NONE`] when unnamed; `site` the allocating method or NONE).
#[derive(Debug, Clone)]
pub struct Alloc {
    pub class: u32,
    pub is_array: u8,
    pub size: u64,
    pub site: u32,
    pub line: u32,
    pub time: u64,
}

/// One exception, from the first traced frame it passed through to the one that caught it.
#[derive(Debug, Clone)]
pub struct Exception {
    pub thread: u32,
    /// Known only when the object's class was named (alloc=exact traces).
    pub class: Option<u32>,
    pub thrown_in: u32,
    pub thrown_line: u32,
    /// `None`: it left the traced code (or the trace ended) uncaught.
    pub caught_in: Option<u32>,
    pub time: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BlockKind {
    /// Waiting to enter a contended monitor.
    Contended,
    /// In `Object.wait`.
    Wait,
}

/// A thread blocked on a monitor.
#[derive(Debug, Clone)]
pub struct Blocked {
    pub thread: u32,
    pub kind: BlockKind,
    pub class: Option<u32>,
    /// The method that blocked (the innermost open traced frame).
    pub site: Option<u32>,
    pub owner: Option<u32>,
    pub start: u64,
    pub end: u64,
    /// Still blocked when the trace (or the thread's record) ended: `end` is that end.
    pub open: bool,
}

/// What a subcommand computes from the calls; every method has a no-op default.
pub trait Analysis {
    /// `stack` holds the new frame on top.
    fn enter(&mut self, _s: &Symbols, _thread: u32, _stack: &[Frame]) {}
    /// `parents` is the stack without the finished frame.
    fn exit(&mut self, _s: &Symbols, _thread: u32, _call: &Call, _parents: &[Frame]) {}
    fn alloc(&mut self, _s: &Symbols, _thread: u32, _a: &Alloc, _stack: &[Frame]) {}
    fn exception(&mut self, _s: &Symbols, _e: &Exception) {}
    fn blocked(&mut self, _s: &Symbols, _b: &Blocked) {}
    fn gc(&mut self, _s: &Symbols, _start: u64, _end: u64) {}
    /// A source line executed (`lines=on` traces) by `method` on `thread`; `stack` holds
    /// the thread's open frames (the method's on top when it was entered in the trace).
    fn line(
        &mut self,
        _s: &Symbols,
        _thread: u32,
        _method: u32,
        _line: u32,
        _time: u64,
        _stack: &[Frame],
    ) {
    }
    /// A tag the application wrote on `thread` (test marks: see [`testcase`]).
    fn tag(&mut self, _s: &Symbols, _thread: u32, _tag: &Tag, _stack: &[Frame]) {}
}

/// A tag (`jtrace.Trace.tag`), with its time.
#[derive(Debug, Clone)]
pub struct Tag {
    pub name: String,
    pub fields: Vec<(String, String)>,
    pub time: u64,
}

impl Tag {
    /// The value of `key` ("" when absent).
    pub fn get(&self, key: &str) -> &str {
        self.fields
            .iter()
            .find(|(k, _)| k == key)
            .map_or("", |(_, v)| v.as_str())
    }
}

/// Two analyses fed from one pass.
impl<A: Analysis, B: Analysis> Analysis for (A, B) {
    #[inline(always)]
    fn enter(&mut self, s: &Symbols, t: u32, st: &[Frame]) {
        self.0.enter(s, t, st);
        self.1.enter(s, t, st);
    }
    #[inline(always)]
    fn exit(&mut self, s: &Symbols, t: u32, c: &Call, p: &[Frame]) {
        self.0.exit(s, t, c, p);
        self.1.exit(s, t, c, p);
    }
    #[inline]
    fn alloc(&mut self, s: &Symbols, t: u32, a: &Alloc, st: &[Frame]) {
        self.0.alloc(s, t, a, st);
        self.1.alloc(s, t, a, st);
    }
    #[inline]
    fn exception(&mut self, s: &Symbols, e: &Exception) {
        self.0.exception(s, e);
        self.1.exception(s, e);
    }
    #[inline]
    fn blocked(&mut self, s: &Symbols, b: &Blocked) {
        self.0.blocked(s, b);
        self.1.blocked(s, b);
    }
    #[inline]
    fn gc(&mut self, s: &Symbols, a: u64, b: u64) {
        self.0.gc(s, a, b);
        self.1.gc(s, a, b);
    }
    #[inline]
    fn line(&mut self, s: &Symbols, t: u32, m: u32, l: u32, time: u64, st: &[Frame]) {
        self.0.line(s, t, m, l, time, st);
        self.1.line(s, t, m, l, time, st);
    }
    #[inline]
    fn tag(&mut self, s: &Symbols, t: u32, tag: &Tag, st: &[Frame]) {
        self.0.tag(s, t, tag, st);
        self.1.tag(s, t, tag, st);
    }
}

/// An analysis that may not be wanted (`None`: nothing to do).
impl<A: Analysis> Analysis for Option<A> {
    #[inline]
    fn enter(&mut self, s: &Symbols, t: u32, st: &[Frame]) {
        if let Some(a) = self {
            a.enter(s, t, st);
        }
    }
    #[inline]
    fn exit(&mut self, s: &Symbols, t: u32, c: &Call, p: &[Frame]) {
        if let Some(a) = self {
            a.exit(s, t, c, p);
        }
    }
    #[inline]
    fn alloc(&mut self, s: &Symbols, t: u32, x: &Alloc, st: &[Frame]) {
        if let Some(a) = self {
            a.alloc(s, t, x, st);
        }
    }
    #[inline]
    fn exception(&mut self, s: &Symbols, e: &Exception) {
        if let Some(a) = self {
            a.exception(s, e);
        }
    }
    #[inline]
    fn blocked(&mut self, s: &Symbols, b: &Blocked) {
        if let Some(a) = self {
            a.blocked(s, b);
        }
    }
    #[inline]
    fn gc(&mut self, s: &Symbols, x: u64, y: u64) {
        if let Some(a) = self {
            a.gc(s, x, y);
        }
    }
}

struct Pending {
    obj: u64,
    class: Option<u32>,
    thrown_in: u32,
    line: u32,
    time: u64,
    /// Thrown after a cut before anything told whether an exception was passing
    /// there (see [`cut`]): held back when it ends.
    provisional: bool,
}

impl Pending {
    /// The exception, on thread `t`, caught in `caught_in` (None: not caught).
    fn exception(self, t: u32, caught_in: Option<u32>) -> Exception {
        Exception {
            thread: t,
            class: self.class,
            thrown_in: self.thrown_in,
            thrown_line: self.line,
            caught_in,
            time: self.time,
        }
    }
}

#[derive(Default)]
struct ThreadState {
    stack: Vec<Frame>,
    /// Open frames per method of methods another thread held open when they were
    /// entered (see [`Model::open`]); entries leave at zero, so it is mostly empty.
    shared: FastMap<u32, u32>,
    exception: Option<Pending>,
    contending: Option<(u64, u64, u64)>,
    waiting: Option<(u64, u64)>,
    /// The bottom frames of `stack` handed to the analysis (`enter`); under a window,
    /// a frame entered before it is handed over only once its thread reaches it.
    announced: usize,
    /// The thread is cut (see [`cut`]) and this worker reads after the cut.
    head: Option<cut::HeadState>,
    /// The thread is cut and this worker reads before the cut.
    tail: bool,
}

/// Figures about the trace as a whole.
#[derive(Debug, Default, Clone)]
pub struct Totals {
    pub start: Option<u64>,
    pub end: Option<u64>,
    /// Latest time seen in any event.
    pub last: u64,
    pub entries: u64,
    /// Exits that closed frames above their own (those frames were closed with them).
    pub inferred_exits: u64,
    /// Exits naming no open frame (ignored).
    pub mismatched_exits: u64,
    /// Frames still open when the trace ended.
    pub open_frames: u64,
    pub gcs: u64,
}

/// The stack machine; feed it events, then call [`Model::finish`].
pub struct Model {
    pub syms: Symbols,
    pub filter: Filter,
    pub totals: Totals,
    threads: Vec<ThreadState>,
    /// Class of each live named object (allocated or defined with a class), for the
    /// class of an exception or a monitor.
    objects: FastMap<u64, u32>,
    gc_open: Option<u64>,
    /// The last thread id [`Model::thread`] answered for, and its answer.
    last_thread: (u64, Option<u32>),
    /// Per method index: the thread whose open frames of it `open` counts, and how
    /// many (see [`Model::open`]).
    open: Vec<(u32, u32)>,
    /// When the pass is split over workers: the threads this model counts.
    part: Option<Part>,
    /// What this worker's side of a cut thread leaves for the merge (see [`cut`]).
    pub tail: Option<(u32, cut::Tail)>,
    pub head: Option<(u32, cut::Head)>,
}

/// One worker's share of a pass split over threads (`jtrace --jobs`): the threads it
/// counts (their calls, allocations, exceptions, monitors), and whether it counts the
/// trace's own events (collections), which every worker sees. Worker 0 takes the
/// threads no one was given.
#[derive(Clone, Debug)]
pub struct Part {
    pub worker: u32,
    /// Thread id -> its worker.
    pub owner: std::sync::Arc<FastMap<u64, u32>>,
    /// A thread cut in two (see [`cut`]), which both its workers count.
    pub cut: Option<cut::CutSide>,
}

impl Part {
    pub fn owns(&self, thread: u64) -> bool {
        self.cut.is_some_and(|c| c.thread == thread)
            || self.owner.get(&thread).copied().unwrap_or(0) == self.worker
    }
}

impl Model {
    pub fn new(filter: Filter) -> Model {
        let mut syms = Symbols::default();
        syms.names = filter.names;
        Model {
            syms,
            filter,
            totals: Totals::default(),
            threads: Vec::new(),
            objects: FastMap::default(),
            gc_open: None,
            last_thread: (u64::MAX, None),
            open: Vec::new(),
            part: None,
            tail: None,
            head: None,
        }
    }

    /// A worker's model: it counts the threads of `part` only.
    pub fn part(filter: Filter, part: Part) -> Model {
        Model {
            part: Some(part),
            ..Model::new(filter)
        }
    }

    /// Whether this model counts thread `id` (always, unless split).
    fn owns(&self, id: u64) -> bool {
        self.part.as_ref().is_none_or(|p| p.owns(id))
    }

    /// Adds what the worker `other` counted (its threads) to this worker's model; false
    /// when the two do not name methods and threads alike (then the pass is made again
    /// whole). Both have seen every definition, in the same order.
    pub fn merge(&mut self, other: Model) -> bool {
        let (a, b) = (&self.syms, &other.syms);
        let same = a.methods.len() == b.methods.len()
            && a.classes.len() == b.classes.len()
            && a.threads.len() == b.threads.len()
            && a.threads.iter().zip(&b.threads).all(|(x, y)| x.id == y.id);
        if !same {
            return false;
        }
        let part = other.part;
        for (mine, theirs) in self.syms.threads.iter_mut().zip(other.syms.threads) {
            if part.as_ref().is_none_or(|p| p.owns(theirs.id)) {
                *mine = theirs;
            }
        }
        let (t, o) = (&mut self.totals, other.totals);
        t.start = t.start.or(o.start);
        t.end = t.end.max(o.end);
        t.last = t.last.max(o.last);
        t.entries += o.entries;
        t.inferred_exits += o.inferred_exits;
        t.mismatched_exits += o.mismatched_exits;
        t.open_frames += o.open_frames;
        t.gcs += o.gcs;
        true
    }

    /// After the merge: the model of the whole pass.
    pub fn whole(&mut self) {
        self.part = None;
    }

    fn set_start(&mut self, t: u64) {
        if self.totals.start.is_some() {
            return;
        }
        self.totals.start = Some(t);
        self.syms.start = t;
        let from = self.filter.from.map_or(0, |f| t.saturating_add(f));
        let to = self.filter.to.map_or(u64::MAX, |f| t.saturating_add(f));
        self.syms.window = (from, to);
    }

    fn in_window(&self, t: u64) -> bool {
        t >= self.syms.window.0 && t <= self.syms.window.1
    }

    /// The thread's index if it is selected; threads never started get a name from their id.
    /// Consecutive events are nearly always of one thread (a `.jtr` chunk is one
    /// thread's): the last answer is kept.
    #[inline]
    fn thread(&mut self, id: u64, time: u64) -> Option<u32> {
        if self.last_thread.0 == id {
            return self.last_thread.1;
        }
        self.thread_lookup(id, time)
    }

    #[inline(never)]
    fn thread_lookup(&mut self, id: u64, time: u64) -> Option<u32> {
        let ix = match self.syms.thread(id) {
            Some(ix) => ix,
            None => self.new_thread(id, time, &format!("thread#{id}")),
        };
        let found = self.syms.threads[ix as usize].included.then_some(ix);
        self.last_thread = (id, found);
        found
    }

    fn new_thread(&mut self, id: u64, time: u64, name: &str) -> u32 {
        // A thread (re)defined: the kept answer may name another.
        self.last_thread = (u64::MAX, None);
        let included = self.filter.thread_ok(name) && self.owns(id);
        let ix = self.syms.add_thread(ThreadInfo {
            id,
            name: name.to_string(),
            start: time,
            end: None,
            included,
            group: None,
        });
        let mut ts = ThreadState::default();
        if let Some(c) = self
            .part
            .as_ref()
            .and_then(|p| p.cut)
            .filter(|c| c.thread == id)
        {
            if c.after {
                ts.head = Some(cut::HeadState {
                    inherit: c.depth,
                    unknown: true,
                });
                self.head = Some((ix, cut::Head::default()));
            } else {
                ts.tail = true;
            }
        }
        self.threads.push(ts);
        ix
    }

    /// Counts a frame of method `m` opening on thread `t`: whether the method was open
    /// on `t` already (recursion), and where the frame is counted (true: in the
    /// thread's `shared` map). A method's frames are counted by its owner thread, the
    /// one that opened it while no other thread had it open: one index, no hashing,
    /// for nearly every call; a method open on another thread meanwhile is counted in
    /// this thread's own map.
    #[inline(always)]
    fn open(&mut self, t: u32, m: u32) -> (bool, bool) {
        let i = m as usize;
        if self.open.len() <= i {
            self.open.resize(i + 1, (NONE, 0));
        }
        let ts = &mut self.threads[t as usize];
        let o = &mut self.open[i];
        let own = if o.0 == t { o.1 } else { 0 };
        let shared = if ts.shared.is_empty() {
            0
        } else {
            ts.shared.get(&m).copied().unwrap_or(0)
        };
        if o.1 == 0 || o.0 == t {
            *o = (t, o.1 + 1);
            (own + shared > 0, false)
        } else {
            *ts.shared.entry(m).or_insert(0) += 1;
            (own + shared > 0, true)
        }
    }

    /// Pops the top frame of thread `t` as finished at `end`.
    #[inline(always)]
    fn pop<A: Analysis>(&mut self, t: u32, end: u64, open: bool, a: &mut A) {
        if end >= self.syms.window.0 {
            self.announce(t, a);
        }
        let ts = &mut self.threads[t as usize];
        let shown = ts.announced >= ts.stack.len();
        let Some(f) = ts.stack.pop() else { return };
        ts.announced = ts.announced.min(ts.stack.len());
        if f.in_shared {
            if let Some(n) = ts.shared.get_mut(&f.method) {
                *n = n.saturating_sub(1);
                if *n == 0 {
                    ts.shared.remove(&f.method);
                }
            }
        } else if let Some(o) = self.open.get_mut(f.method as usize) {
            o.1 = o.1.saturating_sub(1);
        }
        let end = end.max(f.start);
        let (incl, counted) = self.syms.clip(f.start, end);
        let ts = &mut self.threads[t as usize];
        if let Some(parent) = ts.stack.last_mut() {
            parent.child += incl;
        }
        let call = Call {
            method: f.method,
            ticket: f.ticket,
            start: f.start,
            end,
            incl,
            self_ns: incl.saturating_sub(f.child),
            recursive: f.recursive,
            by_exception: f.throwing,
            open,
            counted,
        };
        if f.inherited {
            if let Some((_, h)) = self.head.as_mut() {
                h.exits.push((call, f.child));
            }
        } else if shown {
            a.exit(&self.syms, t, &call, &ts.stack);
        }
    }

    /// Hands thread `t`'s frames not handed over yet to the analysis, outermost
    /// first. Under a window (`--from`), frames entered before it are handed over when
    /// their thread first reaches it (an event inside it, or a frame's end after its
    /// start), so that an answer never depends on calls that ended before the window:
    /// the same answer whether the trace is read whole or from the window's start.
    #[inline(always)]
    fn announce<A: Analysis>(&mut self, t: u32, a: &mut A) {
        let ts = &mut self.threads[t as usize];
        // Nearly always: the frame just pushed, alone.
        if ts.announced + 1 == ts.stack.len() {
            ts.announced += 1;
            self.totals.entries += 1;
            a.enter(&self.syms, t, &ts.stack);
        } else if ts.announced < ts.stack.len() {
            self.announce_all(t, a);
        }
    }

    #[inline(never)]
    fn announce_all<A: Analysis>(&mut self, t: u32, a: &mut A) {
        let ts = &mut self.threads[t as usize];
        while ts.announced < ts.stack.len() {
            ts.announced += 1;
            self.totals.entries += 1;
            a.enter(&self.syms, t, &ts.stack[..ts.announced]);
        }
    }

    /// Under a window with an end (`--to`), what happens after it is not read: the
    /// answer is the trace's as if it had ended there.
    #[inline]
    fn after(&self, time: u64) -> bool {
        time > self.syms.window.1
    }

    fn flush_exception<A: Analysis>(&mut self, t: u32, caught_in: Option<u32>, a: &mut A) {
        let Some(p) = self.threads[t as usize].exception.take() else {
            return;
        };
        if p.provisional {
            if let Some((_, h)) = self.head.as_mut() {
                h.first = Some((p, caught_in));
            }
            return;
        }
        if self.in_window(p.time) {
            self.announce(t, a);
            a.exception(&self.syms, &p.exception(t, caught_in));
        }
    }

    /// One event into the model: entries and exits (nearly every event) on their own
    /// short paths, the rest in [`Model::other`].
    #[inline]
    pub fn event<A: Analysis>(&mut self, ev: &Event, a: &mut A) {
        match *ev {
            Event::Entry {
                thread,
                method,
                ticket,
                time,
            } => self.entry(thread, method, ticket, time, a),
            Event::Exit {
                thread,
                ticket,
                time,
                ..
            } => self.exit(thread, ticket, time, a),
            _ => self.other(ev, a),
        }
    }

    /// A method entry: a frame opens.
    #[inline(always)]
    fn entry<A: Analysis>(&mut self, thread: u64, method: u64, ticket: u64, time: u64, a: &mut A) {
        if self.after(time) {
            return;
        }
        self.totals.last = self.totals.last.max(time);
        let Some(t) = self.thread(thread, time) else {
            return;
        };
        let m = self.syms.method_or_placeholder(method);
        let (recursive, in_shared) = self.open(t, m);
        let ts = &mut self.threads[t as usize];
        ts.stack.push(Frame {
            method: m,
            ticket,
            start: time,
            child: 0,
            line: 0,
            recursive,
            throwing: false,
            in_shared,
            inherited: false,
        });
        if ts.head.as_ref().is_some_and(|h| h.inherit > 0) {
            self.inherit(t);
            return;
        }
        if time >= self.syms.window.0 {
            self.announce(t, a);
        }
    }

    /// After a cut (see [`cut`]): the frame just pushed is one open at the cut, not
    /// handed to the analysis (its entry is counted before the cut).
    #[inline(never)]
    fn inherit(&mut self, t: u32) {
        let ts = &mut self.threads[t as usize];
        if let Some(h) = ts.head.as_mut() {
            h.inherit -= 1;
        }
        if let Some(f) = ts.stack.last_mut() {
            f.inherited = true;
        }
        ts.announced = ts.stack.len();
    }

    /// Whether thread `t`'s events are still those before a cut (read after it for
    /// the frames they leave open, not counted here).
    fn before_cut(&self, t: u32) -> bool {
        self.threads[t as usize]
            .head
            .as_ref()
            .is_some_and(|h| h.inherit > 0)
    }

    /// A method exit: the frame of `ticket` closes, mostly the innermost one.
    #[inline(always)]
    fn exit<A: Analysis>(&mut self, thread: u64, ticket: u64, time: u64, a: &mut A) {
        if self.after(time) {
            return;
        }
        self.totals.last = self.totals.last.max(time);
        let Some(t) = self.thread(thread, time) else {
            return;
        };
        let stack = &self.threads[t as usize].stack;
        if stack
            .last()
            .is_some_and(|f| f.ticket == ticket && !f.throwing)
        {
            self.pop(t, time, false, a);
        } else {
            self.exit_rare(t, ticket, time, a);
        }
    }

    /// An exit of the innermost frame left by an exception, of a frame below it (the
    /// frames above it close with it), or of none. When an exception still pending
    /// leaves the thread's last traced frame, it left the traced code: it is reported
    /// then, not after what the thread runs next (an uncaught-exception handler).
    #[inline(never)]
    fn exit_rare<A: Analysis>(&mut self, t: u32, ticket: u64, time: u64, a: &mut A) {
        let stack = &self.threads[t as usize].stack;
        // Repairs are counted inside the window only (under one).
        let counted = time >= self.syms.window.0;
        match stack.iter().rposition(|f| f.ticket == ticket) {
            Some(i) => {
                let above = (stack.len() - 1 - i) as u64;
                self.totals.inferred_exits += above * counted as u64;
                for _ in 0..=above {
                    self.pop(t, time, false, a);
                }
            }
            None => self.totals.mismatched_exits += counted as u64,
        }
        let ts = &self.threads[t as usize];
        if ts.stack.is_empty() && ts.exception.is_some() {
            self.flush_exception(t, None, a);
        }
    }

    /// Every event but entries and exits.
    #[inline(never)]
    fn other<A: Analysis>(&mut self, ev: &Event, a: &mut A) {
        match *ev {
            Event::Entry { .. } | Event::Exit { .. } => {}
            Event::Line {
                thread,
                method,
                line,
                time,
            } => {
                if self.after(time) {
                    return;
                }
                if let Some(t) = self.syms.thread(thread) {
                    let m = self.syms.method_or_placeholder(method);
                    if let Some(f) = self.threads[t as usize].stack.last_mut() {
                        if f.method == m {
                            f.line = line;
                        }
                    }
                    if self.syms.threads[t as usize].included && self.in_window(time) {
                        self.announce(t, a);
                        a.line(
                            &self.syms,
                            t,
                            m,
                            line,
                            time,
                            &self.threads[t as usize].stack,
                        );
                    }
                }
            }
            Event::Tag {
                thread,
                time,
                ref name,
                ref fields,
            } => {
                let Some(t) = self.thread(thread, time) else {
                    return;
                };
                let tag = Tag {
                    name: name.to_string(),
                    fields: fields.clone(),
                    time,
                };
                a.tag(&self.syms, t, &tag, &self.threads[t as usize].stack);
            }
            Event::ClassAnnotation {
                class,
                ref name,
                ref value,
            } => self.syms.add_class_annotation(class, name, value),
            Event::Throw {
                thread,
                obj,
                method,
                ticket,
                time,
            } => {
                if self.after(time) {
                    return;
                }
                let Some(t) = self.thread(thread, time) else {
                    return;
                };
                let m = self.syms.method_or_placeholder(method);
                let class = self.objects.get(&obj).copied();
                let ts = &mut self.threads[t as usize];
                let line = match ts.stack.iter_mut().rev().find(|f| f.ticket == ticket) {
                    Some(f) => {
                        f.throwing = true;
                        f.line
                    }
                    None => 0,
                };
                // Under a window, an exception passing through its start counts from
                // where it is first seen inside it (as a read from the start sees it).
                let ws = self.syms.window.0;
                let same = ts
                    .exception
                    .as_ref()
                    .is_some_and(|p| p.obj == obj && (p.time >= ws || time < ws));
                // The first throw after a cut: maybe the exception passing there.
                let provisional = ts
                    .head
                    .as_mut()
                    .is_some_and(|h| std::mem::take(&mut h.unknown));
                if !same {
                    // A new exception: the previous one left the traced code uncaught.
                    self.flush_exception(t, None, a);
                    self.threads[t as usize].exception = Some(Pending {
                        obj,
                        class,
                        thrown_in: m,
                        line,
                        time,
                        provisional,
                    });
                }
            }
            Event::Catch {
                thread,
                obj,
                method,
                ticket,
                time,
            } => {
                if self.after(time) {
                    return;
                }
                let Some(t) = self.thread(thread, time) else {
                    return;
                };
                let m = self.syms.method_or_placeholder(method);
                let ts = &mut self.threads[t as usize];
                if let Some(f) = ts.stack.iter_mut().rev().find(|f| f.ticket == ticket) {
                    f.throwing = false;
                }
                if ts.exception.as_ref().is_some_and(|p| p.obj == obj) {
                    self.flush_exception(t, Some(m), a);
                } else if ts.head.as_ref().is_some_and(|h| h.unknown) {
                    // After a cut: maybe the end of the exception passing there.
                    if let Some((_, h)) = self.head.as_mut() {
                        h.catches.push((obj, m));
                    }
                }
            }
            Event::Alloc {
                thread,
                obj,
                class,
                is_array,
                size,
                site_method,
                site_line,
                time,
            } => {
                if self.after(time) {
                    return;
                }
                let c = self.syms.class(class).unwrap_or(NONE);
                if c != NONE {
                    self.objects.insert(obj, c);
                }
                let Some(t) = self.thread(thread, time) else {
                    return;
                };
                if self.before_cut(t) {
                    return;
                }
                if !self.in_window(time) {
                    return;
                }
                let site = if site_method == 0 {
                    NONE
                } else {
                    self.syms.method_or_placeholder(site_method)
                };
                let alloc = Alloc {
                    class: c,
                    is_array,
                    size,
                    site,
                    line: site_line,
                    time,
                };
                self.announce(t, a);
                a.alloc(&self.syms, t, &alloc, &self.threads[t as usize].stack);
            }
            Event::ObjDef { obj, class } => {
                if let Some(c) = self.syms.class(class) {
                    self.objects.insert(obj, c);
                }
            }
            Event::ObjFree { obj } => {
                self.objects.remove(&obj);
            }
            Event::ContendedEnter {
                thread,
                obj,
                owner,
                time,
            } => {
                if self.after(time) {
                    return;
                }
                if let Some(t) = self.thread(thread, time) {
                    self.threads[t as usize].contending = Some((obj, time, owner));
                }
            }
            Event::ContendedEntered { thread, time, .. } => {
                if self.after(time) {
                    return;
                }
                let Some(t) = self.thread(thread, time) else {
                    return;
                };
                if let Some((obj, start, owner)) = self.threads[t as usize].contending.take() {
                    self.blocked(t, BlockKind::Contended, obj, owner, (start, time, false), a);
                }
            }
            Event::Wait { thread, obj, time } => {
                if self.after(time) {
                    return;
                }
                if let Some(t) = self.thread(thread, time) {
                    self.threads[t as usize].waiting = Some((obj, time));
                }
            }
            Event::Waited { thread, time, .. } => {
                if self.after(time) {
                    return;
                }
                let Some(t) = self.thread(thread, time) else {
                    return;
                };
                if let Some((obj, start)) = self.threads[t as usize].waiting.take() {
                    self.blocked(t, BlockKind::Wait, obj, 0, (start, time, false), a);
                }
            }
            // A split pass: the first worker counts the collections.
            Event::GcStart { .. } if self.part.as_ref().is_some_and(|p| p.worker != 0) => {}
            Event::GcStart { time } if !self.after(time) => self.gc_open = Some(time),
            Event::GcFinish { time } if !self.after(time) => {
                if let Some(start) = self.gc_open.take() {
                    self.totals.gcs += 1;
                    if self.syms.clip(start, time).1 {
                        a.gc(&self.syms, start, time);
                    }
                }
            }
            Event::ThreadStart { id, time, ref name } => {
                self.set_start(time);
                self.new_thread(id, time, name);
            }
            Event::GcStart { .. } | Event::GcFinish { .. } => {}
            // Kept after a window's end too: answers give threads' lifetimes.
            Event::ThreadEnd { id, time } => {
                if let Some(t) = self.syms.thread(id) {
                    self.syms.threads[t as usize].end = Some(time);
                }
            }
            Event::ClassDef { id, ref name } => self.syms.add_class(id, name),
            Event::MethodDef {
                id,
                class,
                ref name,
                ref signature,
            } => self.syms.add_method(id, class, name, signature),
            Event::TraceStart { time } => self.set_start(time),
            Event::Annotation {
                ref name,
                ref value,
            } => self
                .syms
                .trace
                .end_notes
                .push((name.to_string(), value.to_string())),
            Event::Jvm {
                ref name,
                ref value,
            } => self
                .syms
                .trace
                .jvm
                .push((name.to_string(), value.to_string())),
            Event::Process { .. } | Event::Agent { .. } | Event::AgentOption { .. } => {}
            Event::TraceEnd { time } => self.totals.end = Some(time),
            Event::Fact { fact, ref value } => self.syms.fact(fact, value),
        }
    }

    /// A thread blocked from `span.0` to `span.1`, still at the end if `span.2`.
    fn blocked<A: Analysis>(
        &mut self,
        t: u32,
        kind: BlockKind,
        obj: u64,
        owner: u64,
        span: (u64, u64, bool),
        a: &mut A,
    ) {
        let (start, end, open) = span;
        if !self.syms.clip(start, end).1 {
            return;
        }
        let b = Blocked {
            thread: t,
            kind,
            class: self.objects.get(&obj).copied(),
            site: self.threads[t as usize].stack.last().map(|f| f.method),
            owner: if owner == 0 {
                None
            } else {
                self.syms.thread(owner)
            },
            start,
            end,
            open,
        };
        // Inside the window: the thread's frames open since before it are handed over
        // first, so that the wait is seen inside the frame it happened in.
        self.announce(t, a);
        a.blocked(&self.syms, &b);
    }

    /// Closes what the trace left open: frames (reported as open, ending with their
    /// thread or the trace) and exceptions still propagating.
    pub fn finish<A: Analysis>(&mut self, a: &mut A) {
        let trace_end = self
            .totals
            .end
            .unwrap_or(self.totals.last)
            .max(self.totals.last);
        if self.totals.end.is_none() {
            self.totals.end = Some(trace_end);
        }
        for t in 0..self.threads.len() as u32 {
            let ts = &mut self.threads[t as usize];
            if ts.tail {
                // Before a cut: what is open there is the other side's to finish.
                let tail = cut::Tail {
                    frames: std::mem::take(&mut ts.stack),
                    pending: ts.exception.take(),
                };
                self.tail = Some((t, tail));
                continue;
            }
            self.flush_exception(t, None, a);
            let end = self.syms.threads[t as usize].end.unwrap_or(trace_end);
            let end = end.min(self.syms.window.1);
            // Still in `Object.wait` or waiting for a monitor when the trace ended: that
            // time is waiting too (up to the thread's end, as its open frames' is time).
            let ts = &mut self.threads[t as usize];
            let (waiting, contending) = (ts.waiting.take(), ts.contending.take());
            if let Some((obj, start)) = waiting {
                let span = (start, end.max(start), true);
                self.blocked(t, BlockKind::Wait, obj, 0, span, a);
            }
            if let Some((obj, start, owner)) = contending {
                let span = (start, end.max(start), true);
                self.blocked(t, BlockKind::Contended, obj, owner, span, a);
            }
            while !self.threads[t as usize].stack.is_empty() {
                self.totals.open_frames += 1;
                self.pop(t, end, true, a);
            }
        }
    }
}

#[cfg(test)]
pub(crate) mod tests;
