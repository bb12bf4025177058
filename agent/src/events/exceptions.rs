//! Exceptions: frames left by an exception (throw + methodExit) and frames that catch one (throw + catch), from JVMTI events or from probes.
//!
//! TPTP emits `throw` for every traced frame an exception passes through, including
//! the frame that catches it, and `catch` in that frame. Both modes derive exactly
//! that from two facts: "frame F was popped by exception E" and "frame F caught E".
//! In jvmti mode the popped-frame event (MethodExit) does not name the exception, so
//! the last exception thrown on the thread (Exception event) is remembered.

use crate::clock;
use crate::events::{objects, threads};
use crate::jvmti::Jvmti;
use crate::state::agent;
use crate::sys::jni::{jmethodID, jobject};
use crate::sys::jvmti::jthread;
use std::cell::Cell;
use trace::record::{self, TAG_CATCH, TAG_EXIT_EXC};

thread_local! {
    /// Object id of the exception in flight on this thread (jvmti mode).
    static IN_FLIGHT: Cell<u64> = const { Cell::new(0) };
    /// An exception is unwinding this thread's frames now (jvmti mode): set by the
    /// Exception event, cleared when it is caught or when any method is entered.
    static UNWINDING: Cell<bool> = const { Cell::new(false) };
}

/// JVMTI MethodEntry: no frame can be entered while an exception unwinds, so any
/// entry ends the unwinding. (HotSpot keeps reporting "popped by exception" for the
/// exits of an uncaught-exception handler the VM calls after the thread's last frame
/// was unwound; this is what tells those exits apart.)
#[inline]
pub fn jvmti_entered() {
    UNWINDING.with(|c| c.set(false));
}

/// Whether a frame popped "by exception" really was (jvmti mode).
pub fn unwinding() -> bool {
    UNWINDING.with(|c| c.get())
}

/// JVMTI Exception: remember the exception for the frames it will pop.
pub fn jvmti_thrown(jvmti: Jvmti, thread: jthread, exception: jobject) {
    if let Some(b) = threads::of(jvmti, thread) {
        let id = objects::id_of(jvmti, exception, b.tid);
        IN_FLIGHT.with(|c| c.set(id));
        UNWINDING.with(|c| c.set(true));
    }
}

/// The exception in flight on this thread (jvmti mode), 0 if none is known.
pub fn in_flight() -> u64 {
    IN_FLIGHT.with(|c| c.get())
}

/// JVMTI ExceptionCatch: a frame catches; record it if the frame is traced.
pub fn jvmti_caught(jvmti: Jvmti, thread: jthread, method: jmethodID, exception: jobject) {
    let mid = agent().method_table().get(method as usize);
    IN_FLIGHT.with(|c| c.set(0));
    UNWINDING.with(|c| c.set(false));
    if mid != 0 {
        caught(jvmti, thread, exception, mid);
    }
}

/// A traced frame was popped by `exception` (probe path; jvmti mode uses `in_flight`).
pub fn unwound(jvmti: Jvmti, thread: jthread, exception: jobject, mid: u32) {
    frame_record(jvmti, thread, exception, mid, TAG_EXIT_EXC);
}

/// A traced frame caught `exception`.
pub fn caught(jvmti: Jvmti, thread: jthread, exception: jobject, mid: u32) {
    frame_record(jvmti, thread, exception, mid, TAG_CATCH);
}

/// A (frame, exception) record; the exception is named only with exceptions=on.
fn frame_record(jvmti: Jvmti, thread: jthread, exception: jobject, mid: u32, tag: u8) {
    if let Some(b) = threads::of(jvmti, thread) {
        let obj = if agent().options.exceptions {
            objects::id_of(jvmti, exception, b.tid)
        } else {
            0
        };
        b.write(record::id_obj_tick(tag, mid, obj, clock::ticks()).bytes());
    }
}
