//! Object ids: a JVMTI tag per object we name (allocated, thrown, locked); the tag is the TPTP `objId`.
//!
//! Ids count up from 1. Tags of class mirrors carry `CLASS_TAG_BIT` instead, so one
//! ObjectFree callback can tell a freed object from an unloaded class; tags of objects
//! allocated under observation carry `ALLOC_BIT` and the allocating thread until
//! another stream names them (define before use across threads, see `publish`).

use crate::buffer;
use crate::jvmti::{Jni, Jvmti};
use crate::sys::jni::{jclass, jobject};
use std::sync::{Mutex, OnceLock};
use trace::defs::{Def, Msg, ObjDef};

/// Tags with this bit name a class mirror, not an object (see `ClassTag`).
pub const CLASS_TAG_BIT: i64 = 1 << 62;

/// What a class mirror's tag says: its class id, its TPTP isArray code (0 for a
/// non-array class) and, for arrays, the element class id (for primitive arrays the
/// class `int`, `byte`, ...). Packed as
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

    /// The class id an allocation or objDef of an instance names: the class itself,
    /// or for an array its element class (TPTP's model of arrays).
    pub fn named_cid(self) -> u32 {
        if self.code == 0 {
            self.cid
        } else {
            self.elem
        }
    }

    pub fn decode(tag: i64) -> ClassTag {
        ClassTag {
            code: ((tag >> 48) & 0xFF) as u8,
            cid: ((tag >> 24) & 0xFF_FFFF) as u32,
            elem: (tag & 0xFF_FFFF) as u32,
        }
    }
}

/// How an object's class is named and defined (the class tables' `class_tag`,
/// installed at load): objects stay below the class tables, which name objects'
/// classes by their tags.
pub type ClassLookup = fn(Jvmti, Jni, jclass) -> Option<ClassTag>;
static CLASS_OF: OnceLock<ClassLookup> = OnceLock::new();

pub fn set_class_lookup(f: ClassLookup) {
    let _ = CLASS_OF.set(f);
}

/// Serialises first tagging, so two threads naming one object agree on its id.
static TAGGING: Mutex<()> = Mutex::new(());

/// Tags of objects allocated under observation carry this bit until something else
/// names them: their definition (the `objAlloc`) is still in the allocating thread's
/// buffer, which may reach the sink after a record of another stream that names
/// the object. The first such naming sends the buffers first (`publish`).
const ALLOC_BIT: i64 = 1 << 61;
/// The allocating thread's id sits in these bits of an allocation tag (0: unknown,
/// the thread id did not fit); the object id in the bits below.
const TID_SHIFT: u32 = 40;
const TID_MASK: i64 = (1 << 20) - 1;
const ID_MASK: i64 = (1 << TID_SHIFT) - 1;

/// The tag of an object allocated now by thread `tid` (see `ALLOC_BIT`).
pub fn alloc_tag(obj: u64, tid: u32) -> i64 {
    let tid = if (tid as i64) <= TID_MASK {
        tid as i64
    } else {
        0
    };
    ALLOC_BIT | tid << TID_SHIFT | (obj as i64 & ID_MASK)
}

/// The object id an object tag carries (0 for a class mirror's tag or no tag).
pub fn object_id(tag: i64) -> u64 {
    if tag <= 0 || tag & CLASS_TAG_BIT != 0 {
        0
    } else {
        (tag & ID_MASK) as u64
    }
}

/// The id of `obj`, for a record written to the buffer of thread `stream` (0: for a
/// definition, sent on the sink's FIFO), giving it one if it has none. Its objDef,
/// when this document needs one, goes on the sink's FIFO at once, and an object
/// another thread allocated has that thread's records (its objAlloc) sent first: so
/// the definition precedes any record naming the id, whichever buffer holds it.
/// 0 when the object is null or cannot be tagged.
pub fn id_of(jvmti: Jvmti, obj: jobject, stream: u32) -> u64 {
    let n = name(jvmti, obj, stream);
    if let (Some(d), false) = (n.def, n.sent) {
        buffer::send(Msg::Defs(vec![Def::Object(d)]));
    }
    n.id
}

/// An object named: its id (0 for null or untaggable) and, when this document defines
/// it now, its objDef with its class; `sent`: already on the sink's FIFO (a new id),
/// else the caller sends it before anything names the id (an id given in an earlier
/// trace's time).
pub struct Name {
    pub id: u64,
    pub def: Option<ObjDef>,
    pub sent: bool,
}

const UNNAMED: Name = Name {
    id: 0,
    def: None,
    sent: false,
};

/// The id of `obj` (as `id_of`); the objDef of an id given now is sent here, before
/// the id is visible to other threads.
pub fn name(jvmti: Jvmti, obj: jobject, stream: u32) -> Name {
    if obj.is_null() {
        return UNNAMED;
    }
    let id = match jvmti.get_tag(obj) {
        Ok(0) => 0,
        Ok(t) if t & CLASS_TAG_BIT == 0 && t > 0 => {
            if t & ALLOC_BIT != 0 {
                publish(jvmti, obj, t, stream);
            }
            object_id(t)
        }
        _ => return UNNAMED,
    };
    if id != 0 {
        return Name {
            id,
            def: crate::state::needs_object_def(id).then(|| obj_def(jvmti, obj, id)),
            sent: false,
        };
    }
    // The object's class is read before TAGGING is taken: naming a class may define
    // it and register the current thread, which must not wait behind this lock.
    let mut def = obj_def(jvmti, obj, 0);
    let Ok(_g) = TAGGING.lock() else {
        return UNNAMED;
    };
    if let Ok(t) = jvmti.get_tag(obj) {
        if t != 0 {
            drop(_g);
            return name(jvmti, obj, stream);
        }
    }
    // A new id: its objDef goes on the sink's FIFO before the tag is set, under
    // TAGGING. Another thread that names the object meanwhile finds no tag, waits for
    // TAGGING and then finds this id, so whatever it sends (a threadStart naming its
    // Thread object, a monitor event) comes after the definition. Set first, the tag
    // would let that thread's record overtake the definition (a thread's threadStart
    // racing its starter's join, seen in the testsuite step).
    let id = crate::ids::next_object();
    def.obj = id;
    buffer::send(Msg::Defs(vec![Def::Object(def)]));
    if jvmti.set_tag(obj, id as i64).is_err() {
        return UNNAMED;
    }
    Name {
        id,
        def: Some(def),
        sent: true,
    }
}

/// An object allocated under observation is named. A record of the allocating
/// thread's own stream keeps its order after the objAlloc: nothing to do, and the tag
/// keeps its `ALLOC_BIT` (clearing it here would let a later naming by another stream
/// skip the steal while the objAlloc is still buffered). Anything else (another
/// thread's record, a definition, an unknown allocating thread) sends every thread's
/// buffered records to the writer first, so the objAlloc precedes the naming record
/// or definition; then the tag loses its `ALLOC_BIT`. Done once per object.
fn publish(jvmti: Jvmti, obj: jobject, tag: i64, stream: u32) {
    if !publishes(tag, stream) {
        return;
    }
    buffer::steal_all();
    let _ = jvmti.set_tag(obj, tag & ID_MASK);
}

/// Whether naming an object with allocation tag `tag` from `stream` (0: a definition)
/// must publish the allocating thread's records first: unless the allocating thread
/// is known and is `stream` itself.
fn publishes(tag: i64, stream: u32) -> bool {
    let tid = ((tag >> TID_SHIFT) & TID_MASK) as u32;
    stream == 0 || tid == 0 || tid != stream
}

/// The objDef of `obj` (id `id`) with its class as an allocation names it: the class,
/// or for an array its element class and `isArray` code. The class is defined first
/// if it never was (its classDef goes on the FIFO before this objDef).
pub fn obj_def(jvmti: Jvmti, obj: jobject, id: u64) -> ObjDef {
    let mut d = ObjDef {
        obj: id,
        ..ObjDef::default()
    };
    let Some(jni) = crate::jvmti::jni_of_current() else {
        return d;
    };
    let klass = jni.object_class(obj);
    if klass.is_null() {
        return d;
    }
    if let Some(tag) = CLASS_OF
        .get()
        .and_then(|class_of| class_of(jvmti, jni, klass))
    {
        (d.cid, d.is_array) = (tag.named_cid(), tag.code);
    }
    jni.delete_local(klass);
    d
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
        assert_eq!(object_id(t.encode()), 0);
    }

    #[test]
    fn alloc_tags_keep_the_id() {
        let t = alloc_tag(123_456, 7);
        assert_eq!(object_id(t), 123_456);
        assert_eq!((t >> TID_SHIFT) & TID_MASK, 7);
        assert_eq!(object_id(alloc_tag(9, u32::MAX)), 9);
        assert_eq!((alloc_tag(9, u32::MAX) >> TID_SHIFT) & TID_MASK, 0);
        assert_eq!(object_id(42), 42);
    }

    #[test]
    fn only_other_streams_publish() {
        let t = alloc_tag(5, 7);
        // The allocating thread's own records keep the order (and the bit).
        assert!(!publishes(t, 7));
        // Another thread's record, a definition, an unknown allocating thread.
        assert!(publishes(t, 8));
        assert!(publishes(t, 0));
        assert!(publishes(alloc_tag(5, u32::MAX), 7));
    }
}
