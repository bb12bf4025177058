//! Compact binary records: what a callback or probe writes into its thread's buffer, and how the writer reads them back.
//!
//! A record is a tag byte followed by little-endian fields. Records carry only what
//! the event knows at the moment (ids and a raw tick); tickets, stack depths and
//! class ids are derived by the writer, which replays each thread's records in order.
//! Where an event came from (JVMTI callback or bytecode probe) is not recorded: both
//! sources write the same records.

/// Largest encoded record, so a producer can check for room once.
pub const MAX_RECORD: usize = 32;

pub const TAG_ENTRY: u8 = 1;
pub const TAG_EXIT: u8 = 2;
pub const TAG_EXIT_EXC: u8 = 3;
pub const TAG_THREAD_END: u8 = 4;
pub const TAG_INIT_DONE: u8 = 5;
pub const TAG_CATCH: u8 = 7;
pub const TAG_OBJ_DEF: u8 = 8;

/// A decoded record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rec {
    /// A traced method was entered.
    Entry { mid: u32, t: u64 },
    /// A traced method returned normally.
    Exit { mid: u32, t: u64 },
    /// A traced method's frame was popped by exception `obj` (0 if unknown).
    ExitExc { mid: u32, obj: u64, t: u64 },
    /// A traced method's frame caught exception `obj`.
    Catch { mid: u32, obj: u64, t: u64 },
    /// First sight of an object that has no objAlloc: define its id.
    ObjDef { obj: u64 },
    /// The thread ended (last record of its stream).
    ThreadEnd { t: u64 },
    /// The VM finished initialising.
    InitDone { t: u64 },
}

/// Encodes a (tag, id, tick) record into a fixed array: one copy on the hot path.
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
pub fn id_obj_tick(tag: u8, id: u32, obj: u64, t: u64) -> [u8; 21] {
    let mut r = [0u8; 21];
    r[0] = tag;
    r[1..5].copy_from_slice(&id.to_le_bytes());
    r[5..13].copy_from_slice(&obj.to_le_bytes());
    r[13..21].copy_from_slice(&t.to_le_bytes());
    r
}

/// Encodes a (tag, object id) record.
#[inline(always)]
pub fn obj_only(tag: u8, obj: u64) -> [u8; 9] {
    let mut r = [0u8; 9];
    r[0] = tag;
    r[1..9].copy_from_slice(&obj.to_le_bytes());
    r
}

/// Encodes a (tag, tick) record.
#[inline(always)]
pub fn tick_only(tag: u8, t: u64) -> [u8; 9] {
    let mut r = [0u8; 9];
    r[0] = tag;
    r[1..9].copy_from_slice(&t.to_le_bytes());
    r
}

/// Reads records back from a buffer; stops at the first malformed byte.
pub struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    pub fn new(buf: &'a [u8]) -> Self {
        Reader { buf, pos: 0 }
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
        let tag = *self.buf.get(self.pos)?;
        self.pos += 1;
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
            TAG_OBJ_DEF => Rec::ObjDef { obj: self.u64()? },
            TAG_THREAD_END => Rec::ThreadEnd { t: self.u64()? },
            TAG_INIT_DONE => Rec::InitDone { t: self.u64()? },
            _ => return None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip() {
        let mut b = Vec::new();
        b.extend_from_slice(&id_tick(TAG_ENTRY, 7, 100));
        b.extend_from_slice(&id_obj_tick(TAG_EXIT_EXC, 7, 9, 101));
        b.extend_from_slice(&tick_only(TAG_THREAD_END, 102));
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
                Rec::ThreadEnd { t: 102 }
            ]
        );
    }

    #[test]
    fn truncated_stops() {
        let b = id_tick(TAG_ENTRY, 1, 2);
        assert_eq!(Reader::new(&b[..7]).count(), 0);
    }
}
