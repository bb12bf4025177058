//! Calls in the order `calls.parquet` wants them (by thread, then start) while they finish
//! in another (a caller after its callees), in bounded memory.
//!
//! Each call gets a slot when it starts: its number among its thread's calls, so a finished
//! call lands in place with no sort. Slots are held until [`LIMIT`] rows are; then every
//! thread's finished slots go to a spill file as one sorted run, and the slots start over
//! (calls still open then, at most the stack's depth per thread, go to a small late list
//! when they finish). At the end each thread's runs, late rows and slots are merged by
//! `call_id`, which rises with the start within a thread. A trace whose calls fit in
//! memory never touches the disk. Spilled rows go in blocks of [`SPILL_BLOCK`], each
//! field of a block one `DELTA_BINARY_PACKED` run ([`pages::delta`]): a few bits a
//! field, coded and decoded without a branch per byte.

use super::pages;
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

/// Rows per spill block.
const SPILL_BLOCK: usize = 4096;
/// Fields of a spilled row.
const FIELDS: usize = 12;

/// Spilled rows, field by field.
#[derive(Default)]
struct Block {
    cols: [Vec<i64>; FIELDS],
}

impl Block {
    fn len(&self) -> usize {
        self.cols[0].len()
    }

    #[inline]
    fn push(&mut self, r: &CallRow) {
        let f = [
            r.call_id as i64,
            r.parent_id as i64,
            r.method as i64,
            r.path as i64,
            r.depth as i64,
            r.exc as i64,
            r.exit as i64 | (r.recursive as i64) << 2,
            r.start,
            r.dur,
            r.self_ns,
            r.alloc_bytes as i64,
            r.alloc_count as i64,
        ];
        for (c, v) in self.cols.iter_mut().zip(f) {
            c.push(v);
        }
    }

    #[inline]
    fn row(&self, i: usize) -> CallRow {
        let c = &self.cols;
        CallRow {
            call_id: c[0][i] as u64,
            parent_id: c[1][i] as u64,
            method: c[2][i] as u32,
            path: c[3][i] as u32,
            depth: c[4][i] as u32,
            exc: c[5][i] as u32,
            exit: (c[6][i] & 3) as u8,
            recursive: c[6][i] & 4 != 0,
            start: c[7][i],
            dur: c[8][i],
            self_ns: c[9][i],
            alloc_bytes: c[10][i] as u64,
            alloc_count: c[11][i] as u64,
        }
    }

    /// Appends the block (its length in bytes, then each field) to `out`; empties it.
    fn encode(&mut self, out: &mut Vec<u8>) {
        let at = out.len();
        out.extend_from_slice(&[0; 4]);
        for c in &mut self.cols {
            pages::delta(c, out);
            c.clear();
        }
        let len = (out.len() - at - 4) as u32;
        out[at..at + 4].copy_from_slice(&len.to_le_bytes());
    }

    /// The block encoded in `input` (without its length).
    fn decode(&mut self, mut input: &[u8]) -> Result<(), String> {
        for c in &mut self.cols {
            c.clear();
            pages::undelta(&mut input, c)?;
        }
        let n = self.len();
        if self.cols.iter().any(|c| c.len() != n) || !input.is_empty() {
            return Err("a damaged block".into());
        }
        Ok(())
    }
}

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
}

#[derive(Default)]
struct Rows {
    /// Thread-local number of `slots[0]`.
    base: u64,
    slots: Vec<CallRow>,
    /// Calls started before the last spill and finished after it.
    late: Vec<CallRow>,
    /// (offset, rows) of this thread's runs in the spill file: each run holds the
    /// slots after the previous one's, so the runs are in call_id order end to end.
    runs: Vec<(u64, u64)>,
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
    /// The rows being spilled, field by field.
    block: Block,
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

/// A thread's spilled runs read back one after the other, a block at a time.
struct Runs<'a> {
    file: File,
    path: &'a Path,
    runs: std::slice::Iter<'a, (u64, u64)>,
    /// Rows of the current run not yet decoded.
    rows: u64,
    block: Block,
    /// The next row of `block`.
    at: usize,
    buf: Vec<u8>,
}

impl Runs<'_> {
    fn next(&mut self) -> Result<Option<CallRow>, String> {
        if self.at < self.block.len() {
            self.at += 1;
            return Ok(Some(self.block.row(self.at - 1)));
        }
        let path = self.path;
        let bad = |e: &dyn std::fmt::Display| format!("{}: cannot read: {e}", path.display());
        while self.rows == 0 {
            let Some(&(offset, rows)) = self.runs.next() else {
                return Ok(None);
            };
            self.file
                .seek(SeekFrom::Start(offset))
                .map_err(|e| bad(&e))?;
            self.rows = rows;
        }
        let mut len = [0u8; 4];
        self.file.read_exact(&mut len).map_err(|e| bad(&e))?;
        self.buf.resize(u32::from_le_bytes(len) as usize, 0);
        self.file.read_exact(&mut self.buf).map_err(|e| bad(&e))?;
        self.block.decode(&self.buf).map_err(|e| bad(&e))?;
        let n = self.block.len() as u64;
        if n == 0 || n > self.rows {
            return Err(bad(&"a damaged block"));
        }
        self.rows -= n;
        self.at = 1;
        Ok(Some(self.block.row(0)))
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
            block: Block::default(),
            spilled: 0,
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
        let block = &mut self.block;
        for r in &mut self.threads {
            let start = spill.len;
            let mut n = 0u64;
            for row in r.slots.iter().filter(|c| c.dur != EMPTY) {
                block.push(row);
                n += 1;
                if block.len() == SPILL_BLOCK {
                    block.encode(&mut b);
                    if b.len() >= 1 << 16 {
                        spill.append(&mut b)?;
                    }
                }
            }
            if block.len() > 0 {
                block.encode(&mut b);
            }
            spill.append(&mut b)?;
            if n > 0 {
                r.runs.push((start, n));
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
                rows: 0,
                block: Block::default(),
                at: 0,
                buf: Vec::new(),
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

    /// Rows of every field's extremes through a spill block and back.
    #[test]
    fn spill_block_round_trip() {
        let mut rows = Vec::new();
        for i in 0..SPILL_BLOCK as u64 + 3 {
            rows.push(CallRow {
                call_id: i,
                parent_id: if i % 7 == 0 { u64::MAX } else { i / 2 },
                method: (i % 5) as u32,
                path: (i * 3) as u32,
                depth: (i % 11) as u32,
                exc: if i % 13 == 0 { 4 } else { u32::MAX },
                exit: (i % 4) as u8,
                recursive: i % 3 == 0,
                start: i as i64 * 1000,
                dur: if i == 5 { i64::MAX } else { -(i as i64) },
                self_ns: i64::MIN + i as i64,
                alloc_bytes: u64::MAX - i,
                alloc_count: i,
            });
        }
        for chunk in rows.chunks(SPILL_BLOCK) {
            let mut b = Block::default();
            for r in chunk {
                b.push(r);
            }
            let mut out = Vec::new();
            b.encode(&mut out);
            assert_eq!(b.len(), 0);
            let len = u32::from_le_bytes(out[..4].try_into().unwrap()) as usize;
            assert_eq!(len, out.len() - 4);
            b.decode(&out[4..]).unwrap();
            let back: Vec<CallRow> = (0..b.len()).map(|i| b.row(i)).collect();
            assert_eq!(back, chunk);
            assert!(b.decode(&out[4..out.len() - 1]).is_err());
        }
    }
}
