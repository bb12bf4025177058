//! `counts=all` between traces: the entries the tracker's Java code counts per thread (its `OWNERS`/`DIRS` tables), the slots the agent gives threads and the sums it takes.
//!
//! Between traces an entry is a plain increment in the current thread's own `long[]`
//! (no native call, no atomic, no lock; see `classfile::gated_tracker_class`). The
//! agent's part is the rare path and the sum:
//! - `count0`, an entry the thread's table could not take (the thread has no slot
//!   yet, or no segment for the method): the agent counts that entry itself
//!   (`counts::untraced_entry`), then gives the thread a slot (a free one, or one
//!   whose thread has ended: its counts are folded into [`FOLDED`] first) and the
//!   segment, so that its next entries are counted in Java. If both of the thread's
//!   slots belong to live threads, its entries stay counted by the agent, as are
//!   virtual threads' (there can be millions, each short-lived: a table each would
//!   cost more than it saves). Each claim also looks at the next [`SWEEP`] slots for
//!   threads that have ended and folds them, so ended threads' tables do not pile up.
//! - [`sum`], at each trace's close: every slot's counts plus the folded ones.
//!
//! Every change of the tables and every sum holds [`FOLDED`]'s lock, so each count is
//! in one thread's table or in `FOLDED`, never both and never neither. Threads only
//! add to their own counts, so a count that a close reads a little stale is in the
//! next close's sum (methodCount counts since the class was instrumented).

use crate::classfile::{DIRS_FIELD, IDLE_SLOTS, OWNERS_FIELD, SEGMENT, SEGMENT_SHIFT};
use crate::jvmti::{GlobalRef, Jni, Jvmti};
use crate::log::log_once;
use crate::sys::jni::{jclass, jobject};
use std::cell::Cell;
use std::ffi::CString;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock};

/// The tracker's tables and the class of a segment (`long[]`), for new directories.
struct Tables {
    /// Slots of each table (a power of two).
    slots: usize,
    owners: GlobalRef,
    dirs: GlobalRef,
    segment_class: GlobalRef,
    /// `java.lang.BaseVirtualThread` (JDK 21+; None before).
    virtual_class: Option<GlobalRef>,
}

static TABLES: OnceLock<Tables> = OnceLock::new();

/// Counts of threads that ended, by method id, and where the next sweep starts. Its
/// lock guards every change of the tables.
static FOLDED: Mutex<(Vec<u64>, usize)> = Mutex::new((Vec::new(), 0));

/// Slots each claim looks at for ended threads (the whole table every 1,024 claims).
const SWEEP: usize = 16;

/// Slots freed so far: a thread that found none looks again only once one is freed.
static FREED: AtomicU64 = AtomicU64::new(0);

thread_local! {
    /// `FREED + 1` when this (platform) thread last found both its slots taken.
    static NO_SLOT_SINCE: Cell<u64> = const { Cell::new(0) };
    /// The slot of the last virtual thread seen on this carrier: its next entries
    /// skip the check (`IsInstanceOf` is a transition into the VM). Another thread of
    /// the same slot on this carrier is then counted by the agent too: still exact.
    static LAST_VIRTUAL: Cell<Option<i32>> = const { Cell::new(None) };
}

/// Method ids from 2^24 on are counted by the agent (as its own table does).
const MAX_ID: u32 = 1 << 24;

/// Environment variable that shrinks the tables (tests: `2` makes threads share one
/// pair of slots, so that most are counted by the agent and ended threads' slots are
/// taken over all the time).
const SLOTS_ENV: &str = "JTRACE_IDLE_SLOTS";

/// The size of the tracker's tables: [`IDLE_SLOTS`], or fewer under test.
pub fn slots() -> u16 {
    std::env::var(SLOTS_ENV)
        .ok()
        .and_then(|v| v.parse::<usize>().ok())
        .map_or(IDLE_SLOTS, |n| n.clamp(2, IDLE_SLOTS).next_power_of_two())
        .min(IDLE_SLOTS) as u16
}

/// The tracker was defined with `counts=all`: finds its tables (which initialises it).
/// False if they cannot be found (its initialiser failed).
pub fn install(jni: Jni, tracker: jclass) -> bool {
    let field = |(n, d): (&str, &str)| {
        let (n, d) = (
            CString::new(n).expect("no NUL"),
            CString::new(d).expect("no NUL"),
        );
        jni.static_object(tracker, &n, &d)
    };
    let (owners, dirs) = (field(OWNERS_FIELD), field(DIRS_FIELD));
    let segment_class = jni.find_class(c"[J");
    let virtual_class = jni.find_class(c"java/lang/BaseVirtualThread");
    let global = |o: jobject| {
        let g = jni.new_global(o);
        jni.delete_local(o);
        g
    };
    let (owners, dirs, segment_class) = (global(owners), global(dirs), global(segment_class));
    match (owners, dirs, segment_class) {
        (Some(owners), Some(dirs), Some(segment_class)) => {
            let _ = TABLES.set(Tables {
                slots: jni.array_length(owners.as_raw()),
                owners,
                dirs,
                segment_class,
                virtual_class: global(virtual_class),
            });
            true
        }
        _ => false,
    }
}

/// `count0(id, thread, slot)`: gives the current thread `thread` a slot (near `slot`)
/// and a segment for method `mid`, so that its next entries of `mid` are counted in
/// Java. Never waits: if another thread holds the tables, this is left for next time.
pub fn claim(jni: Jni, jvmti: Jvmti, mid: u32, thread: jobject, slot: i32) {
    let Some(t) = TABLES.get() else {
        return;
    };
    if mid >= MAX_ID || thread.is_null() || LAST_VIRTUAL.with(|v| v.get()) == Some(slot) {
        return;
    }
    if let Some(v) = &t.virtual_class {
        if jni.is_instance_of(thread, v.as_raw()) {
            LAST_VIRTUAL.with(|v| v.set(Some(slot)));
            return;
        }
    }
    let freed = FREED.load(Ordering::Relaxed) + 1;
    if NO_SLOT_SINCE.with(|n| n.get()) == freed {
        return;
    }
    let Ok(mut guard) = FOLDED.try_lock() else {
        return;
    };
    let (folded, cursor) = &mut *guard;
    jni.with_local_frame(16, || {
        for _ in 0..SWEEP {
            *cursor = (*cursor + 1) % t.slots;
            let o = jni.element(t.owners.as_raw(), *cursor);
            if !o.is_null() && jvmti.thread_ended(o) {
                fold(jni, t, *cursor, folded);
            }
            jni.delete_local(o);
        }
        let base = slot as usize & (t.slots - 1) & !1;
        let (mut own, mut free) = (None, None);
        for j in [base, base + 1] {
            let o = jni.element(t.owners.as_raw(), j);
            if jni.same_object(o, thread) {
                own = Some(j);
            } else if free.is_none() && (o.is_null() || jvmti.thread_ended(o)) {
                free = Some((j, !o.is_null()));
            }
            jni.delete_local(o);
            if own.is_some() {
                break;
            }
        }
        let j = match (own, free) {
            (Some(j), _) => j,
            (None, Some((j, ended))) => {
                if ended {
                    fold(jni, t, j, folded);
                }
                if !jni.set_element(t.owners.as_raw(), j, thread) {
                    return;
                }
                j
            }
            (None, None) => {
                NO_SLOT_SINCE.with(|n| n.set(freed));
                return;
            }
        };
        add_segment(jni, t, j, mid);
    });
}

/// Makes sure slot `j`'s directory reaches method `mid`'s segment, and that it exists.
fn add_segment(jni: Jni, t: &Tables, j: usize, mid: u32) {
    let k = (mid >> SEGMENT_SHIFT) as usize;
    let mut dir = jni.element(t.dirs.as_raw(), j);
    let len = jni.array_length(dir);
    if len <= k {
        let bigger =
            jni.new_object_array((k + 1).next_power_of_two().max(8), t.segment_class.as_raw());
        if bigger.is_null() {
            jni.delete_local(dir);
            return;
        }
        for i in 0..len {
            let seg = jni.element(dir, i);
            jni.set_element(bigger, i, seg);
            jni.delete_local(seg);
        }
        jni.delete_local(dir);
        if !jni.set_element(t.dirs.as_raw(), j, bigger) {
            jni.delete_local(bigger);
            return;
        }
        dir = bigger;
    }
    let seg = jni.element(dir, k);
    if seg.is_null() {
        let new = jni.new_long_array(SEGMENT);
        if !new.is_null() {
            jni.set_element(dir, k, new);
            jni.delete_local(new);
        }
    }
    jni.delete_local(seg);
    jni.delete_local(dir);
}

/// Adds slot `j`'s counts to `into` (by method id).
fn add_counts(jni: Jni, t: &Tables, j: usize, into: &mut Vec<u64>) {
    let dir = jni.element(t.dirs.as_raw(), j);
    let mut buf = [0i64; SEGMENT];
    for k in 0..jni.array_length(dir) {
        let seg = jni.element(dir, k);
        if !seg.is_null() && jni.long_region(seg, &mut buf) {
            let at = k * SEGMENT;
            if into.len() < at + SEGMENT {
                into.resize(at + SEGMENT, 0);
            }
            for (c, &n) in into[at..at + SEGMENT].iter_mut().zip(&buf) {
                *c += n as u64;
            }
        }
        jni.delete_local(seg);
    }
    jni.delete_local(dir);
}

/// Slot `j`'s thread has ended: its counts move to `folded` and the slot is freed.
fn fold(jni: Jni, t: &Tables, j: usize, folded: &mut Vec<u64>) {
    add_counts(jni, t, j, folded);
    jni.set_element(t.owners.as_raw(), j, std::ptr::null_mut());
    jni.set_element(t.dirs.as_raw(), j, std::ptr::null_mut());
    FREED.fetch_add(1, Ordering::Relaxed);
}

/// Every thread's counts so far, by method id (index), ended threads' included. Slots
/// of threads that have ended are folded on the way. Empty without `counts=all`, or on
/// a thread not attached to the JVM (said once).
pub fn sum(jvmti: Jvmti) -> Vec<u64> {
    let Some(t) = TABLES.get() else {
        return Vec::new();
    };
    let Some(jni) = crate::jvmti::jni_of_current() else {
        log_once("counts=all: a trace closed on a thread outside the JVM; counts of idle entries are left for the next trace");
        return Vec::new();
    };
    let Ok(mut guard) = FOLDED.lock() else {
        return Vec::new();
    };
    let folded = &mut guard.0;
    jni.with_local_frame(16, || {
        let mut out = Vec::new();
        for j in 0..t.slots {
            let o = jni.element(t.owners.as_raw(), j);
            if o.is_null() {
                continue;
            }
            if jvmti.thread_ended(o) {
                fold(jni, t, j, folded);
            } else {
                add_counts(jni, t, j, &mut out);
            }
            jni.delete_local(o);
        }
        if out.len() < folded.len() {
            out.resize(folded.len(), 0);
        }
        for (c, &n) in out.iter_mut().zip(folded.iter()) {
            *c += n;
        }
        out
    })
}
