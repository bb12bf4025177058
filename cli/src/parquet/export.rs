//! The [`Analysis`] that turns one pass over a trace into its Parquet tables: calls get
//! their ids, parents, paths and allocations as they start and finish; events and paths
//! are written as they come; methods, threads and the trace's row at the end. The
//! trace's id is chosen once, before the first row (the trace's uuid arrives in its
//! header, before any call), and every table and the directory get that same id.

use super::calls::{CallRow, NO_PARENT, OPEN, RETURN, UNWIND};
use super::id;
use super::order::Order;
use super::schema::{events, methods, paths, threads, trace};
use super::table::{text, Table};
use crate::model::idmap::{FastMap, Recent};
use crate::model::names;
use crate::model::{
    Alloc, Analysis, BlockKind, Blocked, Call, Exception, Frame, Model, Symbols, Tag, NONE,
};
use parquet::data_type::ByteArray;

/// One trace's export in progress.
pub struct Export {
    /// --trace-id, if given.
    given: Option<String>,
    /// The id from the file name, for a trace without a usable uuid.
    fallback: String,
    /// The trace's id, once chosen (see [`Export::fix_id`]).
    id: Option<ByteArray>,
    /// The calls, open and finished, and `calls.parquet`.
    order: Order,
    next_call: u64,
    /// Paths recently looked up past their parent's [`Kids`], by [`path_key`]: most
    /// are found there, where the map of all paths costs a hashed probe and mostly a
    /// cache miss.
    recent: Recent,
    /// Per path, the children last entered under it: a call's path is nearly always
    /// there, in a line that was read when its parent started (see
    /// [`Analysis::enter`]), where [`Export::recent`] costs a miss most of the time.
    kids: Shelves,
    /// method << 32 | (parent path + 1) → path id, of the outermost paths and of those
    /// pushed out of their parent's [`Kids`].
    path_ids: FastMap<u64, u32>,
    /// The last path's stack, for the next one's `paths.stack`.
    stack: Folded,
    paths: Table,
    events: Table,
    kinds: FastMap<&'static str, ByteArray>,
    /// Class names as values, by class index (exceptions, monitors) or with `[]`.
    class_text: FastMap<(u32, u8), ByteArray>,
    /// The id of the window open on each thread (`window=`, `keep=failed`), for
    /// `calls.window_id` (only the open ones: memory stays bounded by the threads).
    windows: FastMap<u32, i64>,
    /// The first write error (callbacks cannot return one).
    error: Option<String>,
}

/// Slots of the table of recent paths (16 bytes each: 1 MiB, held in the processor's
/// cache); four in unit tests, where keys then share slots all the time.
#[cfg(not(test))]
const RECENT_SLOTS: usize = 1 << 16;
#[cfg(test)]
const RECENT_SLOTS: usize = 4;

/// The last `paths.stack` value written, by frame: each frame's method and where its
/// name ends in the value. A new path's value shares with it the names of their common
/// frames (a path is its parent's and one more frame; paths made one after the other
/// are mostly near in the tree), so only the rest is made: no path's stack is ever
/// built whole (javac's average 1.7 KB, 1.5 GB over 890,000 paths).
struct Folded {
    frames: Vec<(u32, u32)>,
    rest: Vec<u8>,
    /// The last value's path id.
    last: u32,
}

impl Default for Folded {
    fn default() -> Folded {
        Folded {
            frames: Vec::new(),
            rest: Vec::new(),
            last: NONE,
        }
    }
}

impl Folded {
    /// `frames`' value (`Class.method;Class.method;...`), path `id` of parent path
    /// `parent`, as the bytes it keeps of the last one and the rest; it becomes the
    /// last one.
    fn next(&mut self, s: &Symbols, frames: &[Frame], id: u32, parent: u32) -> (usize, &[u8]) {
        // A path under the last one (a call going deeper into code not seen before)
        // shares all its frames, with no comparison.
        let under_last = parent == self.last && self.frames.len() + 1 == frames.len();
        let same = if under_last {
            self.frames.len()
        } else {
            self.frames
                .iter()
                .zip(frames)
                .take_while(|(a, b)| a.0 == b.method)
                .count()
        };
        self.last = id;
        // The common frames' names, and the `;` after them when both go on.
        let keep = match same {
            0 => 0,
            k => {
                self.frames[k - 1].1 as usize + (k < frames.len() && k < self.frames.len()) as usize
            }
        };
        let mut at = match same {
            0 => 0,
            k => self.frames[k - 1].1 as usize,
        };
        self.frames.truncate(same);
        self.rest.clear();
        for (i, f) in frames.iter().enumerate().skip(same) {
            if i > 0 {
                if at >= keep {
                    self.rest.push(b';');
                }
                at += 1;
            }
            let name = s.method(f.method).frame.as_bytes();
            self.rest.extend_from_slice(name);
            at += name.len();
            self.frames.push((f.method, at as u32));
        }
        (keep, &self.rest)
    }
}

/// The children of a path last entered under it, the latest first (methods, and their
/// paths, [`FILED`] or not; `NONE` in an empty place); one cache line. A path's
/// children are all here until a ninth comes, and the one it pushes out goes into
/// [`Export::path_ids`] (unless it is there): every child of a path is here or there.
#[derive(Clone, Copy)]
#[repr(C, align(64))]
struct Kids {
    methods: [u32; KIDS],
    paths: [u32; KIDS],
}

/// Children a path keeps with it.
const KIDS: usize = 8;

/// In [`Kids::paths`]: the child is in [`Export::path_ids`] too. (Path ids stay below
/// it: 2^31 paths would hold 8 GiB of [`Shelves`]' places alone, and their parents'
/// `Kids` many more.)
const FILED: u32 = 1 << 31;

impl Kids {
    const EMPTY: Kids = Kids {
        methods: [NONE; KIDS],
        paths: [NONE; KIDS],
    };

    /// `method`'s child (its path, with [`FILED`] or not).
    #[inline(always)]
    fn get(&self, method: u32) -> Option<u32> {
        let i = self.methods.iter().position(|&m| m == method)?;
        Some(self.paths[i])
    }

    /// Whether a child was ever pushed out (or is about to be, by the next one).
    #[inline(always)]
    fn full(&self) -> bool {
        self.methods[KIDS - 1] != NONE
    }

    /// `method`'s child `path` becomes the latest; the oldest, pushed out, is returned.
    #[inline(always)]
    fn put(&mut self, method: u32, path: u32) -> Option<(u32, u32)> {
        let out = self
            .full()
            .then_some((self.methods[KIDS - 1], self.paths[KIDS - 1]));
        self.methods.copy_within(..KIDS - 1, 1);
        self.paths.copy_within(..KIDS - 1, 1);
        self.methods[0] = method;
        self.paths[0] = path;
        out
    }
}

/// Every path's [`Kids`], in blocks of [`SHELF`] that stay where they are made (one
/// vector of them, grown, copied them all each time it doubled and touched their pages
/// twice: the allocator has no growing in place for 64-byte alignment). A path gets its
/// place the first time a child is put under it: most paths are leaves (on javac, kids
/// for every path were 58 MB, a third of the export's memory, and a new call's line read
/// ahead was mostly a leaf's, never used).
#[derive(Default)]
struct Shelves {
    blocks: Vec<Box<[Kids; SHELF]>>,
    /// By path id, where its kids are among the blocks' ([`NONE`]: none yet).
    place: Vec<u32>,
    /// Places taken.
    used: u32,
}

/// Paths' [`Kids`] a block holds (64 KiB).
const SHELF: usize = 1024;

impl Shelves {
    /// Paths made.
    fn len(&self) -> u32 {
        self.place.len() as u32
    }

    /// Path `path`'s kids (empty if it never had a child); none if there is no such path.
    #[inline(always)]
    fn get(&self, path: u32) -> Option<&Kids> {
        let at = *self.place.get(path as usize)?;
        if at == NONE {
            return Some(&Kids::EMPTY);
        }
        let at = at as usize;
        Some(&self.blocks[at / SHELF][at % SHELF])
    }

    /// Path `path`'s kids, given their place if they had none.
    #[inline(always)]
    fn get_mut(&mut self, path: u32) -> Option<&mut Kids> {
        let at = self.place.get_mut(path as usize)?;
        if *at == NONE {
            *at = self.used;
            if (self.used as usize).is_multiple_of(SHELF) {
                let block = vec![Kids::EMPTY; SHELF].into_boxed_slice();
                let Ok(block) = block.try_into() else {
                    unreachable!("a block of SHELF kids")
                };
                self.blocks.push(block);
            }
            self.used += 1;
        }
        let at = *at as usize;
        Some(&mut self.blocks[at / SHELF][at % SHELF])
    }

    /// The next path, with no kids yet.
    fn push(&mut self) {
        self.place.push(NONE);
    }
}

/// A path's key: its method and its parent path. The parent in the low bits: the
/// map's multiplicative hash spreads buckets by them, and a trace has few paths per
/// parent but many per method (with the method there, javac's 860,000 paths fell into
/// long chains per method).
#[inline(always)]
fn path_key(method: u32, parent: u32) -> u64 {
    ((method as u64) << 32) | parent.wrapping_add(1) as u64
}

fn rel(s: &Symbols, t: u64) -> i64 {
    t.saturating_sub(s.start) as i64
}

fn opt_id(v: u32) -> Option<i64> {
    (v != NONE).then_some(v as i64)
}

impl Export {
    /// `files(table)` names each table's file; `given` (--trace-id) and `fallback` (from
    /// the file name) as [`id::choose`] takes them.
    pub fn new(
        files: &dyn Fn(&str) -> std::path::PathBuf,
        limit: usize,
        given: Option<&str>,
        fallback: &str,
    ) -> Result<Export, String> {
        Ok(Export {
            given: given.map(str::to_string),
            fallback: fallback.to_string(),
            id: None,
            order: Order::new(&files("calls"), limit),
            next_call: 0,
            recent: Recent::with_slots(RECENT_SLOTS),
            kids: Shelves::default(),
            path_ids: FastMap::default(),
            stack: Folded::default(),
            paths: Table::create(&files("paths"), paths::COLUMNS)?,
            events: Table::create(&files("events"), events::COLUMNS)?,
            kinds: FastMap::default(),
            class_text: FastMap::default(),
            windows: FastMap::default(),
            error: None,
        })
    }

    /// Chooses the trace's id on the first call (from what the trace has said so far)
    /// and sets it as the `trace_id` of the tables written during the pass.
    fn fix_id(&mut self, s: &Symbols) -> ByteArray {
        if let Some(id) = &self.id {
            return id.clone();
        }
        let id = text(&id::choose(
            self.given.as_deref(),
            s.trace.uuid.as_deref(),
            &self.fallback,
        ));
        self.paths.set_const(&id);
        self.events.set_const(&id);
        self.order.set_id(&id);
        self.id = Some(id.clone());
        id
    }

    fn keep(&mut self, r: Result<(), String>) {
        if let Err(e) = r {
            self.error.get_or_insert(e);
        }
    }

    fn kind(&mut self, k: &'static str) -> ByteArray {
        self.kinds.entry(k).or_insert_with(|| text(k)).clone()
    }

    fn class(&mut self, s: &Symbols, class: u32, is_array: u8) -> ByteArray {
        self.class_text
            .entry((class, is_array))
            .or_insert_with(|| text(&s.alloc_class(class, is_array)))
            .clone()
    }

    /// The innermost open call on thread `t`.
    fn top(&self, t: u32) -> Option<i64> {
        self.order.stack(t).last().map(|o| o.call_id as i64)
    }

    /// The path of method `method` under path `parent` (`frames` its stack, `method`
    /// on top), new or not.
    #[inline(always)]
    fn child(&mut self, s: &Symbols, method: u32, parent: u32, frames: &[Frame]) -> u32 {
        let Some(k) = self.kids.get(parent) else {
            // An outermost path (no parent, no kids to keep it in).
            return self.path_of(s, method, parent, frames, true).0;
        };
        if let Some(p) = k.get(method) {
            return p & !FILED;
        }
        // A path none of whose children ever left its kids has no other children:
        // this one is new, and no table need be looked in.
        let (p, filed) = if k.full() {
            self.path_of(s, method, parent, frames, false)
        } else {
            (self.new_path(s, method, parent, frames, false), false)
        };
        let flag = if filed { FILED } else { 0 };
        if let Some((m, q)) = self
            .kids
            .get_mut(parent)
            .and_then(|k| k.put(method, p | flag))
        {
            if q & FILED == 0 {
                self.path_ids.insert(path_key(m, parent), q);
            }
        }
        p
    }

    /// The path of method `method` under path `parent` looked up (recently, or in
    /// [`Export::path_ids`]: then it is filed), or made (filed in it if `file`).
    #[inline(never)]
    fn path_of(
        &mut self,
        s: &Symbols,
        method: u32,
        parent: u32,
        frames: &[Frame],
        file: bool,
    ) -> (u32, bool) {
        let key = path_key(method, parent);
        if let Some(p) = self.recent.get(key) {
            return (p, false);
        }
        let found = self.path_ids.get(&key).copied();
        let (p, filed) = match found {
            Some(p) => (p, true),
            None => (self.new_path(s, method, parent, frames, file), file),
        };
        self.recent.put(key, p);
        (p, filed)
    }

    /// A new path: method `method` (on top of `frames`) under path `parent`, written to
    /// `paths`; filed in [`Export::path_ids`] if `file`.
    #[inline(never)]
    fn new_path(
        &mut self,
        s: &Symbols,
        method: u32,
        parent: u32,
        frames: &[Frame],
        file: bool,
    ) -> u32 {
        if self.id.is_none() {
            self.fix_id(s);
        }
        let id = self.kids.len();
        if file {
            self.path_ids.insert(path_key(method, parent), id);
        }
        self.kids.push();
        let (keep, rest) = self.stack.next(s, frames, id, parent);
        let p = &mut self.paths;
        p.int(paths::PATH_ID, id as i64);
        p.opt_int(paths::PARENT_PATH_ID, opt_id(parent));
        p.int(paths::METHOD_ID, method as i64);
        p.int(paths::DEPTH, frames.len() as i64 - 1);
        p.front(paths::STACK, keep, rest);
        let r = p.row();
        self.keep(r);
        id
    }

    #[allow(clippy::too_many_arguments)]
    fn event(
        &mut self,
        s: &Symbols,
        kind: &'static str,
        thread: Option<u32>,
        call: Option<i64>,
        time: i64,
        dur: Option<i64>,
        method: Option<u32>,
        line: u32,
        class: Option<ByteArray>,
        bytes: Option<u64>,
        peer: Option<u32>,
        catch: Option<u32>,
    ) {
        self.fix_id(s);
        let k = self.kind(kind);
        let e = &mut self.events;
        e.text(events::KIND, k);
        e.opt_int(events::THREAD_ID, thread.map(|t| t as i64));
        e.opt_int(events::CALL_ID, call);
        e.int(events::TIME_NS, time);
        e.opt_int(events::DUR_NS, dur);
        e.opt_int(events::METHOD_ID, method.and_then(opt_id));
        e.opt_int(events::LINE, (line > 0).then_some(line as i64));
        e.opt_text(events::CLASS, class);
        e.opt_int(events::BYTES, bytes.map(|b| b as i64));
        e.opt_int(events::PEER_THREAD_ID, peer.map(|p| p as i64));
        e.opt_int(events::CATCH_METHOD_ID, catch.map(|m| m as i64));
        let r = e.row();
        self.keep(r);
    }
}

impl Analysis for Export {
    fn enter(&mut self, s: &Symbols, t: u32, frames: &[Frame]) {
        let parent = self.order.stack(t).last().map_or(NONE, |o| o.path);
        let path = match frames.last() {
            Some(top) => self.child(s, top.method, parent, frames),
            None => NONE,
        };
        // The new call's own children, read now: its first child looks there, and by
        // then the line is in the cache (otherwise mostly not: 64 bytes a path that had
        // a child, tens of MB on javac). A leaf has none: only its place is read.
        std::hint::black_box(self.kids.get(path).map(|k| k.methods[0]));
        let call_id = self.next_call;
        self.next_call += 1;
        self.order.enter(t, call_id, path);
    }

    fn exit(&mut self, s: &Symbols, t: u32, c: &Call, parents: &[Frame]) {
        let exit = if c.open {
            OPEN
        } else if c.by_exception {
            UNWIND
        } else {
            RETURN
        };
        let row = |o: &super::order::Open, parent: Option<&super::order::Open>| CallRow {
            call_id: o.call_id as i64,
            parent_id: parent.map_or(NO_PARENT, |p| p.call_id as i64),
            thread: t as i64,
            method: c.method as i64,
            path: o.path as i64,
            depth: parents.len() as i64,
            start: rel(s, c.start),
            dur: c.incl as i64,
            self_ns: c.self_ns as i64,
            alloc_bytes: o.alloc_bytes as i64,
            alloc_count: o.alloc_count as i64,
            window: self.windows.get(&t).copied().unwrap_or(NO_PARENT),
            exit,
            recursive: c.recursive,
            exc: NONE,
        };
        let r = self.order.exit(t, row, &|e| s.class_name(e).to_string());
        self.keep(r);
    }

    fn alloc(&mut self, s: &Symbols, t: u32, a: &Alloc, _frames: &[Frame]) {
        let call = match self.order.top_mut(t) {
            Some(o) => {
                o.alloc_bytes += a.size;
                o.alloc_count += 1;
                Some(o.call_id as i64)
            }
            None => None,
        };
        let class = self.class(s, a.class, a.is_array);
        let site = (a.site != NONE).then_some(a.site);
        self.event(
            s,
            "alloc",
            Some(t),
            call,
            rel(s, a.time),
            None,
            site,
            a.line,
            Some(class),
            Some(a.size),
            None,
            None,
        );
    }

    fn exception(&mut self, s: &Symbols, e: &Exception) {
        let t = e.thread;
        let exc = e.class.unwrap_or(NONE);
        // The call it was thrown in: the first one it left (the innermost) running the
        // method it was thrown in; the others it only passed through.
        let thrower = self.order.caught(t, exc, e.thrown_in).map(|c| c as i64);
        let call = thrower.or_else(|| self.top(t));
        let class = e.class.map(|c| self.class(s, c, 0));
        self.event(
            s,
            "exception",
            Some(t),
            call,
            rel(s, e.time),
            None,
            Some(e.thrown_in),
            e.thrown_line,
            class,
            None,
            None,
            e.caught_in,
        );
    }

    fn blocked(&mut self, s: &Symbols, b: &Blocked) {
        let kind = match b.kind {
            BlockKind::Contended => "contended",
            BlockKind::Wait => "wait",
        };
        let call = self.top(b.thread);
        let class = b.class.map(|c| self.class(s, c, 0));
        self.event(
            s,
            kind,
            Some(b.thread),
            call,
            rel(s, b.start),
            Some(b.end.saturating_sub(b.start) as i64),
            b.site,
            0,
            class,
            None,
            b.owner,
            None,
        );
    }

    fn line(&mut self, s: &Symbols, t: u32, method: u32, line: u32, time: u64, stack: &[Frame]) {
        // The call it ran in: the innermost open call, when it runs the line's method
        // (a line of a method not entered in the trace belongs to no call of it).
        let call = match (self.top(t), stack.last()) {
            (Some(c), Some(f)) if f.method == method => Some(c),
            _ => None,
        };
        self.event(
            s,
            "line",
            Some(t),
            call,
            rel(s, time),
            None,
            Some(method),
            line,
            None,
            None,
            None,
            None,
        );
    }

    fn tag(&mut self, _s: &Symbols, t: u32, tag: &Tag, _stack: &[Frame]) {
        if tag.name != crate::model::windows::TAG {
            return;
        }
        match tag.get("event") {
            "start" => {
                self.windows
                    .insert(t, tag.get("id").parse().unwrap_or(NO_PARENT));
            }
            "end" => {
                self.windows.remove(&t);
            }
            _ => {}
        }
    }

    fn gc(&mut self, s: &Symbols, start: u64, end: u64) {
        self.event(
            s,
            "gc",
            None,
            None,
            rel(s, start),
            Some(end.saturating_sub(start) as i64),
            None,
            0,
            None,
            None,
            None,
            None,
        );
    }
}

/// Figures of a finished export.
pub struct Written {
    /// The id every table holds (the trace's directory).
    pub trace_id: String,
    pub calls: u64,
    /// Calls written in row groups while the trace was read.
    pub ahead: u64,
}

impl Export {
    /// Writes the tables that need the whole pass (calls, methods, threads, trace) and
    /// closes every file.
    pub fn finish(
        mut self,
        model: &Model,
        file: &str,
        complete: bool,
        files: &dyn Fn(&str) -> std::path::PathBuf,
    ) -> Result<Written, String> {
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        let s = &model.syms;
        let id = self.fix_id(s);
        let (calls_written, ahead) = self.order.finish(&|e| s.class_name(e).to_string())?;

        let mut m = Table::create(&files("methods"), methods::COLUMNS)?;
        m.set_const(&id);
        for (i, info) in s.methods.iter().enumerate() {
            m.int(methods::METHOD_ID, i as i64);
            // The JVM's method names (`<init>`), as in `paths.stack` and the report's `jvm`.
            let key = names::jvm(&info.class, &info.name, &info.signature);
            m.text(methods::METHOD_KEY, text(&key));
            m.text(methods::CLASS, text(&info.class));
            m.text(methods::METHOD, text(names::jvm_method_name(&info.name)));
            m.text(methods::SIGNATURE, text(&info.signature));
            m.opt_text(methods::SOURCE_FILE, info.source.as_deref().map(text));
            m.opt_int(methods::FIRST_LINE, info.first_line.map(i64::from));
            m.opt_text(methods::CLASS_LOADER, info.loader.as_deref().map(text));
            m.row()?;
        }
        m.close()?;

        let mut th = Table::create(&files("threads"), threads::COLUMNS)?;
        th.set_const(&id);
        for (i, info) in s.threads.iter().enumerate() {
            th.int(threads::THREAD_ID, i as i64);
            th.int(threads::THREAD_KEY, info.id as i64);
            th.text(threads::NAME, text(&info.name));
            th.int(threads::START_NS, rel(s, info.start));
            th.opt_int(threads::END_NS, info.end.map(|e| rel(s, e)));
            th.opt_text(threads::GROUP, info.group.as_deref().map(text));
            th.bool(threads::IS_VIRTUAL, info.is_virtual());
            th.row()?;
        }
        th.close()?;

        let totals = &model.totals;
        let info = &s.trace;
        let mut tr = Table::create(&files("trace"), trace::COLUMNS)?;
        tr.set_const(&id);
        tr.opt_text(trace::TRACE_UUID, info.uuid.as_deref().map(text));
        tr.text(trace::FILE, text(file));
        tr.opt_text(trace::HOST, info.host.as_deref().map(text));
        tr.opt_int(trace::PID, info.pid.map(|p| p as i64));
        tr.opt_text(trace::COMMAND, info.command.as_deref().map(text));
        tr.opt_text(
            trace::AGENT_OPTIONS,
            info.agent_options.as_deref().map(text),
        );
        tr.opt_text(
            trace::AGENT_VERSION,
            info.agent_version.as_deref().map(text),
        );
        tr.int(trace::START_UNIX_NS, s.start as i64);
        let end = totals.end.unwrap_or(totals.last);
        tr.int(trace::DURATION_NS, rel(s, end));
        tr.bool(trace::COMPLETE, complete);
        tr.int(trace::CALLS, calls_written as i64);
        tr.int(trace::THREADS, s.threads.len() as i64);
        tr.int(trace::METHODS, s.methods.len() as i64);
        tr.int(trace::OPEN_CALLS, totals.open_frames as i64);
        tr.int(trace::INFERRED_EXITS, totals.inferred_exits as i64);
        tr.int(trace::MISMATCHED_EXITS, totals.mismatched_exits as i64);
        tr.int(trace::GCS, totals.gcs as i64);
        let count = |name: &str| info.end_count(name).map(|v| v as i64);
        tr.opt_int(trace::DROPPED_RECORD_BYTES, count("droppedRecordBytes"));
        tr.opt_int(
            trace::UNDEFINED_METHOD_RECORDS,
            count("recordsOfUndefinedMethods"),
        );
        tr.opt_int(
            trace::UNKNOWN_THREAD_RECORDS,
            count("recordsOfUnknownThreads"),
        );
        for (column, property) in trace::JVM_FACTS {
            tr.opt_text(column, info.jvm(property).map(text));
        }
        tr.row()?;
        tr.close()?;

        self.paths.close()?;
        self.events.close()?;
        Ok(Written {
            trace_id: String::from_utf8_lossy(id.data()).into_owned(),
            calls: calls_written,
            ahead,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::filter::Filter;
    use crate::read::Event;
    use parquet::file::reader::{FileReader, SerializedFileReader};
    use parquet::record::Field;
    use std::collections::{HashMap, HashSet};
    use std::path::Path;

    /// A table's rows as column name → value (`None`: null).
    fn rows(file: &Path) -> Vec<HashMap<String, Option<i64>>> {
        let reader = SerializedFileReader::try_from(std::fs::File::open(file).unwrap()).unwrap();
        let mut out = Vec::new();
        for r in reader.get_row_iter(None).unwrap() {
            let mut row = HashMap::new();
            for (name, f) in r.unwrap().get_column_iter() {
                match f {
                    Field::Long(v) => row.insert(name.clone(), Some(*v)),
                    Field::Null => row.insert(name.clone(), None),
                    _ => None,
                };
            }
            out.push(row);
        }
        out
    }

    /// Two threads' calls in a random walk over four methods more than a path keeps
    /// children (recursion included: so paths' [`Kids`] overflow and push children out,
    /// found again later in `path_ids`), with the table of recent paths cut to four
    /// slots so that keys evict each other all the time, and row groups cut every few
    /// rows: every call's path is its parent call's
    /// path and its own method (`paths`' parent, method and depth), and no two paths are
    /// the same parent and method.
    #[test]
    fn every_call_gets_its_path_through_colliding_slots() {
        let dir = std::env::temp_dir().join(format!("jtrace-export-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let files = |t: &str| dir.join(format!("{t}.parquet"));
        let mut ex = Export::new(&files, 40, Some("t"), "f").unwrap();
        let mut model = Model::new(Filter::default());
        let mut time = 1_000;
        let feed = |ev: Event, model: &mut Model, ex: &mut Export| model.event(&ev, ex);
        feed(Event::TraceStart { time }, &mut model, &mut ex);
        feed(
            Event::ClassDef {
                id: 1,
                name: "p/C".into(),
            },
            &mut model,
            &mut ex,
        );
        const METHODS: u64 = KIDS as u64 + 4;
        for m in 1..=METHODS {
            let name = format!("m{m}");
            let def = Event::MethodDef {
                id: m,
                class: 1,
                name: name.into(),
                signature: "()V".into(),
            };
            feed(def, &mut model, &mut ex);
        }
        for t in 1..=2u64 {
            let name = format!("t{t}");
            feed(
                Event::ThreadStart {
                    id: t,
                    time,
                    name: name.into(),
                },
                &mut model,
                &mut ex,
            );
        }
        let mut stacks: Vec<Vec<(u64, u64)>> = vec![Vec::new(); 3];
        let (mut seed, mut ticket, mut calls) = (99u64, 0u64, 0u64);
        for step in 0..5_000 {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let r = seed >> 33;
            let t = 1 + r % 2;
            time += 1 + r % 7;
            let stack = &mut stacks[t as usize];
            if step < 4_500 && (stack.is_empty() || (r >> 3) % 5 < 3) && stack.len() < 5 {
                let method = 1 + (r >> 8) % METHODS;
                ticket += 1;
                calls += 1;
                stack.push((method, ticket));
                let ev = Event::Entry {
                    thread: t,
                    method,
                    ticket,
                    time,
                };
                feed(ev, &mut model, &mut ex);
            } else if let Some((method, ticket)) = stack.pop() {
                feed(
                    Event::Exit {
                        thread: t,
                        method,
                        ticket,
                        time,
                    },
                    &mut model,
                    &mut ex,
                );
            }
        }
        model.finish(&mut ex);
        assert!(
            (0..ex.kids.len()).any(|p| ex.kids.get(p).is_some_and(Kids::full)),
            "no path's kids overflowed"
        );
        let done = ex.finish(&model, "f", true, &files).unwrap();
        assert_eq!(done.calls, calls);
        assert!(done.ahead > 0, "row groups were written while reading");
        let paths: HashMap<i64, (Option<i64>, i64, i64)> = rows(&files("paths"))
            .into_iter()
            .map(|p| {
                let id = p["path_id"].unwrap();
                (
                    id,
                    (
                        p["parent_path_id"],
                        p["method_id"].unwrap(),
                        p["depth"].unwrap(),
                    ),
                )
            })
            .collect();
        let keys: HashSet<(Option<i64>, i64)> = paths.values().map(|p| (p.0, p.1)).collect();
        assert_eq!(keys.len(), paths.len(), "a path twice");
        let calls = rows(&files("calls"));
        let path_of: HashMap<i64, i64> = calls
            .iter()
            .map(|c| (c["call_id"].unwrap(), c["path_id"].unwrap()))
            .collect();
        for c in &calls {
            let (parent_path, method, depth) = paths[&c["path_id"].unwrap()];
            assert_eq!(Some(method), c["method_id"], "{c:?}");
            assert_eq!(Some(depth), c["depth"], "{c:?}");
            let parent = c["parent_id"].map(|p| path_of[&p]);
            assert_eq!(parent_path, parent, "{c:?}");
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}
