//! Method entry and exit: from JVMTI MethodEntry/MethodExit (mode=jvmti) or from the tracker's native probes (mode=bci); both write the same records.

use crate::clock;
use crate::events::threads;
use crate::jvmti::Jvmti;
use crate::lifecycle::agent;
use crate::record::{self, TAG_ENTRY, TAG_EXIT, TAG_EXIT_EXC};
use crate::sys::jni::jmethodID;
use crate::sys::jvmti::jthread;

/// Writes an (entry | exit) record for method id `mid` on the current thread.
#[inline(always)]
pub fn record(jvmti: Jvmti, thread: jthread, tag: u8, mid: u32) {
    if let Some(b) = threads::current(jvmti, thread) {
        b.write(&record::id_tick(tag, mid, clock::ticks()));
    }
}

/// JVMTI MethodEntry: look the method up; untraced methods cost one table probe.
#[inline]
pub fn jvmti_entry(jvmti: Jvmti, thread: jthread, method: jmethodID) {
    let mid = agent().method_table().get(method as usize);
    if mid != 0 {
        record(jvmti, thread, TAG_ENTRY, mid);
    }
}

/// JVMTI MethodExit, normal or by exception.
#[inline]
pub fn jvmti_exit(jvmti: Jvmti, thread: jthread, method: jmethodID, by_exception: bool) {
    let mid = agent().method_table().get(method as usize);
    if mid == 0 {
        return;
    }
    if by_exception {
        if let Some(b) = threads::current(jvmti, thread) {
            let obj = crate::events::exceptions::in_flight();
            b.write(&record::id_obj_tick(TAG_EXIT_EXC, mid, obj, clock::ticks()));
        }
    } else {
        record(jvmti, thread, TAG_EXIT, mid);
    }
}

/// Probe: a traced method was entered (bci mode).
#[inline(always)]
pub fn probe(tag: u8, mid: i32) {
    let b = match crate::buffer::current() {
        Some(b) => b,
        None => match threads::current(agent().jvmti, std::ptr::null_mut()) {
            Some(b) => b,
            None => return,
        },
    };
    b.write(&record::id_tick(tag, mid as u32, clock::ticks()));
}
