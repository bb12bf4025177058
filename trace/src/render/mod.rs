//! The TPTP XML renderer: turns definitions and per-thread record chunks into the TPTP XML document, deriving tickets, depths and counts.
//!
//! Invariants it maintains (see docs/ARCHITECTURE.md):
//! * definitions arrive on the same FIFO as chunks and are written when received, so
//!   every id is defined before an element uses it;
//! * each thread's records are replayed in order against that thread's open-frame
//!   stack: `ticket` counts up per thread, `stackDepth` is the stack size (clamped at
//!   32767, the xsd:short range), and an exit
//!   always closes the innermost frame (the renderer never emits a mismatched exit);
//! * times are converted with one fixed linear map and clamped so that they never go
//!   backwards within a thread;
//! * the document is closed exactly once, on `Msg::Finish` or when every sender is gone.

use crate::clock::Converter;
use crate::defs::{ClassDef, Def, MethodDef, Msg, ThreadDef};
pub use crate::header::Header;
use crate::idtable::IdTable;
use crate::record::{self, Reader, Rec};
use crate::xml::{Decimal, Padded, XmlOut};
pub use memory::{without_vm_thread, VM_THREAD_ID, VM_THREAD_NAME};
pub use output::Output;

/// A pre-formatted attribute run (always fits: ids are at most 10 digits each).
fn padded(text: &str) -> Padded<64> {
    Padded::new(text.as_bytes()).expect("attribute run fits 64 bytes")
}
use std::collections::{HashMap, HashSet};

mod memory;
pub mod names;
pub mod output;
mod resume;
mod sync;
use std::io::Write;

/// What the renderer reports when it is done.
#[derive(Debug, Default, Clone)]
pub struct Stats {
    /// Event elements written (method entries and exits, and what the other records
    /// became); for a `.jtr` written without rendering, the records it holds.
    pub events: u64,
    /// Elements written, `TRACE` included.
    pub elements: u64,
    pub bytes: u64,
    /// Exits that named no open frame of their thread (should be 0).
    pub mismatched_exits: u64,
    /// Frames closed because an outer frame returned or caught (a frame left
    /// without its own exit record, e.g. a constructor whose super() threw).
    pub inferred_exits: u64,
    /// Records of a thread the renderer had no definition of (should be 0).
    pub unknown_thread_records: u64,
    /// Entries naming a method id that was never defined (should be 0: a class's
    /// definitions reach the renderer before any record of its methods).
    pub undefined_method_records: u64,
    /// Exits, unwinds and catches of frames entered before the trace started (threads
    /// alive at its start): not written, as their entries are not in the document.
    pub earlier_frame_exits: u64,
    /// Each method's entries in this trace (method id, count), filled at the close:
    /// the agent carries them into later traces' `methodCount`.
    pub method_counts: Vec<(u32, u64)>,
    pub io_error: Option<String>,
}

/// An open frame.
#[derive(Clone, Copy)]
struct Frame {
    mid: u32,
    /// The last executable unit reported in this frame, or NO_UNIT.
    unit: u32,
    ticket: u64,
    /// `ticket`'s digits, for its exit.
    text: Decimal,
}

#[derive(Default)]
struct ThreadState {
    /// Open frames, innermost last.
    stack: Vec<Frame>,
    /// Time of the thread's pending monWait.
    wait_ns: Option<u64>,
    /// `<methodEntry threadIdRef="T" time="` and `<methodExit threadIdRef="T"`,
    /// ready to copy: the hot elements start the same way for every event of a thread.
    entry_prefix: Padded<64>,
    exit_prefix: Padded<64>,
    /// `<line threadId="T" time="`.
    line_prefix: Padded<64>,
    /// The last ticket given (0: none yet) and its digits.
    next_ticket: u64,
    ticket_text: Decimal,
    last_ns: u64,
    ended: bool,
    /// Alive before the trace started (see `Stats::earlier_frame_exits`).
    before_trace: bool,
    /// The VM ended this thread while it was still inside traced methods (the
    /// thread that calls System.exit gets its ThreadEnd just before VM death):
    /// its threadEnd is written at close, after runtimeShutdown.
    end_deferred: Option<u64>,
    /// Entries deeper than `MAX_STACK_DEPTH` (written with that depth), and the
    /// deepest: said in `traceEnd`.
    clamped: u64,
    deepest: u64,
}

/// How a frame is left (or, for Catch, where unwinding stops).
#[derive(Clone, Copy)]
enum Leave {
    Return,
    Unwind(u64),
    Catch(u64),
}

impl ThreadState {
    /// `ns`, or the thread's last time if that is later: a thread's times never go
    /// backwards.
    #[inline]
    fn clamp(&mut self, ns: u64) -> u64 {
        self.last_ns = self.last_ns.max(ns);
        self.last_ns
    }

    /// Opens a frame of `mid` (method `m`) at `ns`: its ticket, depth and methodEntry.
    #[inline(always)]
    fn enter<O: Output>(&mut self, out: &mut O, tid: u32, mid: u32, m: &MethodState, ns: u64) {
        self.next_ticket += 1;
        if O::PIECES {
            self.ticket_text.increment();
        }
        self.stack.push(Frame {
            mid,
            unit: NO_UNIT,
            ticket: self.next_ticket,
            text: if O::PIECES {
                self.ticket_text
            } else {
                Decimal::ZERO
            },
        });
        let depth = self.stack.len() as u64;
        if depth > MAX_STACK_DEPTH {
            self.clamped += 1;
            self.deepest = self.deepest.max(depth);
        }
        let pre = (&self.entry_prefix, &m.ids, &self.ticket_text);
        out.entry(tid, mid, self.next_ticket, depth, ns, pre);
    }

    /// The innermost frame, of `mid` (method `m`), returns at `ns` (clamped): its
    /// methodExit.
    #[inline(always)]
    fn ret<O: Output>(&mut self, out: &mut O, (tid, mid): (u32, u32), m: &MethodState, ns: u64) {
        let Some(f) = self.stack.pop() else {
            return;
        };
        let ns = self.clamp(ns);
        out.exit(tid, mid, f.ticket, ns, (&self.exit_prefix, &m.ids, &f.text));
    }
}

/// "No line reported yet in this frame."
const NO_UNIT: u32 = u32::MAX;

/// The largest `stackDepth` written: traceEvents.xsd types it `xsd:short`.
pub const MAX_STACK_DEPTH: u64 = i16::MAX as u64;

struct MethodState {
    cid: u32,
    line_numbers: Vec<(u32, u32)>,
    unit_lines: Vec<u32>,
    alloc_sites: Vec<u32>,
    /// ` methodIdRef="M" classIdRef="C" ticket="`, ready to copy.
    ids: Padded<64>,
    /// `" file_name="F" methodIdRef="M" ticket="` for `line` elements (lines=on).
    line_tail: Box<[u8]>,
}

#[derive(Default)]
struct ClassState {
    source: String,
    methods: Vec<u32>,
}

/// The collection whose gcFinish is not written yet (frees reported after it are
/// written inside its bracket; it closes at the next gcStart or at the end).
#[derive(Default)]
struct GcState {
    open: bool,
    finish: Option<u64>,
    heap: Option<(u64, u64)>,
    /// The collector's thread id (0 until the first collection defines it) and the
    /// time of its last element: gcStart/gcFinish name it (see `memory::gc_start`).
    tid: u32,
    last_ns: u64,
}

/// The thread that stands for the virtual machine where a class is defined before its
/// loading thread can be named (see `memory::vm_thread`).
#[derive(Default)]
struct VmThread {
    defined: bool,
    /// The time of its last element: its times never go back.
    last_ns: u64,
}

pub struct Renderer<O: Output> {
    out: O,
    conv: Converter,
    threads: IdTable<ThreadState>,
    /// Indexed by method id (ids are dense from 1).
    /// Indexed by method id. Boxed: ids are never reused, so the table keeps a slot
    /// for every method ever defined (unloaded ones too, as None), and a pointer-sized
    /// slot keeps loader churn (80,000 loaders) to megabytes, not tens of them.
    methods: IdTable<Box<MethodState>>,
    /// Each defined method's entries so far (its `methodCount`), by method id: beside
    /// `methods`, not in it, so that counting an entry reads no method's boxed state
    /// (with typed events nothing else of it is read; on javac's 10,000 methods that
    /// miss held 28% of `Renderer::chunk`'s samples).
    counts: IdTable<u64>,
    classes: HashMap<u32, ClassState>,
    /// Objects defined (objAlloc/objDef) and not freed.
    live_objects: HashSet<u64>,
    gc: GcState,
    vm: VmThread,
    /// Contended enters waiting for their owner: (thread, monitor, time).
    pending_enters: Vec<(u32, u64, u64)>,
    /// Thread ends held back while a contended enter waits for its owner.
    held_ends: Vec<(u32, u64)>,
    header_trace_id: String,
    header_agent_id: String,
    gc_thread_id: u32,
    exceptions: bool,
    /// Classes left untouched by the rewriter: (name, why).
    untraced: Vec<(String, String)>,
    /// Methods of traced classes rewritten with less than asked: (class, what).
    partly: Vec<(String, String)>,
    instrumented_classes: u64,
    /// Extra traceEnd annotations (e.g. `recordingCutShort` from a `.jtr` cut short).
    notes: Vec<(&'static str, u64)>,
    /// The agent's own traceEnd annotations, from `Finish` (windows seen and kept).
    agent_notes: Vec<(String, u64)>,
    stats: Stats,
    closed: bool,
    /// Invocations per method made outside this trace (from the finish).
    count_base: HashMap<u32, u64>,
    /// Sum over methods of methodCount minus this trace's entries.
    outside_counts: u64,
    /// The finish is VM death (runtimeShutdown written), not `jtrace stop`.
    shutdown: bool,
    /// Threads being resumed in the middle of their records (see `resume`).
    rebuilt: HashMap<u32, resume::Rebuilt>,
}

impl<W: Write> Renderer<XmlOut<W>> {
    /// The TPTP XML document, written to `sink`.
    pub fn new(sink: W, header: &Header, conv: Converter) -> Self {
        Renderer::with_output(XmlOut::new(sink), header, conv)
    }

    pub fn sink_mut(&mut self) -> &mut W {
        self.out.sink_mut()
    }

    /// The sink, after `finish` (or `handle` of a finish message) closed the document.
    pub fn into_sink(self) -> W {
        self.out.into_sink()
    }
}

impl<O: Output> Renderer<O> {
    /// The output, after the document was closed.
    pub fn into_output(self) -> O {
        self.out
    }

    /// The replay of `header`'s session into any output (XML, typed events).
    pub fn with_output(out: O, header: &Header, conv: Converter) -> Self {
        let mut w = Renderer {
            out,
            conv,
            threads: IdTable::default(),
            methods: IdTable::default(),
            counts: IdTable::default(),
            classes: HashMap::new(),
            live_objects: HashSet::new(),
            gc: GcState::default(),
            vm: VmThread::default(),
            pending_enters: Vec::new(),
            held_ends: Vec::new(),
            header_trace_id: header.trace_id.clone(),
            header_agent_id: header.agent_id.clone(),
            gc_thread_id: header.gc_thread_id,
            exceptions: header.exceptions,
            untraced: Vec::new(),
            partly: Vec::new(),
            instrumented_classes: 0,
            notes: Vec::new(),
            agent_notes: Vec::new(),
            stats: Stats::default(),
            closed: false,
            count_base: HashMap::new(),
            outside_counts: 0,
            shutdown: true,
            rebuilt: HashMap::new(),
        };
        w.header(header);
        w
    }

    fn header(&mut self, h: &Header) {
        let o = &mut self.out;
        o.prolog();
        o.open("TRACE");
        o.start_children();
        o.open("node");
        o.str("nodeId", &h.node_id);
        o.str("hostname", &h.hostname);
        o.str("ipaddress", &h.ipaddress);
        o.int("timezone", h.timezone_minutes_west);
        o.time("time", h.boot_ns);
        o.close();
        o.open("processCreate");
        o.str("processId", &h.process_id);
        o.str("name", &h.process_name);
        o.num("pid", h.pid as u64);
        o.str("nodeIdRef", &h.node_id);
        o.time("time", h.process_start_ns);
        o.str("application_executable", &h.command_line);
        o.close();
        o.open("agentCreate");
        o.str("agentId", &h.agent_id);
        o.str("processIdRef", &h.process_id);
        o.str("agentName", "jtrace");
        o.str("agentParameters", &h.agent_parameters);
        o.str("version", &h.agent_version);
        o.time("time", h.start_ns);
        close_annotated(o, "agentCreate", &h.jvm);
        o.open("traceStart");
        o.str("traceId", &h.trace_id);
        o.str("agentIdRef", &h.agent_id);
        o.time("time", h.start_ns);
        o.close();
        for (k, v) in &h.options {
            o.open("option");
            o.str("key", k);
            o.str("value", v);
            o.close();
        }
        for (pattern, generic, mode) in &h.filters {
            o.open("filter");
            o.str("pattern", pattern);
            o.str("genericPattern", generic);
            o.str("mode", mode);
            o.close();
        }
    }

    /// Converts a tick for thread `tid`, never earlier than that thread's last time.
    fn stamp(&mut self, tid: u32, t: u64) -> u64 {
        let ns = self.conv.to_unix_ns(t);
        match self.threads.get_mut(tid) {
            Some(ts) => ts.clamp(ns),
            None => ns,
        }
    }

    /// Renders one message; false once the document is closed. Chunks are handed to
    /// `recycle` when rendered (the agent reuses their memory).
    pub fn handle(&mut self, msg: Msg, mut recycle: impl FnMut(Vec<u8>)) -> bool {
        match msg {
            Msg::Defs(defs) => {
                for d in defs {
                    self.def(d);
                }
            }
            Msg::Chunk { tid, data } => {
                self.chunk(tid, &data);
                recycle(data);
            }
            Msg::Chunks(chunks) => {
                for (tid, data) in chunks {
                    self.chunk(tid, &data);
                    recycle(data);
                }
            }
            Msg::Mark(_) => {}
            Msg::Finish {
                t,
                tid,
                dropped_bytes,
                shutdown,
                count_base,
                notes,
            } => {
                self.count_base = count_base.into_iter().collect();
                self.agent_notes = notes;
                self.shutdown = shutdown;
                self.finish(t, tid, dropped_bytes);
                return false;
            }
        }
        true
    }

    /// Renders one record chunk of thread `tid` read in place (what `handle` does with
    /// a `Msg::Chunk`, without the message: a `.jtr` reader hands the block's own bytes).
    pub fn handle_chunk(&mut self, tid: u32, data: &[u8]) {
        self.chunk(tid, data);
    }

    fn def(&mut self, d: Def) {
        match d {
            Def::Untraced(name, why) => self.untraced.push((name, why)),
            // Once per method, though a class retransformed (a trace started with other
            // filters) is rewritten again.
            Def::PartlyTraced(name, what) => {
                if !self.partly.iter().any(|(n, w)| *n == name && *w == what) {
                    self.partly.push((name, what));
                }
            }
            Def::Object(o) => self.obj_def(o),
            Def::Thread(t) => self.thread_def(t),
            Def::Class(c) => self.class_def(c),
            Def::Method(m) => self.method_def(m),
            Def::Tag(t) => self.tag(t),
        }
    }

    /// `<tag name="NAME" value="{JSON}"/>`: TPTP's name/value element, the value a JSON
    /// object of the thread, the time and the application's key/value pairs
    /// (docs/TRACE_FORMAT.md, "Tags"). A tag of a thread the trace never defined is
    /// dropped (nothing may name an undefined thread).
    fn tag(&mut self, t: crate::defs::TagDef) {
        if !self.threads.contains(t.tid) {
            return;
        }
        let ns = self.stamp(t.tid, t.t);
        let mut v = format!(
            "{{\"threadIdRef\":{},\"time\":\"{}.{:09}\"",
            t.tid,
            ns / 1_000_000_000,
            ns % 1_000_000_000
        );
        for (k, val) in &t.fields {
            v.push(',');
            json_str(&mut v, k);
            v.push(':');
            json_str(&mut v, val);
        }
        v.push('}');
        let o = &mut self.out;
        o.open("tag");
        o.str("name", &t.name);
        o.str("value", &v);
        o.close();
    }

    fn thread_def(&mut self, t: ThreadDef) {
        self.threads.insert(
            t.tid,
            ThreadState {
                entry_prefix: padded(&format!("<methodEntry threadIdRef=\"{}\" time=\"", t.tid)),
                exit_prefix: padded(&format!("<methodExit threadIdRef=\"{}\"", t.tid)),
                line_prefix: padded(&format!("<line threadId=\"{}\" time=\"", t.tid)),
                before_trace: t.before_trace,
                ..ThreadState::default()
            },
        );
        let ns = self.stamp(t.tid, t.t);
        let o = &mut self.out;
        o.open("threadStart");
        o.num("threadId", t.tid as u64);
        o.time("time", ns);
        o.str("threadName", &t.name);
        o.str("groupName", &t.group);
        o.str("parentName", &t.parent);
        o.num("objIdRef", t.obj);
        o.close();
    }

    fn class_def(&mut self, c: ClassDef) {
        self.instrumented_classes += c.instrumented as u64;
        self.classes.insert(
            c.cid,
            ClassState {
                source: c.source.clone(),
                methods: Vec::new(),
            },
        );
        // A class the trace names before its loading thread can be named (a thread's
        // own class, the classes defined again when a trace starts in a running JVM)
        // is filed under the VM's thread.
        let (tid, ns) = if c.tid != 0 {
            (c.tid, self.stamp(c.tid, c.t))
        } else {
            self.vm_thread(self.conv.to_unix_ns(c.t))
        };
        let o = &mut self.out;
        o.open("classDef");
        o.str("name", &names::class_name(&c.name));
        o.str("sourceName", &c.source);
        o.num("classId", c.cid as u64);
        o.num("threadIdRef", tid as u64);
        o.time("time", ns);
        o.num("numInterfaces", c.interfaces.len() as u64);
        o.str("interfaceNames", &names::class_list(&c.interfaces));
        o.str("superclass", &names::class_name(&c.superclass));
        o.str("classLoader", &names::class_name(&c.loader));
        o.str("access", &class_access(c.access));
        o.num("numStaticFields", c.static_fields as u64);
        o.num("numMethods", c.num_methods as u64);
        o.num("numInstanceFields", c.instance_fields as u64);
        o.num("objIdRef", 0);
        close_annotated(o, "classDef", &c.annotations);
    }

    fn method_def(&mut self, m: MethodDef) {
        let idx = m.mid;
        let has_lines = !m.unit_lines.is_empty();
        self.counts.insert(idx, 0);
        self.methods.insert(
            idx,
            Box::new(MethodState {
                cid: m.cid,
                line_numbers: m.line_numbers,
                unit_lines: m.unit_lines,
                alloc_sites: m.alloc_sites,
                line_tail: if !has_lines {
                    Box::default()
                } else {
                    let file = self
                        .classes
                        .get(&m.cid)
                        .map(|c| c.source.as_str())
                        .unwrap_or("");
                    let mut tail = b"\" file_name=\"".to_vec();
                    crate::xml::escape_into(&mut tail, file);
                    tail.extend_from_slice(
                        format!("\" methodIdRef=\"{}\" ticket=\"", m.mid).as_bytes(),
                    );
                    tail.into_boxed_slice()
                },
                ids: padded(&format!(
                    " methodIdRef=\"{}\" classIdRef=\"{}\" ticket=\"",
                    m.mid, m.cid
                )),
            }),
        );
        if let Some(c) = self.classes.get_mut(&m.cid) {
            c.methods.push(m.mid);
        }
        let o = &mut self.out;
        o.open("methodDef");
        o.str("name", names::method_name(&m.name));
        o.str("signature", &m.signature);
        if let Some((s, e)) = m.lines {
            o.num("startLineNumber", s as u64);
            o.num("endLineNumber", e as u64);
        }
        o.num("methodId", m.mid as u64);
        o.num("classIdRef", m.cid as u64);
        o.str("visibility", visibility(m.access));
        o.boolean("isNative", m.access & 0x0100 != 0);
        o.boolean("isAbstract", m.access & 0x0400 != 0);
        o.boolean("isStatic", m.access & 0x0008 != 0);
        o.boolean("isSynchronized", m.access & 0x0020 != 0);
        o.str("exceptions", &names::class_list(&m.exceptions));
        o.close();
    }

    fn chunk(&mut self, tid: u32, data: &[u8]) {
        if tid != 0 && !self.threads.contains(tid) {
            self.stats.unknown_thread_records += Reader::new(data).count() as u64;
            return;
        }
        let mut pos = 0;
        while pos < data.len() {
            // Entries and returns are nearly all records: replayed in a run.
            pos = self.calls(tid, data, pos);
            if pos >= data.len() {
                break;
            }
            // What the run stopped at: any record, replayed one by one.
            if let Some((tag, mid, t)) = record::entry_or_exit(&data[pos..]) {
                pos += record::ENTRY_OR_EXIT_LEN;
                self.stats.events += 1;
                if tag == record::TAG_ENTRY {
                    self.entry(tid, mid, t);
                } else {
                    self.leave(tid, mid, t, Leave::Return);
                }
                continue;
            }
            let mut reader = Reader::new(&data[pos..]);
            let Some(rec) = reader.next() else {
                break;
            };
            pos += reader.position();
            // Events are the elements these records become: a line record on the
            // frame's current line, an allocation made on the VM's behalf, heap
            // figures or a monitor's owner write none of their own.
            let written = self.out.elements();
            match rec {
                Rec::Entry { mid, t } => self.entry(tid, mid, t),
                Rec::Exit { mid, t } => self.leave(tid, mid, t, Leave::Return),
                Rec::ExitExc { mid, obj, t } => self.leave(tid, mid, t, Leave::Unwind(obj)),
                Rec::Catch { mid, obj, t } => self.leave(tid, mid, t, Leave::Catch(obj)),
                Rec::ThreadEnd { t } => self.thread_end(tid, t),
                Rec::InitDone { t } => self.simple(tid, "runtimeInitDone", t),
                Rec::Alloc {
                    obj,
                    cid,
                    is_array,
                    size,
                    mid,
                    loc,
                    t,
                } => self.alloc(tid, obj, cid, is_array, size, (mid, loc), t),
                Rec::GcStart { t } => self.gc_start(t),
                Rec::GcFinish { t } => self.gc_finish(t),
                Rec::Heap { total, used } => self.gc.heap = Some((total, used)),
                Rec::ObjFree { obj, t } => self.obj_free(obj, t),
                Rec::ClassUnload { cid, t } => self.class_unload(cid, t),
                Rec::MonEnter { obj, t } => self.mon_enter(tid, obj, t),
                Rec::MonOwner { owner } => self.mon_owner(tid, owner),
                Rec::MonEntered { obj, t } => self.mon_simple(tid, "monContendedEntered", obj, t),
                Rec::MonWait { obj, timeout, t } => self.mon_wait(tid, obj, timeout, t),
                Rec::MonWaited { obj, timed_out, t } => self.mon_waited(tid, obj, timed_out, t),
                Rec::Line { mid, unit, t } => self.line(tid, mid, unit, t),
            }
            self.stats.events += self.out.elements() - written;
        }
    }

    /// Replays the entries and returns of thread `tid` from `data[pos..]` (nearly every
    /// record), with the thread looked up once: stops at the first other record, or
    /// one that is not that simple (an undefined method, an exit of another frame than
    /// the innermost), which `chunk` then replays on its own. Returns where it stopped.
    /// What `entry` and `fast_return` do, record by record (the same
    /// `ThreadState::enter` and `ret`).
    fn calls(&mut self, tid: u32, data: &[u8], mut pos: usize) -> usize {
        let Some(ts) = self.threads.get_mut(tid) else {
            return pos;
        };
        let (methods, counts, out, conv) =
            (&self.methods, &mut self.counts, &mut self.out, self.conv);
        let start = pos;
        while let Some((tag, mid, t)) = record::entry_or_exit(&data[pos..]) {
            let Some(m) = methods.get(mid) else {
                break;
            };
            if tag == record::TAG_ENTRY {
                if let Some(c) = counts.get_mut(mid) {
                    *c += 1;
                }
                let ns = ts.clamp(conv.to_unix_ns(t));
                ts.enter(out, tid, mid, m, ns);
            } else {
                if ts.stack.last().is_none_or(|f| f.mid != mid) {
                    break;
                }
                ts.ret(out, (tid, mid), m, conv.to_unix_ns(t));
            }
            pos += record::ENTRY_OR_EXIT_LEN;
        }
        self.stats.events += ((pos - start) / record::ENTRY_OR_EXIT_LEN) as u64;
        pos
    }

    fn cid_of(&self, mid: u32) -> Option<u32> {
        self.methods.get(mid).map(|m| m.cid)
    }

    /// methodEntry: the hottest element, written from pre-formatted pieces.
    fn entry(&mut self, tid: u32, mid: u32, t: u64) {
        let Some(m) = self.methods.get(mid) else {
            self.stats.undefined_method_records += 1;
            return;
        };
        if let Some(c) = self.counts.get_mut(mid) {
            *c += 1;
        }
        let Some(ts) = self.threads.get_mut(tid) else {
            return;
        };
        let ns = ts.clamp(self.conv.to_unix_ns(t));
        ts.enter(&mut self.out, tid, mid, m, ns);
    }

    /// A frame of `mid` returns, is unwound, or catches. Frames above the innermost
    /// frame of `mid` are gone too (left without an exit record of their own, e.g. a
    /// constructor whose super() threw): they are closed first, innermost first.
    fn leave(&mut self, tid: u32, mid: u32, t: u64, how: Leave) {
        if let Leave::Return = how {
            if self.fast_return(tid, mid, t) {
                return;
            }
        }
        let ns = self.stamp(tid, t);
        // Thread 0 (the VM's records) has no frames: an exit there is a broken record.
        let Some(ts) = self.threads.get_mut(tid) else {
            self.stats.unknown_thread_records += 1;
            return;
        };
        let Some(pos) = ts.stack.iter().rposition(|f| f.mid == mid) else {
            if ts.before_trace {
                self.stats.earlier_frame_exits += 1;
            } else {
                self.stats.mismatched_exits += 1;
            }
            return;
        };
        let above: Vec<Frame> = ts.stack.drain(pos + 1..).rev().collect();
        let ticket = ts.stack[pos].ticket;
        if !matches!(how, Leave::Catch(_)) {
            ts.stack.pop();
        }
        self.stats.inferred_exits += above.len() as u64;
        let exc = match how {
            Leave::Return => None,
            Leave::Unwind(obj) | Leave::Catch(obj) => Some(obj),
        };
        for f in above {
            if let Some(obj) = exc {
                self.frame_event(tid, "throw", f.mid, f.ticket, obj, ns);
            }
            self.method_exit(tid, f.mid, f.ticket, ns);
        }
        match how {
            Leave::Return => self.method_exit(tid, mid, ticket, ns),
            Leave::Unwind(obj) => {
                self.frame_event(tid, "throw", mid, ticket, obj, ns);
                self.method_exit(tid, mid, ticket, ns);
            }
            Leave::Catch(obj) => {
                self.frame_event(tid, "throw", mid, ticket, obj, ns);
                self.frame_event(tid, "catch", mid, ticket, obj, ns);
            }
        }
    }

    /// The common case of an exit: the innermost frame returns. False if it is not
    /// that simple (then `leave` handles it).
    #[inline]
    fn fast_return(&mut self, tid: u32, mid: u32, t: u64) -> bool {
        let Some(ts) = self.threads.get_mut(tid) else {
            return false;
        };
        if ts.stack.last().is_none_or(|f| f.mid != mid) {
            return false;
        }
        let Some(m) = self.methods.get(mid) else {
            return false;
        };
        ts.ret(&mut self.out, (tid, mid), m, self.conv.to_unix_ns(t));
        true
    }

    fn method_exit(&mut self, tid: u32, mid: u32, ticket: u64, ns: u64) {
        let cid = self.cid_of(mid).unwrap_or(0);
        let o = &mut self.out;
        o.open("methodExit");
        o.num("threadIdRef", tid as u64);
        o.num("methodIdRef", mid as u64);
        o.num("classIdRef", cid as u64);
        o.num("ticket", ticket);
        o.time("time", ns);
        o.close();
    }

    /// A `throw` or `catch` element (written only with exceptions=on).
    fn frame_event(&mut self, tid: u32, name: &str, mid: u32, ticket: u64, obj: u64, ns: u64) {
        if !self.exceptions {
            return;
        }
        let o = &mut self.out;
        o.open(name);
        o.num("threadIdRef", tid as u64);
        o.time("time", ns);
        o.num("objIdRef", obj);
        o.num("methodIdRef", mid as u64);
        o.num("ticket", ticket);
        o.close();
    }

    fn simple(&mut self, tid: u32, name: &str, t: u64) {
        let ns = self.stamp(tid, t);
        self.on_thread(name, tid, ns);
    }

    /// `<NAME threadIdRef="tid" time="ns"/>`.
    fn on_thread(&mut self, name: &str, tid: u32, ns: u64) {
        let o = &mut self.out;
        o.open(name);
        o.num("threadIdRef", tid as u64);
        o.time("time", ns);
        o.close();
    }

    fn thread_end(&mut self, tid: u32, t: u64) {
        let ns = self.stamp(tid, t);
        self.thread_end_at(tid, ns);
    }

    fn thread_end_at(&mut self, tid: u32, ns: u64) {
        if self.pending_enters.is_empty() {
            self.write_thread_end(tid, ns, false);
        } else {
            self.held_ends.push((tid, ns));
        }
    }

    /// Writes the thread ends held back for a contended enter's owner.
    fn release_thread_ends(&mut self) {
        for (tid, ns) in std::mem::take(&mut self.held_ends) {
            self.write_thread_end(tid, ns, false);
        }
    }

    fn write_thread_end(&mut self, tid: u32, ns: u64, closing: bool) {
        if let Some(ts) = self.threads.get_mut(tid) {
            if ts.ended {
                return;
            }
            if !closing && !ts.stack.is_empty() {
                ts.end_deferred = Some(ns);
                return;
            }
            ts.ended = true;
        }
        let o = &mut self.out;
        o.open("threadEnd");
        o.num("threadIdRef", tid as u64);
        o.time("time", ns);
        o.close();
    }

    /// Closes the document: runtimeShutdown, threads still alive end now, then
    /// traceEnd, the method counts and agentDestroy.
    pub fn finish(&mut self, t: u64, shutdown_tid: Option<u32>, dropped_bytes: u64) {
        if self.closed {
            return;
        }
        self.closed = true;
        for (tid, obj, ns) in std::mem::take(&mut self.pending_enters) {
            self.write_mon_enter(tid, obj, 0, ns);
        }
        self.release_thread_ends();
        match shutdown_tid.filter(|tid| self.threads.get(*tid).is_some_and(|s| !s.ended)) {
            _ if !self.shutdown => {}
            Some(tid) => self.simple(tid, "runtimeShutdown", t),
            // The VM died on a thread the trace never defined (or whose end it already
            // wrote): the element names the VM's thread (TPTP's importer files it under
            // its threadIdRef and invents one when it is absent).
            None => {
                let (tid, ns) = self.vm_thread(self.conv.to_unix_ns(t).max(self.max_time()));
                self.on_thread("runtimeShutdown", tid, ns);
            }
        }
        let mut live: Vec<u32> = self
            .threads
            .iter()
            .filter(|(_, s)| !s.ended)
            .map(|(k, _)| k)
            .collect();
        live.sort_unstable();
        for tid in live {
            let ns = match self.threads.get_mut(tid) {
                // Not before the thread's last element (e.g. its runtimeShutdown).
                Some(s) => match s.end_deferred {
                    Some(ns) => s.clamp(ns),
                    None => self.stamp(tid, t),
                },
                None => self.stamp(tid, t),
            };
            self.write_thread_end(tid, ns, true);
        }
        self.gc_close();
        self.gc_thread_end(t);
        self.vm_thread_end(t);
        let end_ns = self.conv.to_unix_ns(t).max(self.max_time());
        let mut counts = Vec::new();
        let owns: Vec<(u32, u64)> = self.counts.iter().map(|(mid, &n)| (mid, n)).collect();
        for (mid, own) in owns {
            self.stats.method_counts.push((mid, own));
            counts.push((mid as usize, self.total_count(mid, own)));
        }
        let clamped: u64 = self.threads.iter().map(|(_, s)| s.clamped).sum();
        let deepest = self
            .threads
            .iter()
            .map(|(_, s)| s.deepest)
            .max()
            .unwrap_or(0);
        let o = &mut self.out;
        o.open("traceEnd");
        o.str("traceIdRef", &self.header_trace_id);
        o.time("time", end_ns);
        o.start_children();
        for (name, value) in [
            ("droppedRecordBytes", dropped_bytes),
            ("mismatchedExits", self.stats.mismatched_exits),
            (
                "recordsOfUndefinedMethods",
                self.stats.undefined_method_records,
            ),
            ("recordsOfUnknownThreads", self.stats.unknown_thread_records),
            ("inferredExits", self.stats.inferred_exits),
            ("instrumentedClasses", self.instrumented_classes),
            ("uninstrumentedClasses", self.untraced.len() as u64),
        ]
        .into_iter()
        // Only where they happened: the counts of what happened outside a trace started
        // while the JVM ran (jtrace stop/start, start=off, delay=), and of clamped depths.
        .chain(
            [
                ("exitsOfEarlierFrames", self.stats.earlier_frame_exits),
                ("invocationsOutsideTrace", self.outside_counts),
                // Entries deeper than stackDepth's xsd:short range say 32767: how many,
                // and the deepest depth the thread reached.
                ("clampedStackDepths", clamped),
                ("deepestStackDepth", deepest),
                ("partlyInstrumentedMethods", self.partly.len() as u64),
            ]
            .into_iter()
            .filter(|&(_, v)| v > 0),
        )
        .chain(self.notes.iter().copied())
        .chain(self.agent_notes.iter().map(|(n, v)| (n.as_str(), *v)))
        {
            o.open("annotation");
            o.str("name", name);
            o.num("value", value);
            o.close();
        }
        for (name, why) in &self.untraced {
            o.open("annotation");
            o.str("name", "uninstrumentedClass");
            o.str("value", &format!("{}: {why}", names::class_name(name)));
            o.close();
        }
        for (name, what) in &self.partly {
            o.open("annotation");
            o.str("name", "partlyInstrumentedMethod");
            o.str("value", &format!("{}.{what}", names::class_name(name)));
            o.close();
        }
        o.end("traceEnd");
        for (mid, count) in counts {
            o.open("methodCount");
            o.num("methodIdRef", mid as u64);
            o.num("count", count);
            o.close();
        }
        o.open("agentDestroy");
        o.str("agentIdRef", &self.header_agent_id);
        o.time("time", end_ns);
        o.close();
        o.end("TRACE");
        o.finish();
        self.stats.bytes = o.bytes_written();
        self.stats.elements = o.elements();
        self.stats.io_error = o.error();
    }

    /// A method's methodCount: this trace's entries plus the invocations made outside
    /// it (the finish's count base); the excess is summed for traceEnd's
    /// `invocationsOutsideTrace`. A class unloaded during the trace is counted at its
    /// unload, before the finish brings the base: its count is its own entries.
    fn total_count(&mut self, mid: u32, own: u64) -> u64 {
        let extra = self.count_base.get(&mid).copied().unwrap_or(0);
        self.outside_counts += extra;
        own + extra
    }

    /// Adds a numeric annotation to traceEnd (written at `finish`).
    pub fn annotate(&mut self, name: &'static str, value: u64) {
        self.notes.push((name, value));
    }

    fn max_time(&self) -> u64 {
        self.threads.values().map(|s| s.last_ns).max().unwrap_or(0)
    }

    pub fn stats(&self) -> Stats {
        self.stats.clone()
    }
}

fn visibility(access: u16) -> &'static str {
    if access & 0x0001 != 0 {
        "public"
    } else if access & 0x0004 != 0 {
        "protected"
    } else if access & 0x0002 != 0 {
        "private"
    } else {
        "package"
    }
}

fn class_access(access: u16) -> String {
    let mut parts: Vec<&str> = Vec::new();
    if access & 0x0001 != 0 {
        parts.push("public");
    } else {
        parts.push("package");
    }
    if access & 0x0010 != 0 {
        parts.push("final");
    }
    if access & 0x0200 != 0 {
        parts.push("interface");
    } else if access & 0x0400 != 0 {
        parts.push("abstract");
    }
    if access & 0x2000 != 0 {
        parts.push("annotation");
    }
    if access & 0x4000 != 0 {
        parts.push("enum");
    }
    parts.join(" ")
}

/// Appends `s` as a JSON string literal.
/// Closes the open `element`: empty, or with one `annotation` child per (name, value).
fn close_annotated<O: Output>(o: &mut O, element: &str, annotations: &[(String, String)]) {
    if annotations.is_empty() {
        o.close();
        return;
    }
    o.start_children();
    for (name, value) in annotations {
        o.open("annotation");
        o.str("name", name);
        o.str("value", value);
        o.close();
    }
    o.end(element);
}

fn json_str(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
}
