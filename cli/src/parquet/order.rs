//! Calls in the order `calls.parquet` wants them (by thread, then start) while they finish
//! in another (a caller after its callees), in bounded memory.
//!
//! Each call gets a slot when it starts: its number among its thread's calls, so a finished
//! call lands in place with no sort. Slots are held until [`LIMIT`] rows are; then every
//! thread's finished slots go to a spill file as one sorted run, and the slots start over
//! (calls still open then, at most the stack's depth per thread, go to a small late list
//! when they finish). At the end each thread's runs, late rows and slots are merged by
//! `call_id`, which rises with the start within a thread. A trace whose calls fit in
//! memory never touches the disk.

use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

/// Rows held in memory before a spill (about 80 bytes each).
pub const LIMIT: usize = 2_000_000;

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
/// Bytes of a row in a spill file.
const REC: usize = 8 * 8 + 4 * 4 + 2;

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

    fn encode(&self, b: &mut [u8; REC]) {
        let w8 = [
            self.call_id,
            self.parent_id,
            self.start as u64,
            self.dur as u64,
            self.self_ns as u64,
            self.alloc_bytes,
            self.alloc_count,
            0,
        ];
        for (i, v) in w8.iter().enumerate() {
            b[i * 8..i * 8 + 8].copy_from_slice(&v.to_le_bytes());
        }
        for (i, v) in [self.method, self.path, self.depth, self.exc]
            .iter()
            .enumerate()
        {
            b[64 + i * 4..68 + i * 4].copy_from_slice(&v.to_le_bytes());
        }
        b[80] = self.exit;
        b[81] = self.recursive as u8;
    }

    fn decode(b: &[u8; REC]) -> CallRow {
        let u8_at = |i: usize| u64::from_le_bytes(b[i * 8..i * 8 + 8].try_into().unwrap_or([0; 8]));
        let u4_at =
            |i: usize| u32::from_le_bytes(b[64 + i * 4..68 + i * 4].try_into().unwrap_or([0; 4]));
        CallRow {
            call_id: u8_at(0),
            parent_id: u8_at(1),
            start: u8_at(2) as i64,
            dur: u8_at(3) as i64,
            self_ns: u8_at(4) as i64,
            alloc_bytes: u8_at(5),
            alloc_count: u8_at(6),
            method: u4_at(0),
            path: u4_at(1),
            depth: u4_at(2),
            exc: u4_at(3),
            exit: b[80],
            recursive: b[81] != 0,
        }
    }
}

#[derive(Default)]
struct Rows {
    /// Thread-local number of `slots[0]`.
    base: u64,
    slots: Vec<CallRow>,
    /// Calls started before the last spill and finished after it.
    late: Vec<CallRow>,
    /// (offset, rows) of this thread's runs in the spill file.
    runs: Vec<(u64, u64)>,
}

struct Spill {
    path: PathBuf,
    out: BufWriter<File>,
    len: u64,
}

/// Every thread's calls, by thread index.
pub struct Order {
    threads: Vec<Rows>,
    held: usize,
    limit: usize,
    dir: PathBuf,
    spill: Option<Spill>,
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

/// A thread's rows in call_id order: one sorted source among several.
enum Source<'a> {
    Run(BufReader<File>, u64),
    Mem(std::slice::Iter<'a, CallRow>),
}

impl Source<'_> {
    fn next(&mut self) -> Result<Option<CallRow>, String> {
        match self {
            Source::Run(r, left) => {
                if *left == 0 {
                    return Ok(None);
                }
                *left -= 1;
                let mut b = [0u8; REC];
                r.read_exact(&mut b)
                    .map_err(|e| format!("spill file: cannot read: {e}"))?;
                Ok(Some(CallRow::decode(&b)))
            }
            Source::Mem(it) => Ok(it.find(|r| r.dur != EMPTY).copied()),
        }
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
        let mut b = [0u8; REC];
        let mut late = 0;
        for r in &mut self.threads {
            let start = spill.len;
            let mut n = 0u64;
            for row in r.slots.iter().filter(|c| c.dur != EMPTY) {
                row.encode(&mut b);
                spill
                    .out
                    .write_all(&b)
                    .map_err(|e| format!("{}: cannot write: {e}", spill.path.display()))?;
                n += 1;
            }
            if n > 0 {
                r.runs.push((start, n));
                spill.len += n * REC as u64;
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
        let mut sources = Vec::new();
        if let Some(s) = &self.spill {
            for &(offset, n) in &r.runs {
                let mut file = File::open(&s.path)
                    .map_err(|e| format!("{}: cannot read: {e}", s.path.display()))?;
                file.seek(SeekFrom::Start(offset))
                    .map_err(|e| format!("{}: cannot read: {e}", s.path.display()))?;
                sources.push(Source::Run(BufReader::with_capacity(1 << 16, file), n));
            }
        }
        sources.push(Source::Mem(r.late.iter()));
        sources.push(Source::Mem(r.slots.iter()));
        let mut heads = Vec::with_capacity(sources.len());
        for s in &mut sources {
            heads.push(s.next()?);
        }
        loop {
            let mut best: Option<usize> = None;
            for (i, h) in heads.iter().enumerate() {
                if let Some(h) = h {
                    if best.is_none_or(|b| heads[b].is_some_and(|x| h.call_id < x.call_id)) {
                        best = Some(i);
                    }
                }
            }
            let Some(i) = best else { break };
            if let Some(row) = heads[i] {
                f(&row)?;
            }
            heads[i] = sources[i].next()?;
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
        let mut b = [0u8; REC];
        r.encode(&mut b);
        assert_eq!(CallRow::decode(&b), r);
    }
}
