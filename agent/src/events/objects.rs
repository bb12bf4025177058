//! Object ids: a JVMTI tag per object we name (allocated, thrown, locked); the tag is the TPTP `objId`.
//!
//! Ids count up from 1. Tags of class mirrors carry `CLASS_TAG_BIT` instead, so one
//! ObjectFree callback can tell a freed object from an unloaded class.

use crate::buffer::ThreadBuf;
use crate::jvmti::Jvmti;
use crate::record::{self, TAG_OBJ_DEF};
use crate::sys::jni::jobject;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

/// Tags with this bit name a class (the low bits are its class id), not an object.
pub const CLASS_TAG_BIT: i64 = 1 << 62;

static NEXT_OBJECT: AtomicU64 = AtomicU64::new(1);
/// Serialises first tagging, so two threads naming one object agree on its id.
static TAGGING: Mutex<()> = Mutex::new(());

pub fn next_object() -> u64 {
    NEXT_OBJECT.fetch_add(1, Ordering::Relaxed)
}

/// The id of `obj`, giving it one (and recording an objDef on `buf`) if it has none.
/// 0 when the object is null or cannot be tagged.
pub fn id_of(jvmti: Jvmti, buf: &ThreadBuf, obj: jobject) -> u64 {
    if obj.is_null() {
        return 0;
    }
    match jvmti.get_tag(obj) {
        Ok(t) if t > 0 && t & CLASS_TAG_BIT == 0 => return t as u64,
        Ok(0) => {}
        _ => return 0,
    }
    let Ok(_g) = TAGGING.lock() else { return 0 };
    if let Ok(t) = jvmti.get_tag(obj) {
        if t > 0 && t & CLASS_TAG_BIT == 0 {
            return t as u64;
        }
    }
    let id = next_object();
    if jvmti.set_tag(obj, id as i64).is_err() {
        return 0;
    }
    buf.write(&record::obj_only(TAG_OBJ_DEF, id));
    id
}
