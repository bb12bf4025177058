//! The per-thread timeline in the Chrome/Perfetto JSON trace-event format: a `B`/`E`
//! pair per call (nested by construction, in each thread's own order), instants for
//! exceptions and allocations, GC on a track of its own, monitor blocking as slices on
//! the blocked thread. Written while reading, in constant memory.

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
    /// Per thread: whether each open frame's `B` was written (frames that started
    /// before the window get theirs at their exit, when they turn out to overlap it).
    began: Vec<Vec<bool>>,
    pub events: u64,
    error: Option<io::Error>,
}

fn us(ns: u64) -> String {
    format!("{}.{:03}", ns / 1000, ns % 1000)
}

fn json(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "\"?\"".to_string())
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
            began: Vec::new(),
            events: 0,
            error: None,
        };
        p.raw("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n");
        p.raw(&format!(
            "{{\"ph\":\"M\",\"pid\":1,\"tid\":{GC_TID},\"name\":\"thread_name\",\"args\":{{\"name\":\"GC\"}}}}"
        ));
        p
    }

    fn raw(&mut self, s: &str) {
        if self.error.is_none() {
            if let Err(e) = self.out.write_all(s.as_bytes()) {
                self.error = Some(e);
            }
        }
    }

    fn event(&mut self, s: &str) {
        self.events += 1;
        self.raw(",\n");
        self.raw(s);
    }

    fn name(&mut self, s: &Symbols, m: u32) -> String {
        let i = m as usize;
        if self.names.len() <= i {
            self.names.resize(i + 1, None);
        }
        self.names[i]
            .get_or_insert_with(|| json(&s.method(m).frame))
            .clone()
    }

    fn thread(&mut self, s: &Symbols, t: u32) -> u64 {
        let i = t as usize;
        if self.named.len() <= i {
            self.named.resize(i + 1, false);
            self.began.resize(i + 1, Vec::new());
        }
        let id = s.threads[i].id;
        if !self.named[i] {
            self.named[i] = true;
            let e = format!(
                "{{\"ph\":\"M\",\"pid\":1,\"tid\":{id},\"name\":\"thread_name\",\"args\":{{\"name\":{}}}}}",
                json(&s.threads[i].name)
            );
            self.event(&e);
        }
        id
    }

    /// Relative to the trace's start, clipped to the window's start.
    fn rel(&self, s: &Symbols, t: u64) -> u64 {
        t.max(s.window.0).saturating_sub(s.start)
    }

    /// Ends the document; the bytes written, or the first write error.
    pub fn finish(mut self) -> io::Result<(u64, W)> {
        self.raw("\n]}\n");
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
        let now = f.start >= s.window.0 && f.start <= s.window.1;
        self.began[t as usize].push(now);
        if now {
            let e = format!(
                "{{\"ph\":\"B\",\"pid\":1,\"tid\":{tid},\"ts\":{},\"name\":{}}}",
                us(self.rel(s, f.start)),
                self.name(s, f.method)
            );
            self.event(&e);
        }
    }

    fn exit(&mut self, s: &Symbols, t: u32, c: &Call, _parents: &[Frame]) {
        let tid = self.thread(s, t);
        let began = self.began[t as usize].pop().unwrap_or(false);
        if !c.counted {
            return;
        }
        if !began {
            let e = format!(
                "{{\"ph\":\"B\",\"pid\":1,\"tid\":{tid},\"ts\":{},\"name\":{}}}",
                us(self.rel(s, c.start)),
                self.name(s, c.method)
            );
            self.event(&e);
        }
        let end = c.end.min(s.window.1);
        let args = match (c.open, c.by_exception) {
            (true, _) => ",\"args\":{\"open\":true}",
            (_, true) => ",\"args\":{\"exception\":true}",
            _ => "",
        };
        let e = format!(
            "{{\"ph\":\"E\",\"pid\":1,\"tid\":{tid},\"ts\":{}{args}}}",
            us(self.rel(s, end))
        );
        self.event(&e);
    }

    fn alloc(&mut self, s: &Symbols, t: u32, a: &Alloc, _stack: &[Frame]) {
        let tid = self.thread(s, t);
        let e = format!(
            "{{\"ph\":\"i\",\"s\":\"t\",\"pid\":1,\"tid\":{tid},\"ts\":{},\"name\":{},\"args\":{{\"bytes\":{}}}}}",
            us(self.rel(s, a.time)),
            json(&format!("alloc {}", s.alloc_class(a.class, a.is_array))),
            a.size
        );
        self.event(&e);
    }

    fn exception(&mut self, s: &Symbols, x: &Exception) {
        let tid = self.thread(s, x.thread);
        let class = x.class.map_or("?", |c| s.class_name(c));
        let caught = x
            .caught_in
            .map_or(String::new(), |m| s.method(m).frame.clone());
        let e = format!(
            "{{\"ph\":\"i\",\"s\":\"t\",\"pid\":1,\"tid\":{tid},\"ts\":{},\"name\":{},\"args\":{{\"thrown_in\":{},\"caught_in\":{}}}}}",
            us(self.rel(s, x.time)),
            json(&format!("throw {class}")),
            json(&s.method(x.thrown_in).frame),
            json(&caught)
        );
        self.event(&e);
    }

    fn blocked(&mut self, s: &Symbols, b: &Blocked) {
        let tid = self.thread(s, b.thread);
        let class = b.class.map_or("?", |c| s.class_name(c));
        let what = match b.kind {
            BlockKind::Contended => "blocked on",
            BlockKind::Wait => "wait on",
        };
        let (start, end) = (self.rel(s, b.start), self.rel(s, b.end.min(s.window.1)));
        let owner = b.owner.map_or("", |o| s.threads[o as usize].name.as_str());
        let e = format!(
            "{{\"ph\":\"X\",\"pid\":1,\"tid\":{tid},\"ts\":{},\"dur\":{},\"name\":{},\"args\":{{\"owner\":{}}}}}",
            us(start),
            us(end.saturating_sub(start)),
            json(&format!("{what} {class}")),
            json(owner)
        );
        self.event(&e);
    }

    fn gc(&mut self, s: &Symbols, start: u64, end: u64) {
        let (a, b) = (self.rel(s, start), self.rel(s, end.min(s.window.1)));
        let e = format!(
            "{{\"ph\":\"X\",\"pid\":1,\"tid\":{GC_TID},\"ts\":{},\"dur\":{},\"name\":\"GC\"}}",
            us(a),
            us(b.saturating_sub(a))
        );
        self.event(&e);
    }
}
