//! The per-thread timeline in the Chrome/Perfetto JSON trace-event format: a `B`/`E`
//! pair per call (nested by construction, in each thread's own order), instants for
//! exceptions and allocations, GC on a track of its own, monitor blocking as slices on
//! the blocked thread. Written while reading, in constant memory.

use super::fmt::u64_len;
use crate::model::{Alloc, Analysis, BlockKind, Blocked, Call, Exception, Frame, Symbols};
use std::io::{self, Write};

/// Perfetto track of the collections (no Java thread has this id: the trace's count up
/// from 1).
const GC_TID: u64 = 0x7fff_ffff;

/// Counts the bytes written through it.
pub struct Counted<W> {
    inner: W,
    pub bytes: u64,
}

impl<W: Write> Write for Counted<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.bytes += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

pub struct Perfetto<W: Write> {
    out: Counted<W>,
    /// JSON-escaped method names, by method index, made on first use.
    names: Vec<Option<String>>,
    /// Threads whose name was written.
    named: Vec<bool>,
    pub events: u64,
    error: Option<io::Error>,
    /// The event being made (reused).
    line: Vec<u8>,
}

// The pieces of a slice's `B` and `E` events, shared with their sizes (`slice_size`).
const SEP: &str = ",\n";
const B_HEAD: &str = "{\"ph\":\"B\",\"pid\":1,\"tid\":";
const E_HEAD: &str = "{\"ph\":\"E\",\"pid\":1,\"tid\":";
const TS: &str = ",\"ts\":";
const NAME: &str = ",\"name\":";
const TAIL: &str = "}";

fn us(ns: u64) -> String {
    format!("{}.{:03}", ns / 1000, ns % 1000)
}

/// `us(ns)` appended without a String.
fn push_us(out: &mut Vec<u8>, ns: u64) {
    let mut b = itoa::Buffer::new();
    out.extend_from_slice(b.format(ns / 1000).as_bytes());
    let r = ns % 1000;
    out.extend_from_slice(&[
        b'.',
        b'0' + (r / 100) as u8,
        b'0' + (r / 10 % 10) as u8,
        b'0' + (r % 10) as u8,
    ]);
}

/// The length of `us(ns)`.
fn us_len(ns: u64) -> u64 {
    u64_len(ns / 1000) as u64 + 4
}

/// The exit's arguments: open at the end, or left by an exception.
fn exit_args(c: &Call) -> &'static str {
    match (c.open, c.by_exception) {
        (true, _) => OPEN_ARGS,
        (_, true) => ",\"args\":{\"exception\":true}",
        _ => "",
    }
}

/// What an exit clipped at the window's end carries at most beyond `exit_args`.
const OPEN_ARGS: &str = ",\"args\":{\"open\":true}";

fn json(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "\"?\"".to_string())
}

/// The bytes of a slice's `B` event (with its separator) on thread `tid` at `ts` (ns
/// from the trace's start) for a method whose JSON name takes `name_len` bytes, and of
/// its `E` at `end` with `args`.
pub fn slice_size(tid: u64, ts: u64, name_len: u64, end: u64, args: &str) -> (u64, u64) {
    let piece =
        |head: &str| (SEP.len() + head.len() + TS.len() + TAIL.len()) as u64 + u64_len(tid) as u64;
    (
        piece(B_HEAD) + us_len(ts) + (NAME.len() as u64) + name_len,
        piece(E_HEAD) + us_len(end) + args.len() as u64,
    )
}

/// A thread's name (metadata) event.
fn thread_event(id: u64, name: &str) -> String {
    format!(
        "{{\"ph\":\"M\",\"pid\":1,\"tid\":{id},\"name\":\"thread_name\",\"args\":{{\"name\":{}}}}}",
        json(name)
    )
}

fn alloc_event(s: &Symbols, tid: u64, ts: u64, a: &Alloc) -> String {
    format!(
        "{{\"ph\":\"i\",\"s\":\"t\",\"pid\":1,\"tid\":{tid},\"ts\":{},\"name\":{},\"args\":{{\"bytes\":{}}}}}",
        us(ts),
        json(&format!("alloc {}", s.alloc_class(a.class, a.is_array))),
        a.size
    )
}

fn exception_event(s: &Symbols, tid: u64, ts: u64, x: &Exception) -> String {
    let class = x.class.map_or("?", |c| s.class_name(c));
    let caught = x
        .caught_in
        .map_or(String::new(), |m| s.method(m).frame.clone());
    format!(
        "{{\"ph\":\"i\",\"s\":\"t\",\"pid\":1,\"tid\":{tid},\"ts\":{},\"name\":{},\"args\":{{\"thrown_in\":{},\"caught_in\":{}}}}}",
        us(ts),
        json(&format!("throw {class}")),
        json(&s.method(x.thrown_in).frame),
        json(&caught)
    )
}

/// A blocked span from `start` to `end` (ns from the trace's start).
fn blocked_event(s: &Symbols, tid: u64, start: u64, end: u64, b: &Blocked) -> String {
    let class = b.class.map_or("?", |c| s.class_name(c));
    let what = match b.kind {
        BlockKind::Contended => "blocked on",
        BlockKind::Wait => "wait on",
    };
    let owner = b.owner.map_or("", |o| s.threads[o as usize].name.as_str());
    format!(
        "{{\"ph\":\"X\",\"pid\":1,\"tid\":{tid},\"ts\":{},\"dur\":{},\"name\":{},\"args\":{{\"owner\":{}}}}}",
        us(start),
        us(end.saturating_sub(start)),
        json(&format!("{what} {class}")),
        json(owner)
    )
}

fn gc_event(start: u64, end: u64) -> String {
    format!(
        "{{\"ph\":\"X\",\"pid\":1,\"tid\":{GC_TID},\"ts\":{},\"dur\":{},\"name\":\"GC\"}}",
        us(start),
        us(end.saturating_sub(start))
    )
}

/// The sizes of the JSON timeline's events, for choosing a window without writing it
/// (`render::timeline_size`): exact for the events as given, whose times are the
/// unclipped ones (a time clipped to a window's end is never longer).
pub mod size {
    use super::*;

    /// The document's opening and closing.
    pub fn frame() -> u64 {
        Perfetto::new(io::sink()).finish().map_or(0, |(b, _)| b)
    }

    /// A thread's name event.
    pub fn thread(id: u64, name: &str) -> u64 {
        (SEP.len() + thread_event(id, name).len()) as u64
    }

    /// A method's name as the `B` events write it.
    pub fn name(name: &str) -> u64 {
        json(name).len() as u64
    }

    /// The exit's arguments, and at most how many more bytes it takes when clipped at a
    /// window's end (then it may say open).
    pub fn exit_args(c: &Call) -> (&'static str, u64) {
        let a = super::exit_args(c);
        (a, OPEN_ARGS.len().saturating_sub(a.len()) as u64)
    }

    pub fn alloc(s: &Symbols, tid: u64, ts: u64, a: &Alloc) -> u64 {
        (SEP.len() + alloc_event(s, tid, ts, a).len()) as u64
    }

    pub fn exception(s: &Symbols, tid: u64, ts: u64, x: &Exception) -> u64 {
        (SEP.len() + exception_event(s, tid, ts, x).len()) as u64
    }

    pub fn blocked(s: &Symbols, tid: u64, start: u64, end: u64, b: &Blocked) -> u64 {
        (SEP.len() + blocked_event(s, tid, start, end, b).len()) as u64
    }

    pub fn gc(start: u64, end: u64) -> u64 {
        (SEP.len() + gc_event(start, end).len()) as u64
    }
}

impl<W: Write> Perfetto<W> {
    pub fn new(out: W) -> Perfetto<W> {
        let mut p = Perfetto {
            out: Counted {
                inner: out,
                bytes: 0,
            },
            names: Vec::new(),
            named: Vec::new(),
            events: 0,
            error: None,
            line: Vec::new(),
        };
        p.raw(b"{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n");
        p.raw(thread_event(GC_TID, "GC").as_bytes());
        p
    }

    fn raw(&mut self, s: &[u8]) {
        if self.error.is_none() {
            if let Err(e) = self.out.write_all(s) {
                self.error = Some(e);
            }
        }
    }

    fn event(&mut self, s: &str) {
        self.events += 1;
        self.raw(SEP.as_bytes());
        self.raw(s.as_bytes());
    }

    /// Writes the event made in `line`.
    fn flush_line(&mut self) {
        self.events += 1;
        let line = std::mem::take(&mut self.line);
        self.raw(&line);
        self.line = line;
    }

    /// Makes the JSON name of method `m` known (`names[m]`).
    fn name(&mut self, s: &Symbols, m: u32) {
        let i = m as usize;
        if self.names.len() <= i {
            self.names.resize(i + 1, None);
        }
        if self.names[i].is_none() {
            self.names[i] = Some(json(&s.method(m).frame));
        }
    }

    /// Writes a slice edge: `head` (`B_HEAD` or `E_HEAD`), the thread, the time, then
    /// `rest` (the name or the exit's arguments) and the closing brace.
    fn edge(&mut self, head: &str, tid: u64, ts: u64, rest: [&str; 2]) {
        let l = &mut self.line;
        l.clear();
        l.extend_from_slice(SEP.as_bytes());
        l.extend_from_slice(head.as_bytes());
        l.extend_from_slice(itoa::Buffer::new().format(tid).as_bytes());
        l.extend_from_slice(TS.as_bytes());
        push_us(l, ts);
        for r in rest {
            l.extend_from_slice(r.as_bytes());
        }
        l.extend_from_slice(TAIL.as_bytes());
        self.flush_line();
    }

    fn begin(&mut self, s: &Symbols, tid: u64, ts: u64, m: u32) {
        self.name(s, m);
        let ts = self.rel(s, ts);
        let name = std::mem::take(&mut self.names[m as usize]);
        self.edge(B_HEAD, tid, ts, [NAME, name.as_deref().unwrap_or("\"?\"")]);
        self.names[m as usize] = name;
    }

    fn end(&mut self, tid: u64, ts: u64, args: &str) {
        self.edge(E_HEAD, tid, ts, [args, ""]);
    }

    fn thread(&mut self, s: &Symbols, t: u32) -> u64 {
        let i = t as usize;
        if self.named.len() <= i {
            self.named.resize(i + 1, false);
        }
        let id = s.threads[i].id;
        if !self.named[i] {
            self.named[i] = true;
            self.event(&thread_event(id, &s.threads[i].name));
        }
        id
    }

    /// Relative to the trace's start, clipped to the window's start.
    fn rel(&self, s: &Symbols, t: u64) -> u64 {
        t.max(s.window.0).saturating_sub(s.start)
    }

    /// Ends the document; the bytes written, or the first write error.
    pub fn finish(mut self) -> io::Result<(u64, W)> {
        self.raw(b"\n]}\n");
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        self.out.flush()?;
        Ok((self.out.bytes, self.out.inner))
    }
}

impl<W: Write> Analysis for Perfetto<W> {
    fn enter(&mut self, s: &Symbols, t: u32, stack: &[Frame]) {
        let tid = self.thread(s, t);
        let Some(f) = stack.last() else { return };
        // The model hands a frame over inside the window: one entered before it when
        // its thread reaches the window, still open, so it begins at the window's start
        // (`rel` clips), before what it encloses there; none after the window's end.
        self.begin(s, tid, f.start, f.method);
    }

    fn exit(&mut self, s: &Symbols, t: u32, c: &Call, _parents: &[Frame]) {
        let tid = self.thread(s, t);
        let end = self.rel(s, c.end.min(s.window.1));
        self.end(tid, end, exit_args(c));
    }

    fn alloc(&mut self, s: &Symbols, t: u32, a: &Alloc, _stack: &[Frame]) {
        let tid = self.thread(s, t);
        let e = alloc_event(s, tid, self.rel(s, a.time), a);
        self.event(&e);
    }

    fn exception(&mut self, s: &Symbols, x: &Exception) {
        let tid = self.thread(s, x.thread);
        let e = exception_event(s, tid, self.rel(s, x.time), x);
        self.event(&e);
    }

    fn blocked(&mut self, s: &Symbols, b: &Blocked) {
        let tid = self.thread(s, b.thread);
        let (start, end) = (self.rel(s, b.start), self.rel(s, b.end.min(s.window.1)));
        let e = blocked_event(s, tid, start, end, b);
        self.event(&e);
    }

    fn gc(&mut self, s: &Symbols, start: u64, end: u64) {
        let (a, b) = (self.rel(s, start), self.rel(s, end.min(s.window.1)));
        self.event(&gc_event(a, b));
    }
}
