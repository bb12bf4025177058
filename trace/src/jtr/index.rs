//! The `.jtr` index: a block after the finish block listing every record chunk (its offset, length, thread, first and last tick, whether it holds allocations or a thread end), found from the file's last 12 bytes, so that a reader seeks past what an answer does not need.
//!
//! Readers that stop at the finish block (every reader of version 3) never see it; a
//! file cut short has none and is read whole.

use super::wire::{put_uvar, Cursor, WireResult};
use crate::record::Scan;

/// Block kind of the index.
pub const BLOCK_INDEX: u8 = 5;
/// The last 4 bytes of a file with an index; the 8 before them are the index block's
/// offset (u64 little-endian).
pub const INDEX_MAGIC: [u8; 4] = *b"JTRI";
/// Bytes of the trailer: offset and magic.
pub const TRAILER: usize = 12;

const HAS_TICKS: u8 = 1;
const ALLOCS: u8 = 2;
const THREAD_END: u8 = 4;

/// One record chunk of the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChunkEntry {
    /// Offset of the block (its kind byte) and its body's length.
    pub offset: u64,
    pub len: u32,
    pub tid: u32,
    /// Ticks of its first and last timed record (None: it has none).
    pub ticks: Option<(u64, u64)>,
    pub allocs: bool,
    pub thread_end: bool,
}

impl ChunkEntry {
    pub fn new(offset: u64, len: u32, tid: u32, scan: &Scan) -> ChunkEntry {
        ChunkEntry {
            offset,
            len,
            tid,
            ticks: scan.first_tick.zip(scan.last_tick),
            allocs: scan.allocs,
            thread_end: scan.thread_end,
        }
    }
}

/// The body of an index block written at `at`: the entries (offsets as deltas), then
/// the trailer.
pub fn encode(out: &mut Vec<u8>, entries: &[ChunkEntry], at: u64) {
    put_uvar(out, entries.len() as u64);
    let mut prev = 0;
    for e in entries {
        put_uvar(out, e.offset - prev);
        prev = e.offset;
        put_uvar(out, e.len as u64);
        put_uvar(out, e.tid as u64);
        let flags = e.ticks.map_or(0, |_| HAS_TICKS)
            | if e.allocs { ALLOCS } else { 0 }
            | if e.thread_end { THREAD_END } else { 0 };
        out.push(flags);
        if let Some((a, b)) = e.ticks {
            put_uvar(out, a);
            put_uvar(out, b.saturating_sub(a));
        }
    }
    out.extend_from_slice(&at.to_le_bytes());
    out.extend_from_slice(&INDEX_MAGIC);
}

pub fn decode(body: &[u8]) -> WireResult<Vec<ChunkEntry>> {
    let entries = body
        .len()
        .checked_sub(TRAILER)
        .ok_or("index block shorter than its trailer")?;
    let mut c = Cursor::new(&body[..entries]);
    let n = c.count("index entries")?;
    let mut out = Vec::with_capacity(n);
    let mut prev = 0u64;
    for _ in 0..n {
        let offset = prev
            .checked_add(c.uvar("chunk offset")?)
            .ok_or("chunk offset overflows")?;
        prev = offset;
        let len = c.u32var("chunk length")?;
        let tid = c.u32var("chunk thread")?;
        let flags = c.u8("chunk flags")?;
        let ticks = if flags & HAS_TICKS != 0 {
            let a = c.uvar("first tick")?;
            Some((a, a.saturating_add(c.uvar("last tick")?)))
        } else {
            None
        };
        out.push(ChunkEntry {
            offset,
            len,
            tid,
            ticks,
            allocs: flags & ALLOCS != 0,
            thread_end: flags & THREAD_END != 0,
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_round_trip() {
        let e = vec![
            ChunkEntry {
                offset: 100,
                len: 65536,
                tid: 3,
                ticks: Some((5, 90)),
                allocs: true,
                thread_end: false,
            },
            ChunkEntry {
                offset: 65641,
                len: 9,
                tid: 0,
                ticks: None,
                allocs: false,
                thread_end: true,
            },
        ];
        let mut b = Vec::new();
        encode(&mut b, &e, 70000);
        assert_eq!(&b[b.len() - 4..], &INDEX_MAGIC);
        assert_eq!(decode(&b).unwrap(), e);
        assert!(decode(&b[..5]).is_err());
    }
}
