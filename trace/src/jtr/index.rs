//! The `.jtr` index: a block after the finish block listing every record chunk (its offset, length, thread, first and last tick, whether it holds allocations or a thread end, and where a reader resumes its thread's stack in it), found from the file's last 12 bytes, so that a reader seeks past what an answer does not need.
//!
//! Readers that stop at the finish block (every reader of version 3) never see it; a
//! file cut short has none and is read whole. The resume points came after the first
//! indexes, as a section after the entries that earlier readers do not read.

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

/// Resume flags: a monitor wait or contended enter is still open at the chunk's end.
pub const PENDING: u8 = 1;
/// Resume flags: the chunk holds line records.
pub const LINES: u8 = 2;
/// The resume section's layout (the first byte after the entries).
const RESUME_V1: u64 = 1;
/// Sections after the resume section: each a kind, a byte length and a body, so that a
/// reader skips the kinds it does not know. Kind 2: each chunk's end state ([`End`]).
const SECTION_END: u64 = 2;

/// Where a reader resumes a thread's stack in a chunk (`super::depth` computes it):
/// the frames open at the chunk's end are the `min` frames open at byte `at` of its
/// records, plus those the records from `at` on leave open.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Resume {
    /// Open frames at the chunk's start, the fewest at any point in it, at its end.
    pub depth: u32,
    pub min: u32,
    pub end: u32,
    /// Offset in the chunk's records just after the last record that brought the
    /// stack down to `min` (0: it never went below `depth`).
    pub at: u32,
    /// Tickets the thread had given at the chunk's start, and at `at`.
    pub tickets: u64,
    pub at_tickets: u64,
    pub flags: u8,
    /// The thread's state at the chunk's end that the entries above do not give (None:
    /// an index written before the end-state section).
    pub end_state: Option<End>,
}

/// What a thread leaves at a chunk's end besides its open frames: what a reader that
/// resumes it later needs to give the answers of a whole read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct End {
    /// The last executable unit reported in the frame open at level `min` (the
    /// innermost one the chunk does not close; None: no line reported in it yet, or
    /// `min` is 0). The frames above it are rebuilt from the records after `at`, the
    /// ones below it are never innermost in the chunk.
    pub unit: Option<u32>,
    /// The exception last thrown out of a frame of the thread and not caught since,
    /// and that frame's method (a reader's pending exception: a later throw of the
    /// same object continues it).
    pub exception: Option<(u64, u32)>,
}

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
    /// None in an index written before resume points were.
    pub resume: Option<Resume>,
}

impl ChunkEntry {
    pub fn new(offset: u64, len: u32, tid: u32, scan: &Scan, resume: Resume) -> ChunkEntry {
        ChunkEntry {
            offset,
            len,
            tid,
            ticks: scan.first_tick.zip(scan.last_tick),
            allocs: scan.allocs,
            thread_end: scan.thread_end,
            resume: Some(resume),
        }
    }

    /// The earliest and the latest of its first and last ticks.
    pub fn tick_range(&self) -> Option<(u64, u64)> {
        self.ticks.map(|(a, b)| (a.min(b), a.max(b)))
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
    if entries.iter().all(|e| e.resume.is_some()) {
        put_uvar(out, RESUME_V1);
        for r in entries.iter().filter_map(|e| e.resume) {
            put_uvar(out, r.depth as u64);
            put_uvar(out, (r.depth - r.min) as u64);
            put_uvar(out, r.end as u64);
            put_uvar(out, r.at as u64);
            put_uvar(out, r.tickets);
            put_uvar(out, r.at_tickets - r.tickets);
            out.push(r.flags);
        }
        if entries
            .iter()
            .all(|e| e.resume.is_some_and(|r| r.end_state.is_some()))
        {
            let mut body = Vec::new();
            for r in entries.iter().filter_map(|e| e.resume) {
                let end = r.end_state.unwrap_or_default();
                put_uvar(&mut body, end.unit.map_or(0, |u| u as u64 + 1));
                body.push(end.exception.is_some() as u8);
                if let Some((obj, mid)) = end.exception {
                    put_uvar(&mut body, obj);
                    put_uvar(&mut body, mid as u64);
                }
            }
            put_uvar(out, SECTION_END);
            put_uvar(out, body.len() as u64);
            out.extend_from_slice(&body);
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
            resume: None,
        });
    }
    // The resume section, if there is one of a layout this reader knows.
    if c.left() > 0 && c.uvar("resume layout")? == RESUME_V1 {
        for e in &mut out {
            let depth = c.u32var("resume depth")?;
            let min = depth
                .checked_sub(c.u32var("resume min")?)
                .ok_or("resume min above depth")?;
            let end = c.u32var("resume end")?;
            let at = c.u32var("resume at")?;
            let tickets = c.uvar("resume tickets")?;
            let at_tickets = tickets
                .checked_add(c.uvar("resume at tickets")?)
                .ok_or("resume tickets overflow")?;
            let flags = c.u8("resume flags")?;
            e.resume = Some(Resume {
                depth,
                min,
                end,
                at,
                tickets,
                at_tickets,
                flags,
                end_state: None,
            });
        }
        // Later sections: the kinds this reader knows, the others skipped.
        while c.left() > 0 {
            let kind = c.uvar("index section kind")?;
            let len = c.count("index section length")?;
            let body = c.bytes(len, "index section")?;
            if kind == SECTION_END {
                let mut b = Cursor::new(body);
                for e in &mut out {
                    let unit = b.u32var("end unit")?.checked_sub(1);
                    let exception = match b.u8("end exception")? {
                        0 => None,
                        _ => Some((b.uvar("end exception")?, b.u32var("end exception method")?)),
                    };
                    if let Some(r) = e.resume.as_mut() {
                        r.end_state = Some(End { unit, exception });
                    }
                }
            }
        }
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
                resume: Some(Resume {
                    depth: 4,
                    min: 1,
                    end: 3,
                    at: 130,
                    tickets: 77,
                    at_tickets: 80,
                    flags: PENDING,
                    end_state: Some(End {
                        unit: Some(0),
                        exception: Some((1 << 40, 7)),
                    }),
                }),
            },
            ChunkEntry {
                offset: 65641,
                len: 9,
                tid: 0,
                ticks: None,
                allocs: false,
                thread_end: true,
                resume: Some(Resume {
                    end_state: Some(End::default()),
                    ..Resume::default()
                }),
            },
        ];
        let mut b = Vec::new();
        encode(&mut b, &e, 70000);
        assert_eq!(&b[b.len() - 4..], &INDEX_MAGIC);
        assert_eq!(decode(&b).unwrap(), e);
        assert!(decode(&b[..5]).is_err());
        // Without the end states (as written before them): read as one.
        let older: Vec<ChunkEntry> = e
            .iter()
            .map(|x| ChunkEntry {
                resume: x.resume.map(|r| Resume {
                    end_state: None,
                    ..r
                }),
                ..*x
            })
            .collect();
        let mut b = Vec::new();
        encode(&mut b, &older, 70000);
        assert_eq!(decode(&b).unwrap(), older);
        // A section of a kind this reader does not know is skipped.
        let mut b = Vec::new();
        encode(&mut b, &e, 70000);
        let trailer = b.split_off(b.len() - TRAILER);
        b.extend_from_slice(&[9, 3, 1, 2, 3]);
        b.extend_from_slice(&trailer);
        assert_eq!(decode(&b).unwrap(), e);
        // An index without resume points (as written before them) reads as one.
        let old: Vec<ChunkEntry> = e
            .iter()
            .map(|x| ChunkEntry { resume: None, ..*x })
            .collect();
        let mut b = Vec::new();
        encode(&mut b, &old, 70000);
        assert_eq!(decode(&b).unwrap(), old);
    }
}
