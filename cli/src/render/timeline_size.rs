//! How large a Perfetto timeline (JSON or `.pftrace`) would be, whole and for each
//! window from the trace's start, from one pass that formats nothing: every event's
//! bytes are counted from its numbers (digits, varint lengths) and its name's length,
//! into buckets of time, so `jtrace perfetto` can choose the window that fits without
//! writing the timeline first.
//!
//! The whole timeline's size is exact. A window's is an upper bound: a slice's end clipped
//! to the window's end is never longer than its real end, an exit clipped there may say
//! `open` (counted from its start to its end), tracks are counted from the start, and
//! an interned name counts at the earliest time it is used, with the largest id any name
//! gets.

use super::perfetto::{self, slice_size};
use super::pftrace::{self, varint_len};
use crate::model::{Alloc, Analysis, BlockKind, Blocked, Call, Exception, Frame, Symbols};
use std::collections::HashMap;

/// Time buckets; a window ends at a bucket's end.
const BUCKETS: usize = 4096;

/// Which timeline.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Format {
    Json,
    Proto,
}

/// An event name's interning (`.pftrace`) or its JSON length (method names in JSON).
struct Name {
    /// Interned id in a whole pass (the order names are first written).
    iid: u64,
    /// Its length (JSON: escaped and quoted).
    len: u64,
    /// The earliest time it is used (ns from the trace's start).
    first: u64,
}

pub struct TimelineSize {
    format: Format,
    /// Width of a bucket in ns, a power of two (doubles as later times come): its log.
    shift: u32,
    /// Bytes by bucket of time (an exit that may be clipped adds its extra at the call's
    /// start and takes it back at its end, hence signed).
    bytes: Vec<i64>,
    /// `.pftrace`: named events by bucket (each may need a longer id in a window).
    named: Vec<u64>,
    /// Bytes counted from the start: the document's frame and the tracks.
    base: u64,
    /// The whole timeline's bytes.
    exact: u64,
    seen: Vec<bool>,
    gc_seen: bool,
    /// Name slot by method index (`u32::MAX`: none yet).
    by_method: Vec<u32>,
    by_text: HashMap<String, u32>,
    names: Vec<Name>,
}

impl TimelineSize {
    pub fn new(format: Format) -> TimelineSize {
        let frame = match format {
            Format::Json => perfetto::size::frame(),
            Format::Proto => pftrace::size::frame(),
        };
        TimelineSize {
            format,
            shift: 0,
            bytes: vec![0; BUCKETS],
            named: vec![0; BUCKETS],
            base: frame,
            exact: frame,
            seen: Vec::new(),
            gc_seen: false,
            by_method: Vec::new(),
            by_text: HashMap::new(),
            names: Vec::new(),
        }
    }

    /// The whole timeline's bytes, exactly.
    pub fn total(&self) -> u64 {
        self.exact
    }

    /// The bucket of time `t`, widening the buckets until it has one.
    fn bucket(&mut self, t: u64) -> usize {
        while t >> self.shift >= BUCKETS as u64 {
            for i in 0..BUCKETS / 2 {
                self.bytes[i] = self.bytes[2 * i] + self.bytes[2 * i + 1];
                self.named[i] = self.named[2 * i] + self.named[2 * i + 1];
            }
            self.bytes[BUCKETS / 2..].fill(0);
            self.named[BUCKETS / 2..].fill(0);
            self.shift += 1;
        }
        (t >> self.shift) as usize
    }

    fn add(&mut self, t: u64, bytes: i64) {
        let b = self.bucket(t);
        self.bytes[b] += bytes;
    }

    /// Counts `bytes` at `t`, in the whole timeline and in windows reaching `t`.
    fn count(&mut self, t: u64, bytes: u64) {
        self.exact += bytes;
        self.add(t, bytes as i64);
    }

    /// The thread's track or name, counted from the start.
    fn thread(&mut self, s: &Symbols, t: u32) -> u64 {
        let i = t as usize;
        if self.seen.len() <= i {
            self.seen.resize(i + 1, false);
        }
        let th = &s.threads[i];
        if !self.seen[i] {
            self.seen[i] = true;
            let b = match self.format {
                Format::Json => perfetto::size::thread(th.id, &th.name),
                Format::Proto => pftrace::size::thread(t, &th.name, th.id),
            };
            self.base += b;
            self.exact += b;
        }
        th.id
    }

    /// The slot of a name, made at its first use (`.pftrace`: interned then).
    fn slot(&mut self, text: &str, json_len: bool) -> (u32, bool) {
        if let Some(&i) = self.by_text.get(text) {
            return (i, false);
        }
        let i = self.names.len() as u32;
        let len = if json_len {
            perfetto::size::name(text)
        } else {
            text.len() as u64
        };
        self.names.push(Name {
            iid: i as u64 + 1,
            len,
            first: u64::MAX,
        });
        self.by_text.insert(text.to_string(), i);
        (i, true)
    }

    fn method_slot(&mut self, s: &Symbols, m: u32) -> (u32, bool) {
        let i = m as usize;
        if self.by_method.len() <= i {
            self.by_method.resize(i + 1, u32::MAX);
        }
        match self.by_method[i] {
            u32::MAX => {
                let json = self.format == Format::Json;
                let r = self.slot(&s.method(m).frame, json);
                self.by_method[i] = r.0;
                r
            }
            slot => (slot, false),
        }
    }

    /// A `.pftrace` named event (slice begin or instant) of name slot `slot` (`new`:
    /// first used here) at `ts` on `track`, and `then` bytes counted at the same time
    /// (its slice's end).
    fn proto_named(&mut self, track: u64, kind: u64, ts: u64, (slot, new): (u32, bool), then: u64) {
        let n = &mut self.names[slot as usize];
        n.first = n.first.min(ts);
        let (iid, len) = (n.iid, n.len);
        // In a window: with the shortest id (the slack of longer ones is added per named
        // event) and without the name's interning (added at its first use).
        let short = pftrace::size::event(track, kind, ts, 1, None);
        self.exact += if new {
            pftrace::size::event(track, kind, ts, iid, Some(len))
        } else {
            short + varint_len(iid) - 1
        } + then;
        let b = self.bucket(ts);
        self.bytes[b] += (short + then) as i64;
        self.named[b] += 1;
    }

    /// The bytes of the window from the trace's start to the end of each bucket, at
    /// most (see the module's note), in order.
    fn windows(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        let mut interned = vec![0i64; BUCKETS];
        let (mut slack, n) = (0, self.names.len() as u64);
        if self.format == Format::Proto {
            slack = varint_len(n) - 1;
            for name in &self.names {
                if name.first != u64::MAX {
                    interned[(name.first >> self.shift) as usize] +=
                        pftrace::size::interned(n, name.len) as i64;
                }
            }
        }
        let mut sum = self.base as i64;
        (0..BUCKETS).map(move |i| {
            sum += self.bytes[i] + interned[i] + (self.named[i] * slack) as i64;
            (((i as u64 + 1) << self.shift) - 1, sum.max(0) as u64)
        })
    }

    /// The longest window from the trace's start (its end, ns from the start) whose
    /// timeline takes at most `limit` bytes; none when not even the first bucket fits.
    pub fn window(&self, limit: u64) -> Option<u64> {
        self.windows()
            .take_while(|&(_, b)| b <= limit)
            .last()
            .map(|(to, _)| to)
    }

    fn rel(s: &Symbols, t: u64) -> u64 {
        t.max(s.window.0).saturating_sub(s.start)
    }
}

impl Analysis for TimelineSize {
    fn enter(&mut self, s: &Symbols, t: u32, _stack: &[Frame]) {
        self.thread(s, t);
    }

    fn exit(&mut self, s: &Symbols, t: u32, c: &Call, _parents: &[Frame]) {
        let tid = self.thread(s, t);
        if !c.counted {
            return;
        }
        let (start, end) = (Self::rel(s, c.start), Self::rel(s, c.end.min(s.window.1)));
        match self.format {
            Format::Json => {
                let (slot, _) = self.method_slot(s, c.method);
                let len = self.names[slot as usize].len;
                let (args, extra) = perfetto::size::exit_args(c);
                let (b, e) = slice_size(tid, start, len, end, args);
                self.count(start, b + e);
                if extra > 0 {
                    self.add(start, extra as i64);
                    self.add(end, -(extra as i64));
                }
            }
            Format::Proto => {
                let track = pftrace::size::thread_track(t);
                let slot = self.method_slot(s, c.method);
                let e = pftrace::size::event(track, pftrace::SLICE_END, end, 0, None);
                self.proto_named(track, pftrace::SLICE_BEGIN, start, slot, e);
            }
        }
    }

    fn alloc(&mut self, s: &Symbols, t: u32, a: &Alloc, _stack: &[Frame]) {
        let tid = self.thread(s, t);
        let ts = Self::rel(s, a.time);
        match self.format {
            Format::Json => self.count(ts, perfetto::size::alloc(s, tid, ts, a)),
            Format::Proto => {
                let name = format!("alloc {}", s.alloc_class(a.class, a.is_array));
                let slot = self.slot(&name, false);
                let track = pftrace::size::thread_track(t);
                self.proto_named(track, pftrace::INSTANT, ts, slot, 0);
            }
        }
    }

    fn exception(&mut self, s: &Symbols, x: &Exception) {
        let tid = self.thread(s, x.thread);
        let ts = Self::rel(s, x.time);
        match self.format {
            Format::Json => self.count(ts, perfetto::size::exception(s, tid, ts, x)),
            Format::Proto => {
                let class = x.class.map_or("?", |c| s.class_name(c));
                let slot = self.slot(&format!("throw {class}"), false);
                let track = pftrace::size::thread_track(x.thread);
                self.proto_named(track, pftrace::INSTANT, ts, slot, 0);
            }
        }
    }

    fn blocked(&mut self, s: &Symbols, b: &Blocked) {
        let tid = self.thread(s, b.thread);
        let (start, end) = (Self::rel(s, b.start), Self::rel(s, b.end.min(s.window.1)));
        match self.format {
            Format::Json => self.count(start, perfetto::size::blocked(s, tid, start, end, b)),
            Format::Proto => {
                let class = b.class.map_or("?", |c| s.class_name(c));
                let what = match b.kind {
                    BlockKind::Contended => "blocked on",
                    BlockKind::Wait => "wait on",
                };
                let slot = self.slot(&format!("{what} {class}"), false);
                let track = pftrace::size::thread_track(b.thread);
                let e = pftrace::size::event(track, pftrace::SLICE_END, end.max(start), 0, None);
                self.proto_named(track, pftrace::SLICE_BEGIN, start, slot, e);
            }
        }
    }

    fn gc(&mut self, s: &Symbols, start: u64, end: u64) {
        let (a, b) = (Self::rel(s, start), Self::rel(s, end.min(s.window.1)));
        match self.format {
            Format::Json => self.count(a, perfetto::size::gc(a, b)),
            Format::Proto => {
                if !self.gc_seen {
                    self.gc_seen = true;
                    let d = pftrace::size::gc_track();
                    self.base += d;
                    self.exact += d;
                }
                let slot = self.slot("GC", false);
                let track = pftrace::size::GC_TRACK;
                let e = pftrace::size::event(track, pftrace::SLICE_END, b.max(a), 0, None);
                self.proto_named(track, pftrace::SLICE_BEGIN, a, slot, e);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::filter::Filter;
    use crate::pass::run_quiet;
    use crate::read;
    use crate::render::perfetto::Perfetto;
    use crate::render::pftrace::Pftrace;
    use std::path::Path;

    /// The timeline's bytes for the window from the start to `to`.
    fn written(path: &Path, format: Format, to: Option<u64>) -> u64 {
        let f = Filter {
            from: to.map(|_| 0),
            to,
            ..Filter::default()
        };
        match format {
            Format::Json => {
                let mut p = Perfetto::new(Vec::new());
                run_quiet(&crate::read::Trace::open(path).unwrap(), f, &mut p).unwrap();
                p.finish().unwrap().0
            }
            Format::Proto => {
                let mut p = Pftrace::new(Vec::new());
                run_quiet(&crate::read::Trace::open(path).unwrap(), f, &mut p).unwrap();
                p.finish().unwrap().0
            }
        }
    }

    /// For every stored trace (its XML and its `.jtr`, cut in small chunks so windows
    /// read through the index), in both formats: the whole timeline's size is exact, and
    /// every window's estimate is at least what the window's timeline takes.
    #[test]
    fn sizes_are_exact_whole_and_upper_bounds_for_windows() {
        for &name in read::STORED {
            let jtr = crate::cmd::window_test::rechunked(&read::stored(name, "jtr"), 40);
            for path in [read::stored(name, "xml"), jtr] {
                for format in [Format::Json, Format::Proto] {
                    let mut size = TimelineSize::new(format);
                    run_quiet(
                        &crate::read::Trace::open(&path).unwrap(),
                        Filter::default(),
                        &mut size,
                    )
                    .unwrap();
                    let whole = written(&path, format, None);
                    assert_eq!(size.total(), whole, "{name} {format:?}");
                    let windows: Vec<_> = size.windows().collect();
                    for &(to, bound) in windows.iter().step_by(97) {
                        let got = written(&path, format, Some(to));
                        assert!(got <= bound, "{name} {format:?} to {to}: {got} > {bound}");
                    }
                    // The window chosen for a limit between the smallest and the whole fits it.
                    let limit = (windows[0].1 + whole) / 2;
                    if let Some(to) = size.window(limit) {
                        assert!(written(&path, format, Some(to)) <= limit, "{name}");
                    }
                }
            }
        }
    }
}
