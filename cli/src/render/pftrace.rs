//! The per-thread timeline as Perfetto's native protobuf trace (`.pftrace`): one
//! `TracePacket` per slice edge or instant, `TrackEvent`s on one track per thread,
//! event names interned (each name's text is written once, then referred to by id), so a
//! call costs a few tens of bytes instead of JSON's hundred and more. The same slices,
//! instants and tracks as the JSON timeline (`render::perfetto`), written while reading.
//!
//! The encoding is written by hand (varints and length-delimited fields, about fifty
//! lines) rather than with generated code: the handful of messages used is fixed, and
//! the test decodes the output with Perfetto's own schema (its `perfetto` Python
//! package's `perfetto_trace_pb2`).

use crate::model::{Alloc, Analysis, BlockKind, Blocked, Call, Exception, Frame, Symbols};
use std::collections::HashMap;
use std::io::{self, Write};

// Field numbers of perfetto/trace/trace_packet.proto and track_event/*.proto.
const TRACE_PACKET: u32 = 1;
const P_TIMESTAMP: u32 = 8;
const P_SEQUENCE_ID: u32 = 10;
const P_TRACK_EVENT: u32 = 11;
const P_INTERNED_DATA: u32 = 12;
const P_SEQUENCE_FLAGS: u32 = 13;
const P_TRACK_DESCRIPTOR: u32 = 60;
const E_NAME_IID: u32 = 10;
const E_TYPE: u32 = 9;
const E_TRACK_UUID: u32 = 11;
const D_UUID: u32 = 1;
const D_NAME: u32 = 2;
const D_PROCESS: u32 = 3;
const D_THREAD: u32 = 4;
const D_PARENT: u32 = 5;
const THREAD_PID: u32 = 1;
const THREAD_TID: u32 = 2;
const THREAD_NAME: u32 = 5;
const PROCESS_PID: u32 = 1;
const PROCESS_NAME: u32 = 6;
const INTERNED_EVENT_NAMES: u32 = 2;
const NAME_IID: u32 = 1;
const NAME_NAME: u32 = 2;
pub const SLICE_BEGIN: u64 = 1;
pub const SLICE_END: u64 = 2;
pub const INSTANT: u64 = 3;
const SEQ_CLEARED: u64 = 1;
const SEQ_NEEDS_STATE: u64 = 2;
/// The one packet sequence this output uses.
const SEQUENCE: u64 = 1;
const PROCESS_UUID: u64 = 1;
const GC_UUID: u64 = 2;
/// Thread tracks: this plus the thread's index.
const THREAD_UUID: u64 = 0x1000;

fn varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// The bytes `varint` takes for `v`.
pub fn varint_len(v: u64) -> u64 {
    (64 - (v | 1).leading_zeros() as u64).div_ceil(7)
}

fn uint(out: &mut Vec<u8>, field: u32, v: u64) {
    varint(out, (field as u64) << 3);
    varint(out, v);
}

fn bytes(out: &mut Vec<u8>, field: u32, b: &[u8]) {
    varint(out, ((field as u64) << 3) | 2);
    varint(out, b.len() as u64);
    out.extend_from_slice(b);
}

/// One track event's packet (without the `TracePacket` field head `write_packet` adds):
/// `kind` at `ts` on `track`, named by an interned id, whose name is interned in this
/// packet when given.
fn encode_event(
    pk: &mut Vec<u8>,
    ev: &mut Vec<u8>,
    track: u64,
    kind: u64,
    ts: u64,
    named: Option<(u64, Option<&str>)>,
) {
    pk.clear();
    ev.clear();
    uint(pk, P_TIMESTAMP, ts);
    uint(pk, P_SEQUENCE_ID, SEQUENCE);
    uint(pk, P_SEQUENCE_FLAGS, SEQ_NEEDS_STATE);
    uint(ev, E_TYPE, kind);
    uint(ev, E_TRACK_UUID, track);
    if let Some((iid, intern)) = named {
        if let Some(name) = intern {
            let mut en = Vec::new();
            uint(&mut en, NAME_IID, iid);
            bytes(&mut en, NAME_NAME, name.as_bytes());
            let mut interned = Vec::new();
            bytes(&mut interned, INTERNED_EVENT_NAMES, &en);
            bytes(pk, P_INTERNED_DATA, &interned);
        }
        uint(ev, E_NAME_IID, iid);
    }
    bytes(pk, P_TRACK_EVENT, ev);
}

/// Appends a track event's framed packet that interns no name (`iid` 0: unnamed), as
/// `encode_event` and `write_packet` make it: such a packet takes under 64 bytes, so
/// both its length and its track event's take one byte, set once the fields are in.
fn push_event(buf: &mut Vec<u8>, track: u64, kind: u64, ts: u64, iid: u64) {
    let at = buf.len();
    buf.extend_from_slice(&[((TRACE_PACKET << 3) | 2) as u8, 0]);
    uint(buf, P_TIMESTAMP, ts);
    uint(buf, P_SEQUENCE_ID, SEQUENCE);
    uint(buf, P_SEQUENCE_FLAGS, SEQ_NEEDS_STATE);
    buf.extend_from_slice(&[((P_TRACK_EVENT << 3) | 2) as u8, 0]);
    let ev = buf.len();
    uint(buf, E_TYPE, kind);
    uint(buf, E_TRACK_UUID, track);
    if iid != 0 {
        uint(buf, E_NAME_IID, iid);
    }
    buf[ev - 1] = (buf.len() - ev) as u8;
    buf[at + 1] = (buf.len() - at - 2) as u8;
}

/// Packets are gathered in one buffer of about this many bytes, written out whole.
const BUFFER: usize = 1 << 20;

/// The sizes of the `.pftrace` timeline's packets, for choosing a window without
/// writing it (`render::timeline_size`); each equals what `encode_event` and
/// `write_packet` make (a unit test holds them to it).
pub mod size {
    use super::*;

    /// A length-delimited field of `len` bytes (field numbers below 16).
    fn field(len: u64) -> u64 {
        1 + varint_len(len) + len
    }

    /// A track event's framed packet: `kind` at `ts` on `track`, named by `iid` (0:
    /// unnamed), its name of `intern` bytes interned in it when given.
    pub fn event(track: u64, kind: u64, ts: u64, iid: u64, intern: Option<u64>) -> u64 {
        let mut ev = 1 + varint_len(kind) + 1 + varint_len(track);
        if iid != 0 {
            ev += 1 + varint_len(iid);
        }
        let mut pk =
            1 + varint_len(ts) + 1 + varint_len(SEQUENCE) + 1 + varint_len(SEQ_NEEDS_STATE);
        if let Some(len) = intern {
            let en = 1 + varint_len(iid) + field(len);
            pk += field(field(en));
        }
        pk += field(ev);
        field(pk)
    }

    /// At most how many bytes interning a name of `len` bytes with an id up to `iid` adds
    /// to an event's packet (a packet without it takes under 64 bytes, so its length's
    /// varint grows by what the field's length needs beyond one byte).
    pub fn interned(iid: u64, len: u64) -> u64 {
        let f = field(field(1 + varint_len(iid) + field(len)));
        f + varint_len(f + 64) - 1
    }

    /// The track of thread index `t`.
    pub fn thread_track(t: u32) -> u64 {
        THREAD_UUID + t as u64
    }

    /// The track of the collections.
    pub const GC_TRACK: u64 = GC_UUID;

    /// Thread index `t`'s track descriptor.
    pub fn thread(t: u32, name: &str, id: u64) -> u64 {
        track(thread_track(t), name, Some(id))
    }

    /// The collections' track descriptor.
    pub fn gc_track() -> u64 {
        track(GC_UUID, "GC", None)
    }

    /// The document's start (the process track).
    pub fn frame() -> u64 {
        Pftrace::new(io::sink()).finish().map_or(0, |(b, _)| b)
    }

    /// A track's descriptor packet (`thread`: its id, for a thread's track).
    fn track(uuid: u64, name: &str, thread: Option<u64>) -> u64 {
        field(describe_packet(uuid, name, thread).len() as u64)
    }
}

/// A track descriptor's packet.
fn describe_packet(uuid: u64, name: &str, thread: Option<u64>) -> Vec<u8> {
    let mut d = Vec::new();
    uint(&mut d, D_UUID, uuid);
    uint(&mut d, D_PARENT, PROCESS_UUID);
    match thread {
        Some(tid) => {
            let mut th = Vec::new();
            uint(&mut th, THREAD_PID, 1);
            uint(&mut th, THREAD_TID, tid);
            bytes(&mut th, THREAD_NAME, name.as_bytes());
            bytes(&mut d, D_THREAD, &th);
        }
        None => bytes(&mut d, D_NAME, name.as_bytes()),
    }
    let mut pk = Vec::new();
    uint(&mut pk, P_SEQUENCE_ID, SEQUENCE);
    bytes(&mut pk, P_TRACK_DESCRIPTOR, &d);
    pk
}

pub struct Pftrace<W: Write> {
    out: W,
    bytes_written: u64,
    /// Interned event names.
    iids: HashMap<String, u64>,
    /// Interned ids by method index (0: not yet).
    by_method: Vec<u64>,
    /// Packets not written out yet (`BUFFER`).
    buf: Vec<u8>,
    /// Threads whose track was described.
    described: Vec<bool>,
    gc_described: bool,
    pub events: u64,
    error: Option<io::Error>,
    packet: Vec<u8>,
    scratch: Vec<u8>,
}

impl<W: Write> Pftrace<W> {
    pub fn new(out: W) -> Pftrace<W> {
        let mut p = Pftrace {
            out,
            bytes_written: 0,
            iids: HashMap::new(),
            by_method: Vec::new(),
            described: Vec::new(),
            gc_described: false,
            buf: Vec::with_capacity(BUFFER + 256),
            events: 0,
            error: None,
            packet: Vec::new(),
            scratch: Vec::new(),
        };
        // The process track, and the sequence's incremental state (interned names) cleared.
        let mut proc = Vec::new();
        uint(&mut proc, PROCESS_PID, 1);
        bytes(&mut proc, PROCESS_NAME, b"java");
        let mut d = Vec::new();
        uint(&mut d, D_UUID, PROCESS_UUID);
        bytes(&mut d, D_PROCESS, &proc);
        let mut pk = Vec::new();
        uint(&mut pk, P_SEQUENCE_ID, SEQUENCE);
        uint(&mut pk, P_SEQUENCE_FLAGS, SEQ_CLEARED);
        bytes(&mut pk, P_TRACK_DESCRIPTOR, &d);
        p.write_packet(&pk);
        p
    }

    fn write_packet(&mut self, pk: &[u8]) {
        varint(&mut self.buf, ((TRACE_PACKET as u64) << 3) | 2);
        varint(&mut self.buf, pk.len() as u64);
        self.buf.extend_from_slice(pk);
        self.spill();
    }

    /// Writes the buffer out once it is full.
    #[inline]
    fn spill(&mut self) {
        if self.buf.len() >= BUFFER {
            self.write_out();
        }
    }

    fn write_out(&mut self) {
        if self.error.is_none() {
            match self.out.write_all(&self.buf) {
                Ok(()) => self.bytes_written += self.buf.len() as u64,
                Err(e) => self.error = Some(e),
            }
        }
        self.buf.clear();
    }

    fn describe(&mut self, uuid: u64, name: &str, thread: Option<u64>) {
        let pk = describe_packet(uuid, name, thread);
        self.write_packet(&pk);
    }

    fn track(&mut self, s: &Symbols, t: u32) -> u64 {
        let i = t as usize;
        if self.described.len() <= i {
            self.described.resize(i + 1, false);
        }
        if !self.described[i] {
            self.described[i] = true;
            let th = &s.threads[i];
            self.describe(THREAD_UUID + t as u64, &th.name, Some(th.id));
        }
        THREAD_UUID + t as u64
    }

    /// A track event: `kind`, at `ts` (ns from the trace's start), named `name` (none
    /// for a slice end); `method`: the method the name is of, if any (its id is kept by
    /// method, so the name is looked up once).
    fn event(&mut self, track: u64, kind: u64, ts: u64, name: Option<&str>, method: Option<u32>) {
        self.events += 1;
        let iid = match name {
            None => 0,
            Some(name) => {
                let cached = method.and_then(|m| self.by_method.get(m as usize).copied());
                match cached.filter(|&iid| iid != 0) {
                    Some(iid) => iid,
                    None => {
                        let next = self.iids.len() as u64 + 1;
                        let (iid, new) = match self.iids.get(name) {
                            Some(&iid) => (iid, false),
                            None => {
                                self.iids.insert(name.to_string(), next);
                                (next, true)
                            }
                        };
                        if let Some(m) = method {
                            let m = m as usize;
                            if self.by_method.len() <= m {
                                self.by_method.resize(m + 1, 0);
                            }
                            self.by_method[m] = iid;
                        }
                        if new {
                            // The name's first use: the packet interns it.
                            let mut pk = std::mem::take(&mut self.packet);
                            let mut ev = std::mem::take(&mut self.scratch);
                            encode_event(
                                &mut pk,
                                &mut ev,
                                track,
                                kind,
                                ts,
                                Some((iid, Some(name))),
                            );
                            self.write_packet(&pk);
                            self.packet = pk;
                            self.scratch = ev;
                            return;
                        }
                        iid
                    }
                }
            }
        };
        // Every other packet: the short one, made in place.
        push_event(&mut self.buf, track, kind, ts, iid);
        self.spill();
    }

    fn rel(&self, s: &Symbols, t: u64) -> u64 {
        t.max(s.window.0).saturating_sub(s.start)
    }

    /// The bytes written, or the first write error.
    pub fn finish(mut self) -> io::Result<(u64, W)> {
        self.write_out();
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        self.out.flush()?;
        Ok((self.bytes_written, self.out))
    }
}

impl<W: Write> Analysis for Pftrace<W> {
    fn enter(&mut self, s: &Symbols, t: u32, stack: &[Frame]) {
        let track = self.track(s, t);
        let Some(f) = stack.last() else { return };
        // Handed over inside the window, as in the JSON output (`perfetto.rs`).
        let ts = self.rel(s, f.start);
        self.event(
            track,
            SLICE_BEGIN,
            ts,
            Some(&s.method(f.method).frame),
            Some(f.method),
        );
    }

    fn exit(&mut self, s: &Symbols, t: u32, c: &Call, _parents: &[Frame]) {
        let track = self.track(s, t);
        let ts = self.rel(s, c.end.min(s.window.1));
        self.event(track, SLICE_END, ts, None, None);
    }

    fn alloc(&mut self, s: &Symbols, t: u32, a: &Alloc, _stack: &[Frame]) {
        let track = self.track(s, t);
        let name = format!("alloc {}", s.alloc_class(a.class, a.is_array));
        let ts = self.rel(s, a.time);
        self.event(track, INSTANT, ts, Some(&name), None);
    }

    fn exception(&mut self, s: &Symbols, x: &Exception) {
        let track = self.track(s, x.thread);
        let class = x.class.map_or("?", |c| s.class_name(c));
        let ts = self.rel(s, x.time);
        self.event(track, INSTANT, ts, Some(&format!("throw {class}")), None);
    }

    fn blocked(&mut self, s: &Symbols, b: &Blocked) {
        let track = self.track(s, b.thread);
        let class = b.class.map_or("?", |c| s.class_name(c));
        let what = match b.kind {
            BlockKind::Contended => "blocked on",
            BlockKind::Wait => "wait on",
        };
        let (start, end) = (self.rel(s, b.start), self.rel(s, b.end.min(s.window.1)));
        self.event(
            track,
            SLICE_BEGIN,
            start,
            Some(&format!("{what} {class}")),
            None,
        );
        self.event(track, SLICE_END, end.max(start), None, None);
    }

    fn gc(&mut self, s: &Symbols, start: u64, end: u64) {
        if !self.gc_described {
            self.gc_described = true;
            self.describe(GC_UUID, "GC", None);
        }
        let (a, b) = (self.rel(s, start), self.rel(s, end.min(s.window.1)));
        self.event(GC_UUID, SLICE_BEGIN, a, Some("GC"), None);
        self.event(GC_UUID, SLICE_END, b.max(a), None, None);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The sizes counted equal the packets made, and interning adds at most its bound.
    #[test]
    fn sizes_equal_the_encoding() {
        let (mut pk, mut ev) = (Vec::new(), Vec::new());
        for ts in [0, 1, 127, 128, 1 << 20, 1 << 40, u64::MAX] {
            for track in [GC_UUID, THREAD_UUID, THREAD_UUID + 300] {
                for iid in [0, 1, 127, 128, 20_000, 3_000_000] {
                    for name in [None, Some("a"), Some(&*"n".repeat(200))] {
                        let named = (iid != 0).then_some((iid, name));
                        encode_event(&mut pk, &mut ev, track, SLICE_BEGIN, ts, named);
                        let mut head = Vec::new();
                        varint(&mut head, ((TRACE_PACKET as u64) << 3) | 2);
                        varint(&mut head, pk.len() as u64);
                        let made = (head.len() + pk.len()) as u64;
                        let intern = name.filter(|_| iid != 0).map(|n| n.len() as u64);
                        assert_eq!(size::event(track, SLICE_BEGIN, ts, iid, intern), made);
                        if intern.is_none() {
                            let mut fast = Vec::new();
                            push_event(&mut fast, track, SLICE_BEGIN, ts, iid);
                            assert_eq!(fast, [&head[..], &pk[..]].concat());
                        }
                        if let Some(len) = intern {
                            let plain = size::event(track, SLICE_BEGIN, ts, iid, None);
                            assert!(made - plain <= size::interned(iid, len));
                        }
                    }
                }
            }
        }
        for v in [0, 1, 127, 128, 16383, 16384, u64::MAX] {
            let mut b = Vec::new();
            varint(&mut b, v);
            assert_eq!(varint_len(v), b.len() as u64);
        }
    }
}
