//! Virtual threads (JDK 21+): each is a thread of its own in the trace; its events go to its own buffer, switched in and out as it mounts on and unmounts from a carrier.
//!
//! The per-OS-thread "current buffer" is the carrier's while the carrier runs its
//! own code and the virtual thread's while one is mounted. A virtual thread's chunk
//! belongs to it, not to a carrier: when it resumes on another carrier it continues
//! writing where it stopped. A parked virtual thread holds at most its current chunk
//! (1 KiB unless it is busy); one that ended holds none, so thousands of short-lived
//! ones cost a few dozen bytes each.

use crate::buffer::{self, ThreadBuf};
use crate::clock;
use crate::events::threads;
use crate::jvmti::Jvmti;
use crate::log::log_once;
use crate::sys::jvmti::jthread;
use std::cell::Cell;
use std::ffi::c_void;
use trace::record;

thread_local! {
    /// The carrier's own buffer while a virtual thread is mounted on this OS thread.
    static CARRIER: Cell<Option<&'static ThreadBuf>> = const { Cell::new(None) };
}

/// Makes `vbuf` this OS thread's current buffer, remembering the carrier's.
fn switch_to(vbuf: &'static ThreadBuf) {
    let cur = buffer::current();
    if CARRIER.with(|c| c.get()).is_none() && !cur.is_some_and(|b| std::ptr::eq(b, vbuf)) {
        CARRIER.with(|c| c.set(cur));
    }
    buffer::set_current(Some(vbuf));
}

/// Back to the carrier's own buffer.
fn switch_back() {
    let carrier = CARRIER.with(|c| c.take());
    buffer::set_current(carrier);
}

/// The buffer of virtual thread `vthread`, defining the thread on first sight.
fn buffer_of(jvmti: Jvmti, vthread: jthread) -> Option<&'static ThreadBuf> {
    match buffer::of_thread(jvmti, vthread) {
        Ok(Some(b)) => Some(b),
        _ => threads::define_other(jvmti, vthread),
    }
}

/// VirtualThreadStart (on the virtual thread, mounted).
pub fn started(jvmti: Jvmti, vthread: jthread) {
    if let Some(b) = buffer_of(jvmti, vthread) {
        switch_to(b);
    }
}

/// VirtualThreadEnd (on the virtual thread, still mounted).
pub fn ended(jvmti: Jvmti, vthread: jthread) {
    if let Some(b) = buffer_of(jvmti, vthread) {
        switch_to(b);
        b.write(record::tick_only(record::TAG_THREAD_END, clock::ticks()).bytes());
        crate::live::thread_ended(b.tid);
        buffer::close_current();
    }
    switch_back();
}

/// Extension event VirtualThreadMount.
pub fn mounted(jvmti: Jvmti, vthread: jthread) {
    if let Some(b) = buffer_of(jvmti, vthread) {
        switch_to(b);
    }
}

/// Extension event VirtualThreadUnmount. The virtual thread's records stay in its
/// own buffer, which goes with it to whichever carrier mounts it next (the JVM's
/// mount/unmount hand-off orders the two carriers' accesses), so its stream stays
/// in order without a send per unmount.
pub fn unmounted(_jvmti: Jvmti, _vthread: jthread) {
    switch_back();
}

/// Registers the HotSpot mount/unmount extension events. Returns false if this JVM
/// does not offer them (virtual threads' events then stay with their carriers).
pub fn enable_mount_events(jvmti: Jvmti, mount: *const c_void, unmount: *const c_void) -> bool {
    let ids = [
        ("com.sun.hotspot.events.VirtualThreadMount", mount),
        ("com.sun.hotspot.events.VirtualThreadUnmount", unmount),
    ];
    let Ok(events) = jvmti.extension_events() else {
        return false;
    };
    let mut ok = 0;
    for (id, cb) in ids {
        if let Some(&(index, _)) = events.iter().find(|(_, name)| name == id) {
            if jvmti.set_extension_event(index, cb).is_ok() {
                ok += 1;
            }
        }
    }
    if ok != 2 {
        log_once("this JVM has no virtual-thread mount events: virtual threads' events are attributed to their carriers");
    }
    ok == 2
}
