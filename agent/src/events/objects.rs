//! Object ids: a JVMTI tag per object we name (allocated, thrown, locked); the tag is the TPTP `objId`.
//!
//! Ids count up from 1. Tags of class mirrors carry `CLASS_TAG_BIT` instead, so one
//! ObjectFree callback can tell a freed object from an unloaded class.

use crate::buffer;
use crate::jvmti::Jvmti;
use crate::sys::jni::jobject;
use std::collections::HashSet;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use trace::defs::{Def, Msg};

/// Tags with this bit name a class mirror, not an object (see `ClassTag`).
pub const CLASS_TAG_BIT: i64 = 1 << 62;

/// What a class mirror's tag says: its class id, its TPTP isArray code (0 for a
/// non-array class) and, for object arrays, the element class id. Packed as
/// bit 62 | code << 48 | cid << 24 | elem (24 bits per id).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClassTag {
    pub cid: u32,
    pub code: u8,
    pub elem: u32,
}

impl ClassTag {
    pub fn encode(self) -> i64 {
        CLASS_TAG_BIT
            | (self.code as i64) << 48
            | ((self.cid as i64) & 0xFF_FFFF) << 24
            | (self.elem as i64) & 0xFF_FFFF
    }

    pub fn decode(tag: i64) -> ClassTag {
        ClassTag {
            code: ((tag >> 48) & 0xFF) as u8,
            cid: ((tag >> 24) & 0xFF_FFFF) as u32,
            elem: (tag & 0xFF_FFFF) as u32,
        }
    }
}

static NEXT_OBJECT: AtomicU64 = AtomicU64::new(1);
/// The first object id given during the current trace: an object named with an
/// older id was defined in an earlier document, and is defined again (once) in this
/// one when it is first named (`jtrace stop` then `start`).
static TRACE_FIRST: AtomicU64 = AtomicU64::new(0);
static REDEFINED: Mutex<Option<HashSet<u64>>> = Mutex::new(None);

/// A new trace begins: objects named so far are not defined in its document.
pub fn new_trace() {
    if let Ok(mut r) = REDEFINED.lock() {
        *r = None;
    }
    TRACE_FIRST.store(NEXT_OBJECT.load(Ordering::SeqCst), Ordering::SeqCst);
}

/// An existing id: whether the current document still needs its objDef.
fn needs_def(id: u64) -> bool {
    id < TRACE_FIRST.load(Ordering::Relaxed)
        && REDEFINED
            .lock()
            .is_ok_and(|mut r| r.get_or_insert_with(HashSet::new).insert(id))
}
/// Serialises first tagging, so two threads naming one object agree on its id.
static TAGGING: Mutex<()> = Mutex::new(());

pub fn next_object() -> u64 {
    NEXT_OBJECT.fetch_add(1, Ordering::Relaxed)
}

/// The id of `obj`, giving it one (and sending its objDef) if it has none. 0 when
/// the object is null or cannot be tagged. The objDef goes on the sink's FIFO at
/// once, ahead of any record naming the id, whichever thread's buffer that is in.
pub fn id_of(jvmti: Jvmti, obj: jobject) -> u64 {
    let (id, new) = tag(jvmti, obj);
    if new {
        buffer::send(Msg::Defs(vec![Def::Object(id)]));
    }
    id
}

/// The id of `obj` and whether the caller must send its `Def::Object` before anything
/// names it (it was given just now, or in an earlier trace's time). (0, false) for
/// null or untaggable.
pub fn tag(jvmti: Jvmti, obj: jobject) -> (u64, bool) {
    if obj.is_null() {
        return (0, false);
    }
    match jvmti.get_tag(obj) {
        Ok(t) if t > 0 && t & CLASS_TAG_BIT == 0 => return (t as u64, needs_def(t as u64)),
        Ok(0) => {}
        _ => return (0, false),
    }
    let Ok(_g) = TAGGING.lock() else {
        return (0, false);
    };
    if let Ok(t) = jvmti.get_tag(obj) {
        if t > 0 && t & CLASS_TAG_BIT == 0 {
            return (t as u64, false);
        }
    }
    let id = next_object();
    if jvmti.set_tag(obj, id as i64).is_err() {
        return (0, false);
    }
    (id, true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn class_tag_round_trip() {
        let t = ClassTag {
            cid: 0xAB_CDEF,
            code: 2,
            elem: 12,
        };
        assert_eq!(ClassTag::decode(t.encode()), t);
        assert!(t.encode() & CLASS_TAG_BIT != 0 && t.encode() > 0);
    }
}
