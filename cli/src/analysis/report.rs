//! The report's figures: per method, thread, allocation site, monitor and exception,
//! GC, and the slowest calls; aggregated as calls finish, in memory bounded by the
//! number of distinct methods, sites and threads.

use crate::model::filter::Pattern;
use crate::model::hist::Histogram;
use crate::model::idmap::FastMap;
use crate::model::{Alloc, Analysis, BlockKind, Blocked, Call, Exception, Frame, Symbols, NONE};
use serde::Serialize;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};

/// Slowest calls kept for the report (a bounded heap).
pub const SLOWEST: usize = 20;

/// Laid out by hand (`repr(C)`, a cache line aligned): what every exit reads and
/// writes (the counts and times, the last caller's edge, the histogram's threshold and
/// counts' pointer) is the first 64 bytes, one cache line; the rest is touched by few
/// exits. Rows are scattered over a few megabytes on a real program: each line an exit
/// touches is mostly a miss. (The longest call is the histogram's; a blocking method's
/// waiting is its self time, said at the end: neither is written per exit.)
#[derive(Default, Clone)]
#[repr(C, align(64))]
pub struct MethodAgg {
    pub calls: u64,
    /// Inclusive time of the outermost invocations (recursion counted once).
    pub total: u64,
    pub self_ns: u64,
    /// Inclusive time of every call (for the mean).
    pub sum: u64,
    /// The caller row of this method's last call and its edge in `Report::edges`
    /// (a method is mostly called again from where it was just called: no hashing).
    last_edge: LastEdge,
    hist: Histogram,
    pub open: u64,
    pub by_exception: u64,
    /// Monitor contention and `Object.wait` inside its frames (see [`MethodAgg::wait`]).
    monitor_wait: u64,
    /// A JDK method that blocks (see [`trace::waits::blocks`]).
    pub blocking: bool,
}

// The histogram's threshold and counts (its first 24 bytes) in the row's first line.
const _: () = assert!(std::mem::offset_of!(MethodAgg, hist) + 24 <= 64);

/// (caller row, index in `Report::edges`); none yet at first.
#[derive(Clone, Copy)]
struct LastEdge(u32, u32);

impl Default for LastEdge {
    fn default() -> Self {
        LastEdge(NONE, NONE)
    }
}

/// One caller edge: the calls of a method made from one caller.
#[derive(Default, Clone)]
struct EdgeAgg {
    calls: u64,
    /// Outermost invocations' inclusive time (as the method's `total`).
    total: u64,
    self_ns: u64,
}

#[derive(Default, Clone)]
struct ThreadAgg {
    calls: u64,
    traced: u64,
}

#[derive(Default, Clone)]
struct AllocAgg {
    count: u64,
    bytes: u64,
}

#[derive(Default, Clone)]
struct MonAgg {
    contended: u64,
    blocked: u64,
    max_blocked: u64,
    waits: u64,
    waited: u64,
}

#[derive(Default, Clone)]
struct ExcAgg {
    thrown: u64,
    caught: u64,
}

/// The aggregating analysis.
#[derive(Default)]
pub struct Report {
    /// Method index -> row (methods with the same key, e.g. one class loaded by two
    /// loaders, share a row).
    row_of: Vec<u32>,
    /// Key, a method index that names the row, figures.
    rows: Vec<(String, u32, MethodAgg)>,
    keys: HashMap<String, u32>,
    /// By thread index (dense).
    threads: Vec<ThreadAgg>,
    allocs: HashMap<(String, String), AllocAgg>,
    monitors: HashMap<(String, String), MonAgg>,
    exceptions: HashMap<(String, String, String), ExcAgg>,
    gc: Gc,
    slowest: BinaryHeap<Reverse<(u64, u64, u32, u32)>>,
    /// Once `slowest` is full: the shortest duration it holds (a shorter call cannot
    /// enter it: one comparison for nearly every call).
    slow_floor: u64,
    /// (callee row, caller row or NONE for a thread's first frame) -> its figures in
    /// `edges` (the last caller's edge is found in the callee's row first).
    edge_ix: FastMap<(u32, u32), u32>,
    edges: Vec<((u32, u32), EdgeAgg)>,
    /// Edges recently used, direct-mapped by their key's hash (callee row, caller row,
    /// index in `edges`): most of the edges `last_edge` misses, without hashing.
    edge_cache: Vec<(u32, u32, u32)>,
    /// Only each method's calls, self and total time (`jtrace diff`, which shows no
    /// more): no distribution, edges, threads or slowest calls.
    methods_only: bool,
    /// Only calls of the methods this names are kept among the slowest (`--method`,
    /// as it keeps the method table's rows).
    slow_methods: Option<Pattern>,
    /// By method index, whether `slow_methods` names the method: 0 not asked yet, 1
    /// yes, 2 no.
    slow_named: Vec<u8>,
}

/// Slots of `Report::edge_cache` (a power of two).
const EDGE_CACHE: usize = 1 << 14;

impl Report {
    /// A report of each method's calls, self and total time alone (see
    /// [`Report::methods`]): what `jtrace diff` compares, for the cost of little more
    /// than reading the trace.
    pub fn methods_only() -> Self {
        Report {
            methods_only: true,
            ..Report::default()
        }
    }

    /// A report whose slowest calls are only those of the methods `methods` names
    /// (all, for `None`).
    pub fn slowest_of(methods: Option<Pattern>) -> Self {
        Report {
            slow_methods: methods,
            ..Report::default()
        }
    }

    /// Whether calls of method `m` may be among the slowest.
    #[inline(never)]
    fn slow_named(&mut self, s: &Symbols, m: u32) -> bool {
        let Some(p) = &self.slow_methods else {
            return true;
        };
        let i = m as usize;
        if self.slow_named.len() <= i {
            self.slow_named.resize(i + 1, 0);
        }
        if self.slow_named[i] == 0 {
            let named = s.method(m).named(&|n| p.matches(n));
            self.slow_named[i] = if named { 1 } else { 2 };
        }
        self.slow_named[i] == 1
    }

    #[inline]
    fn row(&mut self, s: &Symbols, m: u32) -> usize {
        let i = m as usize;
        if let Some(&r) = self.row_of.get(i) {
            if r != NONE {
                return r as usize;
            }
        }
        self.new_row(s, m)
    }

    #[inline(never)]
    fn new_row(&mut self, s: &Symbols, m: u32) -> usize {
        let i = m as usize;
        if self.row_of.len() <= i {
            self.row_of.resize(i + 1, NONE);
        }
        if self.row_of[i] == NONE {
            let key = &s.method(m).key;
            let r = match self.keys.get(key) {
                Some(&r) => r,
                None => {
                    let r = self.rows.len() as u32;
                    let info = s.method(m);
                    let agg = MethodAgg {
                        blocking: trace::waits::blocks(&info.class, &info.name),
                        ..MethodAgg::default()
                    };
                    self.rows.push((key.clone(), m, agg));
                    self.keys.insert(key.clone(), r);
                    r
                }
            };
            self.row_of[i] = r;
        }
        self.row_of[i] as usize
    }

    #[inline]
    fn edge(&mut self, row: usize, caller: u32) -> &mut EdgeAgg {
        let ix = match self.rows[row].2.last_edge {
            LastEdge(c, ix) if c == caller && ix != NONE => ix,
            _ => self.edge_slow(row, caller),
        };
        &mut self.edges[ix as usize].1
    }

    #[inline(never)]
    fn edge_slow(&mut self, row: usize, caller: u32) -> u32 {
        if self.edge_cache.is_empty() {
            self.edge_cache = vec![(NONE, NONE, NONE); EDGE_CACHE];
        }
        let h = (row as u64 ^ ((caller as u64) << 20)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        let slot = (h >> (64 - EDGE_CACHE.trailing_zeros())) as usize;
        let ix = match self.edge_cache[slot] {
            (r, c, ix) if r == row as u32 && c == caller => ix,
            _ => {
                let ix = self.edge_index((row as u32, caller));
                self.edge_cache[slot] = (row as u32, caller, ix);
                ix
            }
        };
        self.rows[row].2.last_edge = LastEdge(caller, ix);
        ix
    }

    /// The edge (callee row, caller row)'s index in `edges`, created if new.
    fn edge_index(&mut self, key: (u32, u32)) -> u32 {
        match self.edge_ix.get(&key) {
            Some(&ix) => ix,
            None => {
                let ix = self.edges.len() as u32;
                self.edges.push((key, EdgeAgg::default()));
                self.edge_ix.insert(key, ix);
                ix
            }
        }
    }

    /// Keeps `call` (duration, start, thread, method) if it is among the [`SLOWEST`]:
    /// the largest tuples, whatever the order they come in. (An exit asks only when
    /// the call is not shorter than `slow_floor`.)
    #[inline(never)]
    fn slow_kept(&mut self, call: (u64, u64, u32, u32)) {
        if self.slowest.len() < SLOWEST || self.slowest.peek().is_some_and(|Reverse(m)| *m < call) {
            self.slowest.push(Reverse(call));
            if self.slowest.len() > SLOWEST {
                self.slowest.pop();
            }
            if self.slowest.len() == SLOWEST {
                self.slow_floor = self.slowest.peek().map_or(0, |Reverse(m)| m.0);
            }
        }
    }

    /// Per-method figures, one per key (`Class.method(signature)`) with a method index
    /// that names it, for `diff`.
    pub fn methods(&self) -> impl Iterator<Item = (u32, &MethodAgg)> {
        self.rows.iter().map(|(_, m, a)| (*m, a))
    }
}

impl MethodAgg {
    fn add(&mut self, o: &MethodAgg) {
        self.calls += o.calls;
        self.total += o.total;
        self.self_ns += o.self_ns;
        self.sum += o.sum;
        self.open += o.open;
        self.by_exception += o.by_exception;
        self.hist.merge(&o.hist);
        self.monitor_wait += o.monitor_wait;
    }

    /// Time of its self time spent waiting: monitor contention and `Object.wait` inside
    /// its frames, and the whole self time of a JDK method that blocks (sleep, park,
    /// blocking I/O: probed with `waits=on` even when the JDK is not traced).
    pub fn wait(&self) -> u64 {
        if self.blocking {
            self.self_ns
        } else {
            self.monitor_wait.min(self.self_ns)
        }
    }
}

/// Adds each of `from`'s figures to `into`'s of the same key.
fn add_all<K: std::hash::Hash + Eq, V: Default>(
    into: &mut HashMap<K, V>,
    from: HashMap<K, V>,
    add: impl Fn(&mut V, V),
) {
    for (k, v) in from {
        add(into.entry(k).or_default(), v);
    }
}

/// Rows by key, edges by their rows, threads by index, the rest by their names.
impl super::merge::Split for Report {
    fn fresh(&self) -> Self {
        Report {
            methods_only: self.methods_only,
            slow_methods: self.slow_methods.clone(),
            ..Report::default()
        }
    }

    /// Per method, caller edge and thread, from each exit and its caller; the rest
    /// from allocations, exceptions, monitors and collections as they come.
    fn exits_alone(&self) -> bool {
        true
    }

    fn merge(&mut self, o: Self) {
        let rows: Vec<u32> = o
            .rows
            .into_iter()
            .map(|(key, m, agg)| match self.keys.get(&key) {
                Some(&r) => {
                    self.rows[r as usize].2.add(&agg);
                    r
                }
                None => {
                    let r = self.rows.len() as u32;
                    self.keys.insert(key.clone(), r);
                    self.rows.push((key, m, agg));
                    r
                }
            })
            .collect();
        let row = |r: u32| if r == NONE { NONE } else { rows[r as usize] };
        for ((callee, caller), e) in o.edges {
            let ix = self.edge_index((row(callee), row(caller)));
            let mine = &mut self.edges[ix as usize].1;
            mine.calls += e.calls;
            mine.total += e.total;
            mine.self_ns += e.self_ns;
        }
        // Rows of methods this worker never saw finish are found by key from now on;
        // the rows' last edges are looked up again.
        self.row_of.clear();
        for (_, _, a) in &mut self.rows {
            a.last_edge = LastEdge::default();
        }
        self.edge_cache.clear();
        if self.threads.len() < o.threads.len() {
            self.threads.resize(o.threads.len(), ThreadAgg::default());
        }
        for (mine, t) in self.threads.iter_mut().zip(o.threads) {
            mine.calls += t.calls;
            mine.traced += t.traced;
        }
        add_all(&mut self.allocs, o.allocs, |e, a| {
            e.count += a.count;
            e.bytes += a.bytes;
        });
        add_all(&mut self.monitors, o.monitors, |e, m| {
            e.contended += m.contended;
            e.blocked += m.blocked;
            e.max_blocked = e.max_blocked.max(m.max_blocked);
            e.waits += m.waits;
            e.waited += m.waited;
        });
        add_all(&mut self.exceptions, o.exceptions, |e, x| {
            e.thrown += x.thrown;
            e.caught += x.caught;
        });
        self.gc.collections += o.gc.collections;
        self.gc.total_pause_ns += o.gc.total_pause_ns;
        self.gc.max_pause_ns = self.gc.max_pause_ns.max(o.gc.max_pause_ns);
        for Reverse(c) in o.slowest {
            self.slow_kept(c);
        }
    }
}

impl Analysis for Report {
    fn exit(&mut self, s: &Symbols, t: u32, c: &Call, parents: &[Frame]) {
        if !c.counted {
            return;
        }
        let r = self.row(s, c.method);
        let a = &mut self.rows[r].2;
        a.calls += 1;
        if !c.recursive {
            a.total += c.incl;
        }
        a.self_ns += c.self_ns;
        if self.methods_only {
            return;
        }
        a.sum += c.incl;
        // Rare: not written (nor their line read) otherwise.
        if c.open {
            a.open += 1;
        }
        if c.by_exception {
            a.by_exception += 1;
        }
        a.hist.add(c.incl);
        let caller = match parents.last() {
            Some(f) => self.row(s, f.method) as u32,
            None => NONE,
        };
        let e = self.edge(r, caller);
        e.calls += 1;
        e.self_ns += c.self_ns;
        if !c.recursive {
            e.total += c.incl;
        }
        let ti = t as usize;
        if self.threads.len() <= ti {
            self.threads.resize(ti + 1, ThreadAgg::default());
        }
        let th = &mut self.threads[ti];
        th.calls += 1;
        if parents.is_empty() {
            th.traced += c.incl;
        }
        let call = (c.incl, c.start, t, c.method);
        if (call.0 >= self.slow_floor || self.slowest.len() < SLOWEST)
            && self.slow_named(s, c.method)
        {
            self.slow_kept(call);
        }
    }

    fn alloc(&mut self, s: &Symbols, _t: u32, a: &Alloc, _stack: &[Frame]) {
        let key = (
            s.alloc_class(a.class, a.is_array),
            s.site(Some(a.site), a.line),
        );
        let e = self.allocs.entry(key).or_default();
        e.count += 1;
        e.bytes += a.size;
    }

    fn exception(&mut self, s: &Symbols, e: &Exception) {
        let class = e
            .class
            .map_or("?".to_string(), |c| s.class_name(c).to_string());
        let key = (
            class,
            s.site(Some(e.thrown_in), e.thrown_line),
            e.caught_in
                .map_or(String::new(), |m| s.method(m).frame.clone()),
        );
        let a = self.exceptions.entry(key).or_default();
        a.thrown += 1;
        a.caught += e.caught_in.is_some() as u64;
    }

    fn blocked(&mut self, s: &Symbols, b: &Blocked) {
        // Within the window, as every time of the answer.
        let d = s.clip(b.start, b.end).0;
        // Waiting inside the frame that blocked: part of its self time (the monitor's
        // own code is not traced).
        if let Some(site) = b.site.filter(|&m| m != NONE) {
            let r = self.row(s, site);
            self.rows[r].2.monitor_wait += d;
        }
        let class = b
            .class
            .map_or("?".to_string(), |c| s.class_name(c).to_string());
        let key = (class, s.site(b.site, 0));
        let m = self.monitors.entry(key).or_default();
        match b.kind {
            BlockKind::Contended => {
                m.contended += 1;
                m.blocked += d;
                m.max_blocked = m.max_blocked.max(d);
            }
            BlockKind::Wait => {
                m.waits += 1;
                m.waited += d;
            }
        }
    }

    fn gc(&mut self, s: &Symbols, start: u64, end: u64) {
        // Within the window, as every time of the answer.
        let d = s.clip(start, end).0;
        self.gc.collections += 1;
        self.gc.total_pause_ns += d;
        self.gc.max_pause_ns = self.gc.max_pause_ns.max(d);
    }
}

// ------------------------------------------------------------------ the JSON document

#[derive(Serialize, Clone, Debug)]
pub struct TraceInfo {
    pub file: String,
    /// The document ended with `</TRACE>`.
    pub complete: bool,
    /// Unix time of the trace's start (ns).
    pub start_unix_ns: u64,
    pub duration_ns: u64,
    pub threads: usize,
    pub calls: u64,
    pub open_frames: u64,
    pub window: Option<(u64, u64)>,
    pub warnings: Vec<String>,
}

#[derive(Serialize, Clone, Debug)]
pub struct MethodRow {
    /// The name for people (`Class.method(int, String)`, `--names`); `class`, `name` and
    /// `signature` keep the trace's (the JVM descriptor).
    pub method: String,
    pub class: String,
    pub name: String,
    pub signature: String,
    /// The JVM's name, `Class.method(descriptor)` with `<init>`/`<clinit>` (`name`
    /// keeps TPTP's `-init-`): as `callers[].jvm`, `graph` and `parquet` name it.
    pub jvm: String,
    pub calls: u64,
    pub total_ns: u64,
    pub self_ns: u64,
    /// Of `self_ns`, time spent waiting (monitor contention and waits in its frames;
    /// all of it for a JDK method that blocks); `work_ns` is the rest. Reports rank
    /// methods by `work_ns`, so an idle accept loop never tops them.
    pub wait_ns: u64,
    pub work_ns: u64,
    pub mean_ns: u64,
    pub max_ns: u64,
    /// Upper bound of the 99th percentile's histogram bucket (within ~4.4%).
    pub p99_ns: u64,
    /// `p99_ns` is the exact duration at the nearest rank (else its bucket's upper
    /// bound, within 1/16 above it: a method of more than about 200,000 calls whose
    /// p99 is not among its longest `model::hist::HELD`).
    pub p99_exact: bool,
    /// Calls still open when the trace ended.
    pub open: u64,
    /// Calls left by an exception.
    pub exception_exits: u64,
    /// Per caller: the calls it made, their total and exact self time (sums to the
    /// method's figures); `""` is a thread's first frame.
    pub callers: Vec<CallerRow>,
}

#[derive(Serialize, Clone, Debug)]
pub struct CallerRow {
    /// The caller's name for people (`--names`), "" for a thread's first frame.
    pub method: String,
    /// The caller as the JVM names it: `Class.method(descriptor)`, with `<init>`.
    pub jvm: String,
    pub calls: u64,
    pub total_ns: u64,
    pub self_ns: u64,
}

#[derive(Serialize, Clone, Debug)]
pub struct ThreadRow {
    pub id: u64,
    pub name: String,
    /// Relative to the trace's start.
    pub start_ns: u64,
    pub end_ns: Option<u64>,
    pub lifetime_ns: u64,
    pub calls: u64,
    /// Inclusive time of the thread's outermost traced calls.
    pub traced_ns: u64,
}

#[derive(Serialize, Clone, Debug)]
pub struct AllocRow {
    /// The class as the trace names it (dotted, `Outer$Inner`).
    pub class: String,
    /// The class for people (`--names`: `Outer.Inner`).
    pub readable: String,
    pub count: u64,
    pub bytes: u64,
    /// `Class.method:line` of the allocating bytecode.
    pub site: String,
}

#[derive(Serialize, Clone, Debug)]
pub struct ExceptionRow {
    /// The class as the trace names it (dotted, `Outer$Inner`).
    pub class: String,
    /// The class for people (`--names`: `Outer.Inner`).
    pub readable: String,
    pub thrown: u64,
    pub caught: u64,
    /// The first traced frame it passed through (`:line` with lines=on).
    pub thrown_in: String,
    /// The frame that caught it ("" if it left the traced code uncaught).
    pub caught_in: String,
}

#[derive(Serialize, Clone, Debug)]
pub struct MonitorRow {
    /// The class as the trace names it (dotted, `Outer$Inner`).
    pub class: String,
    /// The class for people (`--names`: `Outer.Inner`).
    pub readable: String,
    pub site: String,
    pub contended: u64,
    pub blocked_ns: u64,
    pub max_blocked_ns: u64,
    pub waits: u64,
    pub waited_ns: u64,
}

#[derive(Serialize, Clone, Debug, Default)]
pub struct Gc {
    pub collections: u64,
    pub total_pause_ns: u64,
    pub max_pause_ns: u64,
}

#[derive(Serialize, Clone, Debug)]
pub struct SlowCall {
    pub thread: String,
    /// The name for people (`--names`); `class`, `name` and `signature` keep the trace's.
    pub method: String,
    pub class: String,
    pub name: String,
    pub signature: String,
    pub start_ns: u64,
    pub duration_ns: u64,
}

/// Everything `report` shows; `--json` prints it as is.
#[derive(Serialize, Clone, Debug)]
pub struct ReportDoc {
    pub trace: TraceInfo,
    pub methods: Vec<MethodRow>,
    pub threads: Vec<ThreadRow>,
    pub allocations: Vec<AllocRow>,
    pub exceptions: Vec<ExceptionRow>,
    pub monitors: Vec<MonitorRow>,
    pub gc: Gc,
    pub slowest: Vec<SlowCall>,
}

impl Report {
    /// The document, methods filtered by `method_ok` (on `Class.method`), every list
    /// sorted (largest first) and cut to `top` rows when given.
    pub fn doc(
        &self,
        pass: &crate::pass::Pass,
        method_ok: &dyn Fn(&str) -> bool,
        top: Option<usize>,
    ) -> ReportDoc {
        let model = &pass.model;
        let s = &model.syms;
        let t = &model.totals;
        let start = t.start.unwrap_or(0);
        let rel = |x: u64| x.saturating_sub(start);
        let cut = |n: usize| top.map_or(n, |k| k.min(n));

        let mut callers: Vec<Vec<CallerRow>> = vec![Vec::new(); self.rows.len()];
        for &((callee, caller), ref e) in &self.edges {
            let named = self.rows.get(caller as usize).map(|r| s.method(r.1));
            callers[callee as usize].push(CallerRow {
                method: named.map_or(String::new(), |m| m.readable.clone()),
                jvm: named.map_or(String::new(), |m| {
                    crate::model::names::jvm(&m.class, &m.name, &m.signature)
                }),
                calls: e.calls,
                total_ns: e.total,
                self_ns: e.self_ns,
            });
        }
        for c in &mut callers {
            c.sort_by(|a, b| {
                (b.self_ns, b.calls, &a.method, &a.jvm)
                    .cmp(&(a.self_ns, a.calls, &b.method, &b.jvm))
            });
        }
        let mut methods: Vec<MethodRow> = Vec::new();
        for (row, (_, m, a)) in self.rows.iter().enumerate() {
            let info = s.method(*m);
            if !info.named(method_ok) {
                continue;
            }
            let p99 = a.hist.quantile(0.99);
            let max = a.hist.max();
            methods.push(MethodRow {
                method: info.readable.clone(),
                class: info.class.clone(),
                name: info.name.clone(),
                signature: info.signature.clone(),
                jvm: crate::model::names::jvm(&info.class, &info.name, &info.signature),
                calls: a.calls,
                total_ns: a.total,
                self_ns: a.self_ns,
                wait_ns: a.wait(),
                work_ns: a.self_ns - a.wait(),
                mean_ns: a.sum.checked_div(a.calls).unwrap_or(0),
                max_ns: max,
                p99_ns: p99.value.min(max),
                p99_exact: p99.exact,
                open: a.open,
                exception_exits: a.by_exception,
                callers: std::mem::take(&mut callers[row]),
            });
        }
        methods.sort_by(|a, b| {
            (b.work_ns, b.self_ns, b.total_ns, b.calls)
                .cmp(&(a.work_ns, a.self_ns, a.total_ns, a.calls))
                .then_with(|| {
                    (&a.class, &a.name, &a.signature).cmp(&(&b.class, &b.name, &b.signature))
                })
        });
        methods.truncate(cut(methods.len()));

        let trace_end = t.end.unwrap_or(t.last);
        let mut threads: Vec<ThreadRow> = s
            .threads
            .iter()
            .enumerate()
            .filter(|(_, th)| th.included)
            .map(|(i, th)| {
                let agg = self.threads.get(i).cloned().unwrap_or_default();
                ThreadRow {
                    id: th.id,
                    name: th.name.clone(),
                    start_ns: rel(th.start),
                    end_ns: th.end.map(rel),
                    lifetime_ns: th.end.unwrap_or(trace_end).saturating_sub(th.start),
                    calls: agg.calls,
                    traced_ns: agg.traced,
                }
            })
            .collect();
        threads.sort_by(|a, b| (b.traced_ns, b.calls, a.id).cmp(&(a.traced_ns, a.calls, b.id)));
        threads.truncate(cut(threads.len()));

        let mut allocations: Vec<AllocRow> = self
            .allocs
            .iter()
            .map(|((class, site), a)| AllocRow {
                readable: s.names.class(class),
                class: class.clone(),
                count: a.count,
                bytes: a.bytes,
                site: site.clone(),
            })
            .collect();
        allocations.sort_by(|a, b| {
            (b.bytes, b.count)
                .cmp(&(a.bytes, a.count))
                .then_with(|| (&a.class, &a.site).cmp(&(&b.class, &b.site)))
        });
        allocations.truncate(cut(allocations.len()));

        let mut exceptions: Vec<ExceptionRow> = self
            .exceptions
            .iter()
            .map(|((class, thrown_in, caught_in), a)| ExceptionRow {
                readable: s.names.class(class),
                class: class.clone(),
                thrown: a.thrown,
                caught: a.caught,
                thrown_in: thrown_in.clone(),
                caught_in: caught_in.clone(),
            })
            .collect();
        exceptions.sort_by(|a, b| {
            b.thrown.cmp(&a.thrown).then_with(|| {
                (&a.class, &a.thrown_in, &a.caught_in).cmp(&(&b.class, &b.thrown_in, &b.caught_in))
            })
        });
        exceptions.truncate(cut(exceptions.len()));

        let mut monitors: Vec<MonitorRow> = self
            .monitors
            .iter()
            .map(|((class, site), m)| MonitorRow {
                readable: s.names.class(class),
                class: class.clone(),
                site: site.clone(),
                contended: m.contended,
                blocked_ns: m.blocked,
                max_blocked_ns: m.max_blocked,
                waits: m.waits,
                waited_ns: m.waited,
            })
            .collect();
        monitors.sort_by(|a, b| {
            (b.blocked_ns + b.waited_ns, b.contended)
                .cmp(&(a.blocked_ns + a.waited_ns, a.contended))
                .then_with(|| (&a.class, &a.site).cmp(&(&b.class, &b.site)))
        });
        monitors.truncate(cut(monitors.len()));

        let mut slowest: Vec<SlowCall> = self
            .slowest
            .iter()
            .map(|Reverse((d, st, th, m))| SlowCall {
                thread: s.threads[*th as usize].name.clone(),
                method: s.method(*m).readable.clone(),
                class: s.method(*m).class.clone(),
                name: s.method(*m).name.clone(),
                signature: s.method(*m).signature.clone(),
                start_ns: rel(*st),
                duration_ns: *d,
            })
            .collect();
        slowest.sort_by(|a, b| (b.duration_ns, a.start_ns).cmp(&(a.duration_ns, b.start_ns)));
        slowest.truncate(cut(slowest.len()));

        let f = &model.filter;
        ReportDoc {
            trace: TraceInfo {
                file: pass.file.clone(),
                complete: pass.outcome.complete,
                start_unix_ns: start,
                duration_ns: trace_end.saturating_sub(start),
                threads: s.threads.iter().filter(|t| t.included).count(),
                calls: self.rows.iter().map(|(_, _, a)| a.calls).sum(),
                open_frames: t.open_frames,
                window: f.windowed().then(|| {
                    (
                        f.from.unwrap_or(0),
                        f.to.unwrap_or(trace_end.saturating_sub(start)),
                    )
                }),
                warnings: pass.outcome.warnings.clone(),
            },
            methods,
            threads,
            allocations,
            exceptions,
            monitors,
            gc: self.gc.clone(),
            slowest,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::filter::Filter;
    use crate::model::tests::{defs, entry, exit};
    use crate::model::Model;
    use crate::read::Event;

    /// `Report::methods_only` (what `diff` reads) has each method's calls, self and
    /// total time exactly as the whole report: recursion counted once in the total,
    /// an exit that closes two frames, a frame left open.
    #[test]
    fn methods_only_has_the_whole_reports_method_figures() {
        let mut evs = defs();
        // f { g { f { g {} } } (exit of the outer g closes the inner f too) } f (open)
        for (enter, m, t, time) in [
            (true, 1, 1, 10),
            (true, 2, 2, 20),
            (true, 1, 3, 25),
            (true, 2, 4, 30),
            (false, 2, 4, 45),
            (false, 2, 2, 70),
            (false, 1, 1, 100),
            (true, 1, 5, 110),
        ] {
            evs.push(if enter {
                entry(m, t, time)
            } else {
                exit(m, t, time)
            });
        }
        evs.push(Event::TraceEnd { time: 200 });
        let mut model = Model::new(Filter::default());
        let mut both = (Report::default(), Report::methods_only());
        for e in &evs {
            model.event(e, &mut both);
        }
        model.finish(&mut both);
        let figures = |r: &Report| -> Vec<(u32, u64, u64, u64)> {
            r.methods()
                .map(|(m, a)| (m, a.calls, a.self_ns, a.total))
                .collect()
        };
        let (whole, only) = both;
        assert_eq!(figures(&whole).len(), 2);
        assert_eq!(figures(&whole), figures(&only));
        // g: 15 (inner) and 50, total 50 (recursion counted once); f: 90, 45 (inner,
        // closed at 70 with the outer g) and 90 (open to the end), total 90 + 90.
        let mut calls_total: Vec<(u64, u64)> = figures(&whole).iter().map(|f| (f.1, f.3)).collect();
        calls_total.sort_unstable();
        assert_eq!(calls_total, [(2, 50), (3, 180)]);
    }
}
