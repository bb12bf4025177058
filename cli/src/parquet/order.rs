//! Calls in the order `calls.parquet` wants them (by thread, then start) while they finish
//! in another (a caller after its callees), in bounded memory.
//!
//! Each call gets a slot when it starts: its number among its thread's calls, so a finished
//! call lands in place with no sort. Slots are held until [`LIMIT`] rows are; then every
//! thread's finished slots go to a spill file as one sorted run, and the slots start over
//! (calls still open then, at most the stack's depth per thread, go to a small late list
//! when they finish). At the end each thread's runs, late rows and slots are merged by
//! `call_id`, which rises with the start within a thread. A trace whose calls fit in
//! memory never touches the disk; spilled rows take about 15 bytes each.

use crate::model::NONE;
use std::fs::File;
use std::io::{BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

/// Rows held in memory before a spill (about 80 bytes each).
pub const LIMIT: usize = 1_000_000;

/// What a call's row holds (its thread is the list it is in).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CallRow {
    pub call_id: u64,
    /// `u64::MAX`: none.
    pub parent_id: u64,
    pub method: u32,
    pub path: u32,
    pub depth: u32,
    /// Class of the exception that ended the call (`NONE`: none known).
    pub exc: u32,
    pub exit: u8,
    pub recursive: bool,
    pub start: i64,
    /// `EMPTY` in a slot whose call has not finished.
    pub dur: i64,
    pub self_ns: i64,
    pub alloc_bytes: u64,
    pub alloc_count: u64,
}

const EMPTY: i64 = i64::MIN;

/// LEB128.
#[inline]
fn put_u64(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push(v as u8 | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// LEB128 from the front of `input` (which it advances past it).
#[inline]
fn get_u64(input: &mut &[u8]) -> std::io::Result<u64> {
    // Most fields (ids, depths, small differences) fit in one byte.
    if let Some((&b, rest)) = input.split_first() {
        if b < 0x80 {
            *input = rest;
            return Ok(b as u64);
        }
    }
    // Up to eight bytes at once: the first byte without its high bit ends the number,
    // and the seven-bit groups before it are packed together without a loop.
    if let Some(word) = input.first_chunk::<8>() {
        let w = u64::from_le_bytes(*word);
        let stops = !w & 0x8080_8080_8080_8080;
        if stops != 0 {
            let len = (stops.trailing_zeros() / 8 + 1) as usize;
            let x = if len == 8 {
                w
            } else {
                w & ((1u64 << (8 * len)) - 1)
            };
            // Seven-bit groups into 14-bit pairs, 28-bit quads, then one 56-bit number.
            let x = ((x & 0x7f00_7f00_7f00_7f00) >> 1) | (x & 0x007f_007f_007f_007f);
            let x = ((x & 0x3fff_0000_3fff_0000) >> 2) | (x & 0x0000_3fff_0000_3fff);
            let v = ((x & 0x0fff_ffff_0000_0000) >> 4) | (x & 0x0000_0000_0fff_ffff);
            *input = &input[len..];
            return Ok(v);
        }
    }
    let mut v = 0u64;
    for (i, &b) in input.iter().enumerate().take(10) {
        v |= ((b & 0x7f) as u64) << (7 * i);
        if b < 0x80 {
            *input = &input[i + 1..];
            return Ok(v);
        }
    }
    Err(std::io::Error::other("bad varint in the spill file"))
}

fn zigzag(v: i64) -> u64 {
    ((v << 1) ^ (v >> 63)) as u64
}

fn unzigzag(v: u64) -> i64 {
    ((v >> 1) as i64) ^ -((v & 1) as i64)
}

/// The previous row of a run: spill rows are stored as differences from it (a run is
/// sorted by call_id, so by start too), LEB128-coded: ~12 bytes a call instead of 80.
#[derive(Default, Clone, Copy)]
struct Prev {
    call_id: u64,
    start: i64,
}

/// A spill record's first byte: the exit kind in the low two bits, then which of the
/// fields usually absent follow.
const RECURSIVE: u8 = 1 << 2;
const HAS_PARENT: u8 = 1 << 3;
const HAS_EXC: u8 = 1 << 4;
const HAS_ALLOC: u8 = 1 << 5;
/// Method and depth are not stored: they are the path's (see [`Order::path`]).
const BY_PATH: u8 = 1 << 6;

impl CallRow {
    const HOLE: CallRow = CallRow {
        call_id: 0,
        parent_id: 0,
        method: 0,
        path: 0,
        depth: 0,
        exc: 0,
        exit: 0,
        recursive: false,
        start: 0,
        dur: EMPTY,
        self_ns: 0,
        alloc_bytes: 0,
        alloc_count: 0,
    };

    /// `paths[path]` is the path's (method, depth).
    fn encode(&self, paths: &[(u32, u32)], prev: &mut Prev, out: &mut Vec<u8>) {
        let by_path = paths.get(self.path as usize) == Some(&(self.method, self.depth));
        let has_alloc = self.alloc_bytes != 0 || self.alloc_count != 0;
        let flags = (self.exit & 3)
            | if self.recursive { RECURSIVE } else { 0 }
            | if self.parent_id != u64::MAX {
                HAS_PARENT
            } else {
                0
            }
            | if self.exc != NONE { HAS_EXC } else { 0 }
            | if has_alloc { HAS_ALLOC } else { 0 }
            | if by_path { BY_PATH } else { 0 };
        out.push(flags);
        put_u64(out, self.call_id.wrapping_sub(prev.call_id));
        if self.parent_id != u64::MAX {
            // A parent always started before its callee.
            put_u64(out, self.call_id.wrapping_sub(self.parent_id));
        }
        put_u64(out, self.path as u64);
        if !by_path {
            put_u64(out, self.method as u64);
            put_u64(out, self.depth as u64);
        }
        if self.exc != NONE {
            put_u64(out, self.exc as u64);
        }
        put_u64(out, zigzag(self.start.wrapping_sub(prev.start)));
        put_u64(out, zigzag(self.dur));
        put_u64(out, zigzag(self.self_ns));
        if has_alloc {
            put_u64(out, self.alloc_bytes);
            put_u64(out, self.alloc_count);
        }
        *prev = Prev {
            call_id: self.call_id,
            start: self.start,
        };
    }

    fn decode(paths: &[(u32, u32)], prev: &mut Prev, r: &mut &[u8]) -> std::io::Result<CallRow> {
        let (&flags, rest) = r
            .split_first()
            .ok_or_else(|| std::io::Error::other("short spill record"))?;
        *r = rest;
        let call_id = prev.call_id.wrapping_add(get_u64(r)?);
        let parent_id = if flags & HAS_PARENT != 0 {
            call_id.wrapping_sub(get_u64(r)?)
        } else {
            u64::MAX
        };
        let path = get_u64(r)? as u32;
        let (method, depth) = if flags & BY_PATH != 0 {
            *paths
                .get(path as usize)
                .ok_or_else(|| std::io::Error::other("spill record of an unknown path"))?
        } else {
            (get_u64(r)? as u32, get_u64(r)? as u32)
        };
        let exc = if flags & HAS_EXC != 0 {
            get_u64(r)? as u32
        } else {
            NONE
        };
        let start = prev.start.wrapping_add(unzigzag(get_u64(r)?));
        let dur = unzigzag(get_u64(r)?);
        let self_ns = unzigzag(get_u64(r)?);
        let (alloc_bytes, alloc_count) = if flags & HAS_ALLOC != 0 {
            (get_u64(r)?, get_u64(r)?)
        } else {
            (0, 0)
        };
        *prev = Prev { call_id, start };
        Ok(CallRow {
            call_id,
            parent_id,
            method,
            path,
            depth,
            exc,
            exit: flags & 3,
            recursive: flags & RECURSIVE != 0,
            start,
            dur,
            self_ns,
            alloc_bytes,
            alloc_count,
        })
    }
}

#[derive(Default)]
struct Rows {
    /// Thread-local number of `slots[0]`.
    base: u64,
    slots: Vec<CallRow>,
    /// Calls started before the last spill and finished after it.
    late: Vec<CallRow>,
    /// (offset, bytes, rows) of this thread's runs in the spill file: each run holds
    /// the slots after the previous one's, so the runs are in call_id order end to end.
    runs: Vec<(u64, u64, u64)>,
}

struct Spill {
    path: PathBuf,
    out: BufWriter<File>,
    len: u64,
}

impl Spill {
    /// Appends `b` to the spill file and empties it.
    fn append(&mut self, b: &mut Vec<u8>) -> Result<(), String> {
        self.out
            .write_all(b)
            .map_err(|e| format!("{}: cannot write: {e}", self.path.display()))?;
        self.len += b.len() as u64;
        b.clear();
        Ok(())
    }
}

/// Every thread's calls, by thread index.
pub struct Order {
    threads: Vec<Rows>,
    held: usize,
    limit: usize,
    dir: PathBuf,
    spill: Option<Spill>,
    /// Each path's (method, depth): spill records of calls on a known path leave them out.
    paths: Vec<(u32, u32)>,
    /// Rows written to the spill file in all.
    pub spilled: u64,
}

impl Drop for Order {
    fn drop(&mut self) {
        if let Some(s) = self.spill.take() {
            drop(s.out);
            let _ = std::fs::remove_file(&s.path);
        }
    }
}

/// A thread's spilled runs read back one after the other, decoded from a buffer.
struct Runs<'a> {
    file: File,
    path: &'a Path,
    runs: std::slice::Iter<'a, (u64, u64, u64)>,
    paths: &'a [(u32, u32)],
    /// Bytes and rows of the current run not yet read / decoded.
    bytes: u64,
    rows: u64,
    prev: Prev,
    buf: Vec<u8>,
    pos: usize,
}

/// Room for the longest spill record (12 varints and a byte), and for the eight bytes
/// [`get_u64`] reads at once.
const RECORD_MAX: usize = 128;

impl Runs<'_> {
    fn next(&mut self) -> Result<Option<CallRow>, String> {
        let path = self.path;
        let bad = |e: std::io::Error| format!("{}: cannot read: {e}", path.display());
        while self.rows == 0 {
            let Some(&(offset, bytes, rows)) = self.runs.next() else {
                return Ok(None);
            };
            self.file.seek(SeekFrom::Start(offset)).map_err(bad)?;
            (self.bytes, self.rows, self.prev) = (bytes, rows, Prev::default());
            self.buf.clear();
            self.pos = 0;
        }
        if self.buf.len() - self.pos < RECORD_MAX && self.bytes > 0 {
            self.buf.drain(..self.pos);
            self.pos = 0;
            let have = self.buf.len();
            let more = (self.bytes as usize).min(self.buf.capacity().max(1 << 16) - have);
            self.buf.resize(have + more, 0);
            self.file.read_exact(&mut self.buf[have..]).map_err(bad)?;
            self.bytes -= more as u64;
        }
        let mut input = &self.buf[self.pos..];
        let row = CallRow::decode(self.paths, &mut self.prev, &mut input).map_err(bad)?;
        self.pos = self.buf.len() - input.len();
        self.rows -= 1;
        Ok(Some(row))
    }
}

impl Order {
    /// Spill files, if any, go to `dir` (and are removed when done).
    pub fn new(dir: &Path, limit: usize) -> Order {
        Order {
            threads: Vec::new(),
            held: 0,
            limit: limit.max(1),
            dir: dir.to_path_buf(),
            spill: None,
            paths: Vec::new(),
            spilled: 0,
        }
    }

    /// Path `id` (numbered from 0 in order) ends in `method` at `depth`.
    pub fn path(&mut self, id: u32, method: u32, depth: u32) {
        if id as usize == self.paths.len() {
            self.paths.push((method, depth));
        }
    }

    fn rows(&mut self, t: u32) -> &mut Rows {
        let t = t as usize;
        if self.threads.len() <= t {
            self.threads.resize_with(t + 1, Rows::default);
        }
        &mut self.threads[t]
    }

    /// A slot for a call starting on thread `t`: its number on the thread.
    #[inline]
    pub fn reserve(&mut self, t: u32) -> u64 {
        let r = self.rows(t);
        r.slots.push(CallRow::HOLE);
        r.base + r.slots.len() as u64 - 1
    }

    /// The finished call `row` in its slot.
    #[inline]
    pub fn put(&mut self, t: u32, seq: u64, row: CallRow) -> Result<(), String> {
        let r = self.rows(t);
        if seq >= r.base {
            r.slots[(seq - r.base) as usize] = row;
        } else {
            r.late.push(row);
        }
        self.held += 1;
        if self.held >= self.limit {
            self.spill_all()?;
        }
        Ok(())
    }

    /// A finished call's row, while it is still in memory.
    pub fn get_mut(&mut self, t: u32, seq: u64, call_id: u64) -> Option<&mut CallRow> {
        let r = self.threads.get_mut(t as usize)?;
        if seq >= r.base {
            r.slots
                .get_mut((seq - r.base) as usize)
                .filter(|c| c.dur != EMPTY)
        } else {
            r.late.iter_mut().find(|c| c.call_id == call_id)
        }
    }

    fn spill_all(&mut self) -> Result<(), String> {
        if self.spill.is_none() {
            let path = self
                .dir
                .join(format!(".jtrace-spill-{}.tmp", std::process::id()));
            let f = File::create(&path)
                .map_err(|e| format!("{}: cannot write: {e}", path.display()))?;
            self.spill = Some(Spill {
                path,
                out: BufWriter::with_capacity(1 << 20, f),
                len: 0,
            });
        }
        let Some(spill) = self.spill.as_mut() else {
            return Ok(());
        };
        let mut b = Vec::with_capacity(1 << 16);
        let mut late = 0;
        for r in &mut self.threads {
            let start = spill.len;
            let mut n = 0u64;
            let mut prev = Prev::default();
            for row in r.slots.iter().filter(|c| c.dur != EMPTY) {
                row.encode(&self.paths, &mut prev, &mut b);
                n += 1;
                if b.len() >= 1 << 16 {
                    spill.append(&mut b)?;
                }
            }
            spill.append(&mut b)?;
            if n > 0 {
                r.runs.push((start, spill.len - start, n));
                self.spilled += n;
            }
            r.base += r.slots.len() as u64;
            r.slots.clear();
            late += r.late.len();
        }
        self.held = late;
        Ok(())
    }

    /// Threads that have rows, in index order.
    pub fn threads(&self) -> u32 {
        self.threads.len() as u32
    }

    /// Hands thread `t`'s rows to `f` in call_id order.
    pub fn drain(
        &mut self,
        t: u32,
        mut f: impl FnMut(&CallRow) -> Result<(), String>,
    ) -> Result<(), String> {
        if let Some(s) = self.spill.as_mut() {
            s.out
                .flush()
                .map_err(|e| format!("{}: cannot write: {e}", s.path.display()))?;
        }
        let Some(r) = self.threads.get_mut(t as usize) else {
            return Ok(());
        };
        if r.runs.is_empty() && r.late.is_empty() {
            for row in r.slots.iter().filter(|c| c.dur != EMPTY) {
                f(row)?;
            }
            return Ok(());
        }
        r.late.sort_unstable_by_key(|c| c.call_id);
        // The runs then the slots, in call_id order; the late rows merged into them.
        let mut runs = match &self.spill {
            Some(s) if !r.runs.is_empty() => Some(Runs {
                file: File::open(&s.path)
                    .map_err(|e| format!("{}: cannot read: {e}", s.path.display()))?,
                path: &s.path,
                runs: r.runs.iter(),
                paths: &self.paths,
                bytes: 0,
                rows: 0,
                prev: Prev::default(),
                buf: Vec::with_capacity(1 << 16),
                pos: 0,
            }),
            _ => None,
        };
        let mut slots = r.slots.iter().filter(|c| c.dur != EMPTY);
        let mut next_main = || -> Result<Option<CallRow>, String> {
            if let Some(runs) = runs.as_mut() {
                if let Some(row) = runs.next()? {
                    return Ok(Some(row));
                }
            }
            Ok(slots.next().copied())
        };
        let mut late = r.late.iter().peekable();
        let mut main = next_main()?;
        loop {
            let take_late = match (main, late.peek()) {
                (Some(m), Some(l)) => l.call_id < m.call_id,
                (Some(_), None) => false,
                (None, Some(_)) => true,
                (None, None) => break,
            };
            if take_late {
                if let Some(l) = late.next() {
                    f(l)?;
                }
            } else if let Some(m) = main {
                f(&m)?;
                main = next_main()?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(call_id: u64) -> CallRow {
        CallRow {
            call_id,
            dur: call_id as i64,
            ..CallRow::HOLE
        }
    }

    /// Nested calls finishing innermost first come out in start order, spilled or not.
    #[test]
    fn start_order_with_and_without_spills() {
        for limit in [1, 2, 3, 1000] {
            let dir =
                std::env::temp_dir().join(format!("jtrace-order-{}-{limit}", std::process::id()));
            std::fs::create_dir_all(&dir).unwrap();
            let mut o = Order::new(&dir, limit);
            // Two threads, each: a(b(c) d) e, with call ids interleaved across threads.
            let mut id = 0u64;
            let mut open: Vec<Vec<(u64, u64)>> = vec![Vec::new(), Vec::new()];
            let script = ["(", "(", "(", ")", ")", "(", ")", ")", "(", ")"];
            for step in script {
                for t in 0..2u32 {
                    if step == "(" {
                        let seq = o.reserve(t);
                        open[t as usize].push((seq, id));
                        id += 1;
                    } else {
                        let (seq, cid) = open[t as usize].pop().unwrap();
                        o.put(t, seq, row(cid)).unwrap();
                    }
                }
            }
            for t in 0..2u32 {
                let mut got = Vec::new();
                o.drain(t, |r| {
                    got.push(r.call_id);
                    Ok(())
                })
                .unwrap();
                let want: Vec<u64> = (0..10).filter(|i| i % 2 == t as u64).collect();
                assert_eq!(got, want, "limit {limit}");
            }
            assert_eq!(o.spilled > 0, limit < 10);
            drop(o);
            assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0);
            let _ = std::fs::remove_dir(&dir);
        }
    }

    /// Every length of LEB128 number, followed by more bytes or at the end of the input.
    #[test]
    fn varints_of_every_length() {
        let mut values = vec![0, 1, 127, 128, u64::MAX, u64::MAX >> 1];
        for bits in 1..64 {
            values.push((1u64 << bits) - 1);
            values.push(1u64 << bits);
            values.push((1u64 << bits) | 0x55);
        }
        let mut b = Vec::new();
        for &v in &values {
            put_u64(&mut b, v);
        }
        let mut input = &b[..];
        for &v in &values {
            assert_eq!(get_u64(&mut input).unwrap(), v);
        }
        assert!(input.is_empty());
    }

    #[test]
    fn spill_record_round_trip() {
        let r = CallRow {
            call_id: 7,
            parent_id: u64::MAX,
            method: 3,
            path: 4,
            depth: 5,
            exc: u32::MAX,
            exit: 2,
            recursive: true,
            start: 11,
            dur: 12,
            self_ns: 13,
            alloc_bytes: 14,
            alloc_count: 15,
        };
        // Path 4 ends in method 3 at depth 5: `r` leaves them out, `next` (another
        // method on it) stores them.
        let paths = [(0, 0), (0, 0), (0, 0), (0, 0), (3, 5)];
        let mut prev = Prev::default();
        let mut b = Vec::new();
        r.encode(&paths, &mut prev, &mut b);
        let next = CallRow {
            call_id: 9,
            parent_id: 7,
            method: 2,
            exc: 6,
            start: 10,
            dur: -1,
            self_ns: i64::MAX,
            alloc_bytes: 0,
            alloc_count: 0,
            ..r
        };
        next.encode(&paths, &mut prev, &mut b);
        let mut read = Prev::default();
        let mut input = &b[..];
        assert_eq!(CallRow::decode(&paths, &mut read, &mut input).unwrap(), r);
        assert_eq!(
            CallRow::decode(&paths, &mut read, &mut input).unwrap(),
            next
        );
        assert!(input.is_empty());
    }
}
