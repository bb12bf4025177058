//! Method entry and exit: from JVMTI MethodEntry/MethodExit (mode=jvmti) or from the tracker's native probes (mode=bci); both write the same records.

use crate::clock;
use crate::events::threads;
use crate::jvmti::Jvmti;
use crate::state::agent;
use crate::sys::jni::jmethodID;
use crate::sys::jvmti::jthread;
use trace::record::{self, Rec, TAG_ENTRY, TAG_EXIT, TAG_EXIT_EXC};

/// Writes an (entry | exit) record for method id `mid` on the current thread.
#[inline(always)]
pub fn write_call(jvmti: Jvmti, thread: jthread, tag: u8, mid: u32) {
    let written = threads::current(jvmti, thread)
        .is_some_and(|b| !b.may_record(mid) || b.write(&record::id_tick(tag, mid, clock::ticks())));
    if !written && tag == TAG_ENTRY {
        crate::counts::untraced_entry(mid);
    }
}

/// JVMTI MethodEntry: look the method up; untraced methods cost one table probe.
#[inline]
pub fn jvmti_entry(jvmti: Jvmti, thread: jthread, method: jmethodID) {
    crate::events::exceptions::jvmti_entered();
    let mid = agent().method_table().get(method as usize);
    if mid != 0 {
        write_call(jvmti, thread, TAG_ENTRY, mid);
    }
}

/// JVMTI MethodExit, normal or by exception.
#[inline]
pub fn jvmti_exit(jvmti: Jvmti, thread: jthread, method: jmethodID, by_exception: bool) {
    let mid = agent().method_table().get(method as usize);
    if mid == 0 {
        return;
    }
    if by_exception && (crate::events::exceptions::unwinding() || !agent().options.exceptions) {
        if let Some(b) = threads::current(jvmti, thread) {
            let obj = crate::events::exceptions::in_flight();
            b.write(record::id_obj_tick(TAG_EXIT_EXC, mid, obj, clock::ticks()).bytes());
        }
    } else {
        write_call(jvmti, thread, TAG_EXIT, mid);
    }
}

/// The current thread's buffer for a probe (which has no jthread at hand).
#[inline(always)]
fn probe_buffer() -> Option<&'static crate::buffer::ThreadBuf> {
    crate::buffer::current().or_else(|| threads::current(agent().jvmti, std::ptr::null_mut()))
}

/// Probe: a traced method was entered or returned (bci mode).
#[inline(always)]
pub fn probe(tag: u8, mid: i32) {
    // Between traces only entries are counted (for methodCount); nothing is written.
    if crate::buffer::is_stopping() {
        if tag == TAG_ENTRY {
            crate::counts::untraced_entry(mid as u32);
        }
        return;
    }
    let written = probe_buffer().is_some_and(|b| {
        !b.may_record(mid as u32) || b.write(&record::id_tick(tag, mid as u32, clock::ticks()))
    });
    if !written && tag == TAG_ENTRY {
        crate::counts::untraced_entry(mid as u32);
    }
}

/// Probe: execution reached executable unit `unit` of method `mid` (bci mode, lines=on).
#[inline]
pub fn line(mid: u32, unit: u32) {
    if let Some(b) = probe_buffer() {
        write_line(b, mid, unit);
    }
}

#[inline]
fn write_line(b: &crate::buffer::ThreadBuf, mid: u32, unit: u32) {
    let t = clock::ticks();
    b.write(Rec::Line { mid, unit, t }.encode().bytes());
}

/// JVMTI SingleStep (mode=jvmti, lines=on): a bytecode of a traced method is about
/// to run; if it starts an executable unit, that is a line probe's moment.
pub fn jvmti_step(jvmti: Jvmti, thread: jthread, method: jmethodID, location: i64) {
    let mid = agent().method_table().get(method as usize);
    if mid == 0 {
        return;
    }
    if let Some(unit) = crate::events::identity::unit_at(mid, location as u32) {
        if let Some(b) = threads::current(jvmti, thread) {
            write_line(b, mid, unit);
        }
    }
}
