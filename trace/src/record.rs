//! Compact binary records: what a callback or probe writes into its thread's buffer, and how the renderer reads them back.
//!
//! A record is a tag byte followed by little-endian fields. Records carry only what
//! the event knows at the moment (ids and a raw tick); tickets, stack depths, class
//! ids of methods and source lines are derived by the renderer, which replays each
//! thread's records in order. Where an event came from (JVMTI callback or bytecode
//! probe) is not recorded: both sources write the same records.

/// Largest encoded record, so a producer can check for room once.
pub const MAX_RECORD: usize = 64;

pub const TAG_ENTRY: u8 = 1;
pub const TAG_EXIT: u8 = 2;
pub const TAG_EXIT_EXC: u8 = 3;
pub const TAG_THREAD_END: u8 = 4;
pub const TAG_INIT_DONE: u8 = 5;
pub const TAG_CATCH: u8 = 7;
pub const TAG_ALLOC: u8 = 9;
pub const TAG_GC_START: u8 = 10;
pub const TAG_GC_FINISH: u8 = 11;
pub const TAG_HEAP: u8 = 12;
pub const TAG_OBJ_FREE: u8 = 13;
pub const TAG_CLASS_UNLOAD: u8 = 14;
pub const TAG_MON_ENTER: u8 = 15;
pub const TAG_MON_ENTERED: u8 = 16;
pub const TAG_MON_WAIT: u8 = 17;
pub const TAG_MON_WAITED: u8 = 18;
pub const TAG_LINE: u8 = 19;
pub const TAG_MON_OWNER: u8 = 20;

/// A decoded record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rec {
    /// A traced method was entered.
    Entry {
        mid: u32,
        t: u64,
    },
    /// A traced method returned normally.
    Exit {
        mid: u32,
        t: u64,
    },
    /// A traced method's frame was popped by exception `obj` (0 if unknown).
    ExitExc {
        mid: u32,
        obj: u64,
        t: u64,
    },
    /// A traced method's frame caught exception `obj`.
    Catch {
        mid: u32,
        obj: u64,
        t: u64,
    },
    /// The thread ended (last record of its stream).
    ThreadEnd {
        t: u64,
    },
    /// The VM finished initialising.
    InitDone {
        t: u64,
    },
    /// An object allocated by traced code. `is_array` is the TPTP code; `cid` is the
    /// class (element class for object arrays, 0 for primitive arrays); `mid`/`loc`
    /// the allocating method and bytecode index (0 if unknown).
    Alloc {
        obj: u64,
        cid: u32,
        is_array: u8,
        size: u64,
        mid: u32,
        loc: u32,
        t: u64,
    },
    GcStart {
        t: u64,
    },
    GcFinish {
        t: u64,
    },
    /// Heap figures read just after a collection.
    Heap {
        total: u64,
        used: u64,
    },
    ObjFree {
        obj: u64,
        t: u64,
    },
    ClassUnload {
        cid: u32,
        t: u64,
    },
    /// A contended enter; the owner follows in `MonOwner` (looking it up is slow,
    /// and the owner may end meanwhile: the renderer holds thread ends back until then).
    MonEnter {
        obj: u64,
        t: u64,
    },
    /// The owner (thread id, 0 unknown) of the thread's last `MonEnter`.
    MonOwner {
        owner: u32,
    },
    MonEntered {
        obj: u64,
        t: u64,
    },
    /// `timeout` in milliseconds (0 = forever).
    MonWait {
        obj: u64,
        timeout: u64,
        t: u64,
    },
    MonWaited {
        obj: u64,
        timed_out: bool,
        t: u64,
    },
    /// Execution reached executable unit `unit` of method `mid`.
    Line {
        mid: u32,
        unit: u32,
        t: u64,
    },
}

/// Builds one record in a stack array: one copy into the buffer on the hot path.
pub struct Enc {
    buf: [u8; MAX_RECORD],
    len: usize,
}

impl Enc {
    #[inline(always)]
    pub fn new(tag: u8) -> Enc {
        let mut buf = [0u8; MAX_RECORD];
        buf[0] = tag;
        Enc { buf, len: 1 }
    }

    #[inline(always)]
    pub fn u8(mut self, v: u8) -> Enc {
        self.buf[self.len] = v;
        self.len += 1;
        self
    }

    #[inline(always)]
    pub fn u32(mut self, v: u32) -> Enc {
        self.buf[self.len..self.len + 4].copy_from_slice(&v.to_le_bytes());
        self.len += 4;
        self
    }

    #[inline(always)]
    pub fn u64(mut self, v: u64) -> Enc {
        self.buf[self.len..self.len + 8].copy_from_slice(&v.to_le_bytes());
        self.len += 8;
        self
    }

    #[inline(always)]
    pub fn bytes(&self) -> &[u8] {
        &self.buf[..self.len]
    }
}

/// Encodes a (tag, id, tick) record into a fixed array: the method-event hot path.
#[inline(always)]
pub fn id_tick(tag: u8, id: u32, t: u64) -> [u8; 13] {
    let mut r = [0u8; 13];
    r[0] = tag;
    r[1..5].copy_from_slice(&id.to_le_bytes());
    r[5..13].copy_from_slice(&t.to_le_bytes());
    r
}

/// Encodes a (tag, method id, object id, tick) record.
#[inline(always)]
pub fn id_obj_tick(tag: u8, id: u32, obj: u64, t: u64) -> Enc {
    Enc::new(tag).u32(id).u64(obj).u64(t)
}

/// Encodes a (tag, tick) record.
#[inline(always)]
pub fn tick_only(tag: u8, t: u64) -> Enc {
    Enc::new(tag).u64(t)
}

impl Rec {
    /// The record's bytes: tag, then its fields in the order the decoder (`Reader`)
    /// reads them. The one encoder of every record kind; inlined at each call site,
    /// where the variant is known, so it compiles to the stores of that kind only.
    #[inline(always)]
    pub fn encode(self) -> Enc {
        match self {
            Rec::Entry { mid, t } => Enc::new(TAG_ENTRY).u32(mid).u64(t),
            Rec::Exit { mid, t } => Enc::new(TAG_EXIT).u32(mid).u64(t),
            Rec::ExitExc { mid, obj, t } => id_obj_tick(TAG_EXIT_EXC, mid, obj, t),
            Rec::Catch { mid, obj, t } => id_obj_tick(TAG_CATCH, mid, obj, t),
            Rec::ThreadEnd { t } => tick_only(TAG_THREAD_END, t),
            Rec::InitDone { t } => tick_only(TAG_INIT_DONE, t),
            Rec::Alloc {
                obj,
                cid,
                is_array,
                size,
                mid,
                loc,
                t,
            } => Enc::new(TAG_ALLOC)
                .u64(obj)
                .u32(cid)
                .u8(is_array)
                .u64(size)
                .u32(mid)
                .u32(loc)
                .u64(t),
            Rec::GcStart { t } => tick_only(TAG_GC_START, t),
            Rec::GcFinish { t } => tick_only(TAG_GC_FINISH, t),
            Rec::Heap { total, used } => Enc::new(TAG_HEAP).u64(total).u64(used),
            Rec::ObjFree { obj, t } => Enc::new(TAG_OBJ_FREE).u64(obj).u64(t),
            Rec::ClassUnload { cid, t } => Enc::new(TAG_CLASS_UNLOAD).u32(cid).u64(t),
            Rec::MonEnter { obj, t } => Enc::new(TAG_MON_ENTER).u64(obj).u64(t),
            Rec::MonOwner { owner } => Enc::new(TAG_MON_OWNER).u32(owner),
            Rec::MonEntered { obj, t } => Enc::new(TAG_MON_ENTERED).u64(obj).u64(t),
            Rec::MonWait { obj, timeout, t } => Enc::new(TAG_MON_WAIT).u64(obj).u64(timeout).u64(t),
            Rec::MonWaited { obj, timed_out, t } => {
                Enc::new(TAG_MON_WAITED).u64(obj).u8(timed_out as u8).u64(t)
            }
            Rec::Line { mid, unit, t } => Enc::new(TAG_LINE).u32(mid).u32(unit).u64(t),
        }
    }
}

/// A method entry or exit at the start of `data`, decoded in place: the renderer's fast
/// path for the records that are nearly all of a trace (the layout of `id_tick`).
#[inline(always)]
pub fn entry_or_exit(data: &[u8]) -> Option<(u8, u32, u64)> {
    // One length check for the whole record.
    let r: &[u8; ENTRY_OR_EXIT_LEN] = data.get(..ENTRY_OR_EXIT_LEN)?.try_into().ok()?;
    let tag = r[0];
    if tag != TAG_ENTRY && tag != TAG_EXIT {
        return None;
    }
    let mid = u32::from_le_bytes([r[1], r[2], r[3], r[4]]);
    let t = u64::from_le_bytes([r[5], r[6], r[7], r[8], r[9], r[10], r[11], r[12]]);
    Some((tag, mid, t))
}

/// Bytes of an entry or exit record.
pub const ENTRY_OR_EXIT_LEN: usize = 13;

/// Reads records back from a buffer; stops at the first malformed byte.
pub struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    pub fn new(buf: &'a [u8]) -> Self {
        Reader { buf, pos: 0 }
    }

    /// Bytes consumed so far.
    pub fn position(&self) -> usize {
        self.pos
    }

    fn u8(&mut self) -> Option<u8> {
        let b = *self.buf.get(self.pos)?;
        self.pos += 1;
        Some(b)
    }

    fn u32(&mut self) -> Option<u32> {
        let b = self.buf.get(self.pos..self.pos + 4)?;
        self.pos += 4;
        Some(u32::from_le_bytes(b.try_into().ok()?))
    }

    fn u64(&mut self) -> Option<u64> {
        let b = self.buf.get(self.pos..self.pos + 8)?;
        self.pos += 8;
        Some(u64::from_le_bytes(b.try_into().ok()?))
    }
}

impl Iterator for Reader<'_> {
    type Item = Rec;

    fn next(&mut self) -> Option<Rec> {
        let tag = self.u8()?;
        Some(match tag {
            TAG_ENTRY => Rec::Entry {
                mid: self.u32()?,
                t: self.u64()?,
            },
            TAG_EXIT => Rec::Exit {
                mid: self.u32()?,
                t: self.u64()?,
            },
            TAG_EXIT_EXC => Rec::ExitExc {
                mid: self.u32()?,
                obj: self.u64()?,
                t: self.u64()?,
            },
            TAG_CATCH => Rec::Catch {
                mid: self.u32()?,
                obj: self.u64()?,
                t: self.u64()?,
            },
            TAG_THREAD_END => Rec::ThreadEnd { t: self.u64()? },
            TAG_INIT_DONE => Rec::InitDone { t: self.u64()? },
            TAG_ALLOC => Rec::Alloc {
                obj: self.u64()?,
                cid: self.u32()?,
                is_array: self.u8()?,
                size: self.u64()?,
                mid: self.u32()?,
                loc: self.u32()?,
                t: self.u64()?,
            },
            TAG_GC_START => Rec::GcStart { t: self.u64()? },
            TAG_GC_FINISH => Rec::GcFinish { t: self.u64()? },
            TAG_HEAP => Rec::Heap {
                total: self.u64()?,
                used: self.u64()?,
            },
            TAG_OBJ_FREE => Rec::ObjFree {
                obj: self.u64()?,
                t: self.u64()?,
            },
            TAG_CLASS_UNLOAD => Rec::ClassUnload {
                cid: self.u32()?,
                t: self.u64()?,
            },
            TAG_MON_ENTER => Rec::MonEnter {
                obj: self.u64()?,
                t: self.u64()?,
            },
            TAG_MON_OWNER => Rec::MonOwner { owner: self.u32()? },
            TAG_MON_ENTERED => Rec::MonEntered {
                obj: self.u64()?,
                t: self.u64()?,
            },
            TAG_MON_WAIT => Rec::MonWait {
                obj: self.u64()?,
                timeout: self.u64()?,
                t: self.u64()?,
            },
            TAG_MON_WAITED => Rec::MonWaited {
                obj: self.u64()?,
                timed_out: self.u8()? != 0,
                t: self.u64()?,
            },
            TAG_LINE => Rec::Line {
                mid: self.u32()?,
                unit: self.u32()?,
                t: self.u64()?,
            },
            _ => return None,
        })
    }
}

/// The length of a record with this tag (every kind has a fixed length), None for an
/// unknown tag. `every_kind_round_trips_through_its_encoder` checks it against the
/// encoder.
pub const fn len_of(tag: u8) -> Option<usize> {
    Some(match tag {
        TAG_ENTRY | TAG_EXIT | TAG_CLASS_UNLOAD => 13,
        TAG_EXIT_EXC | TAG_CATCH => 21,
        TAG_THREAD_END | TAG_INIT_DONE | TAG_GC_START | TAG_GC_FINISH => 9,
        TAG_ALLOC => 38,
        TAG_HEAP | TAG_OBJ_FREE | TAG_MON_ENTER | TAG_MON_ENTERED | TAG_LINE => 17,
        TAG_MON_WAIT => 25,
        TAG_MON_WAITED => 18,
        TAG_MON_OWNER => 5,
        _ => return None,
    })
}

/// The records of one kind in a chunk (up to its first malformed byte), copied in
/// order, found by their lengths alone.
pub fn only(data: &[u8], tag: u8) -> Vec<u8> {
    let mut out = Vec::new();
    let mut pos = 0;
    while let Some(&t) = data.get(pos) {
        let Some(n) = len_of(t) else { break };
        let Some(r) = data.get(pos..pos + n) else {
            break;
        };
        if t == tag {
            out.extend_from_slice(r);
        }
        pos += n;
    }
    out
}

/// What a walk over a chunk's records by their lengths finds (see [`scan`]).
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Scan {
    pub records: u64,
    /// Ticks of the first and last record that has one (heap figures and monitor
    /// owners have none).
    pub first_tick: Option<u64>,
    pub last_tick: Option<u64>,
    /// The chunk holds allocation records, a thread end.
    pub allocs: bool,
    pub thread_end: bool,
}

/// Records in a chunk (up to its first malformed byte), by their lengths alone: the
/// sink thread of a `.jtr` counts events for its closing line, and notes what the
/// file's index keeps of each chunk, without decoding them.
///
/// Runs of entry/exit records (13 bytes each, nearly every record of a busy trace) are
/// counted by stride: where each record's position follows from the previous record's
/// tag, the walk is one dependent load per record; at a fixed stride the loads are
/// independent and the CPU overlaps them (the sink thread spent 7.5% of a traced H2
/// server's CPU here). Every record with a tick has it in its last 8 bytes.
pub fn scan(data: &[u8]) -> Scan {
    let (mut pos, mut n) = (0, 0);
    let (mut first, mut last) = (None, None);
    let (mut allocs, mut thread_end) = (false, false);
    while pos < data.len() {
        let run = data[pos..]
            .chunks_exact(13)
            .take_while(|r| r[0] == TAG_ENTRY || r[0] == TAG_EXIT)
            .count();
        if run > 0 {
            first.get_or_insert(pos + 13);
            last = Some(pos + run * 13);
        }
        pos += run * 13;
        n += run as u64;
        let Some(&tag) = data.get(pos) else {
            break;
        };
        match len_of(tag) {
            Some(len) if pos + len <= data.len() => {
                pos += len;
                n += 1;
                if tag != TAG_HEAP && tag != TAG_MON_OWNER {
                    first.get_or_insert(pos);
                    last = Some(pos);
                }
                allocs |= tag == TAG_ALLOC;
                thread_end |= tag == TAG_THREAD_END;
            }
            _ => break,
        }
    }
    // `first`/`last`: the end of a record with a tick, its last 8 bytes.
    let tick = |end: usize| {
        data.get(end - 8..end)
            .and_then(|b| b.try_into().ok())
            .map(u64::from_le_bytes)
    };
    Scan {
        records: n,
        first_tick: first.and_then(tick),
        last_tick: last.and_then(tick),
        allocs,
        thread_end,
    }
}

/// Records in a chunk, by their lengths alone (see [`scan`]).
pub fn count(data: &[u8]) -> u64 {
    scan(data).records
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip() {
        let mut b = Vec::new();
        b.extend_from_slice(&id_tick(TAG_ENTRY, 7, 100));
        b.extend_from_slice(id_obj_tick(TAG_EXIT_EXC, 7, 9, 101).bytes());
        b.extend_from_slice(tick_only(TAG_THREAD_END, 102).bytes());
        let alloc = Enc::new(TAG_ALLOC)
            .u64(5)
            .u32(3)
            .u8(10)
            .u64(56)
            .u32(7)
            .u32(12)
            .u64(103);
        assert!(alloc.bytes().len() <= MAX_RECORD);
        b.extend_from_slice(alloc.bytes());
        let v: Vec<Rec> = Reader::new(&b).collect();
        assert_eq!(
            v,
            vec![
                Rec::Entry { mid: 7, t: 100 },
                Rec::ExitExc {
                    mid: 7,
                    obj: 9,
                    t: 101
                },
                Rec::ThreadEnd { t: 102 },
                Rec::Alloc {
                    obj: 5,
                    cid: 3,
                    is_array: 10,
                    size: 56,
                    mid: 7,
                    loc: 12,
                    t: 103
                },
            ]
        );
    }

    #[test]
    fn every_kind_round_trips_through_its_encoder() {
        let all = [
            Rec::Entry { mid: 1, t: 2 },
            Rec::Exit { mid: 3, t: 4 },
            Rec::ExitExc {
                mid: 5,
                obj: 6,
                t: 7,
            },
            Rec::Catch {
                mid: 8,
                obj: 9,
                t: 10,
            },
            Rec::ThreadEnd { t: 11 },
            Rec::InitDone { t: 12 },
            Rec::Alloc {
                obj: 13,
                cid: 14,
                is_array: 2,
                size: 15,
                mid: 16,
                loc: 17,
                t: 18,
            },
            Rec::GcStart { t: 19 },
            Rec::GcFinish { t: 20 },
            Rec::Heap {
                total: 21,
                used: 22,
            },
            Rec::ObjFree { obj: 23, t: 24 },
            Rec::ClassUnload { cid: 25, t: 26 },
            Rec::MonEnter { obj: 27, t: 28 },
            Rec::MonOwner { owner: 29 },
            Rec::MonEntered { obj: 30, t: 31 },
            Rec::MonWait {
                obj: 32,
                timeout: 33,
                t: 34,
            },
            Rec::MonWaited {
                obj: 35,
                timed_out: true,
                t: 36,
            },
            Rec::Line {
                mid: 37,
                unit: 38,
                t: 39,
            },
        ];
        let mut b = Vec::new();
        for r in all {
            let e = r.encode();
            assert!(e.bytes().len() <= MAX_RECORD);
            assert_eq!(len_of(e.bytes()[0]), Some(e.bytes().len()), "{r:?}");
            b.extend_from_slice(e.bytes());
        }
        assert_eq!(Reader::new(&b).collect::<Vec<_>>(), all.to_vec());
        assert_eq!(count(&b), all.len() as u64);
        assert_eq!(count(&b[..b.len() - 1]), all.len() as u64 - 1);
        // Runs of entry/exit records (counted by stride) between the others, cut at
        // every length: the count is always the decoder's.
        let mut mixed = Vec::new();
        for (i, r) in all.iter().enumerate() {
            for k in 0..i % 4 {
                mixed.extend_from_slice(&id_tick(TAG_ENTRY + (k % 2) as u8, k as u32, 1));
            }
            mixed.extend_from_slice(r.encode().bytes());
        }
        for end in 0..=mixed.len() {
            assert_eq!(
                count(&mixed[..end]),
                Reader::new(&mixed[..end]).count() as u64,
                "cut at {end}"
            );
        }
        assert_eq!(len_of(0), None);
        assert_eq!(
            Rec::Entry { mid: 7, t: 9 }.encode().bytes(),
            id_tick(TAG_ENTRY, 7, 9)
        );
        assert_eq!(
            entry_or_exit(&id_tick(TAG_EXIT, 7, 9)),
            Some((TAG_EXIT, 7, 9))
        );
        assert_eq!(entry_or_exit(&id_tick(TAG_EXIT, 7, 9)[..12]), None);
        assert_eq!(entry_or_exit(tick_only(TAG_GC_START, 1).bytes()), None);
    }

    #[test]
    fn truncated_stops() {
        let b = id_tick(TAG_ENTRY, 1, 2);
        assert_eq!(Reader::new(&b[..7]).count(), 0);
    }
}
