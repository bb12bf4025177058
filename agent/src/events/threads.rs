//! Threads: registration (first sight, or the list alive at VM init), threadStart definitions, threadEnd records.
//!
//! A thread's `ThreadBuf` is found through the Rust thread-local on the hot path; the
//! slow path (first event of a thread) looks in the JVMTI thread-local storage, which
//! the VM-init enumeration may already have filled from another thread. A mutex makes
//! the two paths agree, so every Java thread gets exactly one id.

use crate::buffer::{self, ThreadBuf};
use crate::clock;
use crate::ids;
use crate::jvmti::{Jni, Jvmti};
use crate::sys::jvmti::jthread;
use std::collections::HashMap;
use std::ffi::CStr;
use std::sync::{Condvar, Mutex};
use std::time::Duration;
use trace::defs::ThreadDef;
use trace::record;

static REGISTRY: Mutex<()> = Mutex::new(());

/// Names of the agent's JVM-attached threads.
const AGENT_THREAD_NAMES: [&str; 2] = ["jtrace-heap", "jtrace-timer"];

/// Thread id by the object id of its java.lang.Thread.
static THREAD_OBJECTS: Mutex<Option<HashMap<u64, u32>>> = Mutex::new(None);

/// The thread id of a java.lang.Thread object, 0 if the agent never saw it.
pub fn id_of_thread_object(jvmti: Jvmti, thread: jthread) -> u32 {
    let Ok(tag) = jvmti.get_tag(thread) else {
        return 0;
    };
    let obj = crate::events::objects::object_id(tag);
    THREAD_OBJECTS
        .lock()
        .ok()
        .and_then(|m| m.as_ref().and_then(|m| m.get(&obj).copied()))
        .unwrap_or(0)
}

thread_local! {
    /// Set on the agent's own JVM-attached threads, which are never traced.
    static AGENT_THREAD: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Marks the current thread as the agent's own (call before attaching it).
fn mark_agent_thread() {
    AGENT_THREAD.with(|c| c.set(true));
}

/// Agent threads attached to the JVM, or about to attach, that have not detached yet.
static ATTACHED: Mutex<usize> = Mutex::new(0);
static ATTACHED_CV: Condvar = Condvar::new();

/// Whether the VM is initialized (VM init done, or attached to a running JVM): a thread
/// may attach only then. A trace begun at load with `duration=` starts the timer thread
/// during Agent_OnLoad, and AttachCurrentThread before VM init crashes HotSpot
/// (SIGSEGV in `ChunkPool::allocate`, JDK 17).
static INITIALIZED: Mutex<bool> = Mutex::new(false);
static INITIALIZED_CV: Condvar = Condvar::new();

/// The VM is initialized: agent threads waiting to attach may now.
pub fn set_vm_initialized() {
    if let Ok(mut l) = INITIALIZED.lock() {
        *l = true;
    }
    INITIALIZED_CV.notify_all();
}

/// VM death has begun: threads still waiting for an initialized VM give up.
pub fn release_waiting() {
    drop(INITIALIZED.lock());
    INITIALIZED_CV.notify_all();
}

/// Waits until the VM is initialized; false if VM death came first.
fn wait_for_initialized_vm() -> bool {
    let Ok(l) = INITIALIZED.lock() else {
        return false;
    };
    let l = INITIALIZED_CV
        .wait_while(l, |done| !*done && !crate::state::vm_dead())
        .unwrap_or_else(|e| e.into_inner());
    *l && !crate::state::vm_dead()
}

/// Starts an agent thread (never traced) that runs `body` attached to the JVM as a
/// daemon, and detaches it when `body` returns. `body` must return soon after VM
/// death has begun (`lifecycle::vm_dead`), and its waits must wake for it: VM death
/// waits for every such thread to detach ([`wait_agent_threads_detached`]), because
/// HotSpot's exit waits up to 300 ms for each attached thread that sits in native
/// code (`VM_Exit::wait_for_threads_in_native_to_block`), which is what a thread
/// waiting on a Rust lock is to the JVM. Returns false if the thread could not start.
pub fn spawn_attached(name: &'static CStr, body: impl FnOnce(Jni) + Send + 'static) -> bool {
    let Ok(label) = name.to_str() else {
        return false;
    };
    if let Ok(mut n) = ATTACHED.lock() {
        *n += 1;
    }
    let spawned = std::thread::Builder::new()
        .name(label.to_string())
        .spawn(move || {
            mark_agent_thread();
            // Not before the VM is initialized, nor after VM death has begun.
            if wait_for_initialized_vm() {
                match crate::jvmti::attach_current_as_daemon(name) {
                    Some(jni) => {
                        body(jni);
                        crate::jvmti::detach_current();
                    }
                    None => crate::log::log_once(&format!(
                        "cannot attach the agent's thread {label} to the JVM"
                    )),
                }
            }
            agent_thread_detached();
        });
    if spawned.is_err() {
        agent_thread_detached();
    }
    spawned.is_ok()
}

fn agent_thread_detached() {
    if let Ok(mut n) = ATTACHED.lock() {
        *n = n.saturating_sub(1);
    }
    ATTACHED_CV.notify_all();
}

/// Waits (at most `limit`) until every agent thread started by [`spawn_attached`]
/// has detached from the JVM; false if some had not.
pub fn wait_agent_threads_detached(limit: Duration) -> bool {
    let Ok(n) = ATTACHED.lock() else {
        return false;
    };
    let (n, _) = ATTACHED_CV
        .wait_timeout_while(n, limit, |n| *n > 0)
        .unwrap_or_else(|e| e.into_inner());
    *n == 0
}

/// The current thread's buffer, registering the thread on first use.
/// `thread` is the current thread's jthread (or null when not at hand).
#[inline]
pub fn current(jvmti: Jvmti, thread: jthread) -> Option<&'static ThreadBuf> {
    if let Some(b) = buffer::current() {
        return Some(b);
    }
    register_current(jvmti, thread)
}

/// The buffer of the thread an event names (`thread` is the current thread, maybe a
/// virtual one), found through JVMTI thread-local storage rather than the OS
/// thread's current buffer: exact even while a virtual thread is being mounted or
/// unmounted. For the less frequent events (monitors, exceptions, allocations).
pub fn of(jvmti: Jvmti, thread: jthread) -> Option<&'static ThreadBuf> {
    if thread.is_null() {
        return current(jvmti, thread);
    }
    match buffer::of_thread(jvmti, thread) {
        Ok(Some(b)) => Some(b),
        _ => current(jvmti, thread),
    }
}

#[cold]
fn register_current(jvmti: Jvmti, thread: jthread) -> Option<&'static ThreadBuf> {
    if buffer::is_stopping() || AGENT_THREAD.with(|c| c.get()) {
        return None;
    }
    let _guard = REGISTRY.lock().ok()?;
    let thread = if thread.is_null() {
        jvmti.current_thread().ok()?
    } else {
        thread
    };
    if let Some(b) = buffer::of_thread(jvmti, thread).ok()? {
        buffer::adopt(b);
        return Some(b);
    }
    let b = define(jvmti, thread, false)?;
    buffer::adopt(b);
    Some(b)
}

/// Gives `thread` an id and a buffer and sends its threadStart. Registry lock held.
/// `before_trace`: the thread was running before the trace started.
fn define(jvmti: Jvmti, thread: jthread, before_trace: bool) -> Option<&'static ThreadBuf> {
    let info = jvmti.thread_info(thread).ok()?;
    // The agent's own threads (found by a later start's enumeration) are never traced.
    if AGENT_THREAD_NAMES.contains(&info.name.as_str()) {
        return None;
    }
    let tid = ids::next_thread();
    let b = buffer::register(tid);
    buffer::set_of_thread(jvmti, thread, b).ok()?;
    // The Thread object's id: threadStart names it, and a monitor's owner (a Thread)
    // is mapped back to its thread id through it.
    // Named by a definition (stream 0): an allocating thread's objAlloc goes first.
    let named = crate::events::objects::name(jvmti, thread, 0);
    let obj = named.id;
    // Filed for later traces with its class, whether or not this one needs it.
    let filed = named
        .def
        .or_else(|| (obj != 0).then(|| crate::events::objects::obj_def(jvmti, thread, obj)));
    if obj != 0 {
        if let Ok(mut m) = THREAD_OBJECTS.lock() {
            m.get_or_insert_with(HashMap::new).insert(obj, tid);
        }
    }
    // One message for both definitions. No flush of the current thread's buffer
    // first: the new thread has no earlier events to keep ahead of these.
    let thread_def = ThreadDef {
        tid,
        obj,
        t: clock::ticks(),
        name: info.name,
        group: info.group,
        parent: info.parent_group,
        before_trace,
    };
    crate::live::send_thread(tid, filed, named.def.is_some() && !named.sent, thread_def);
    Some(b)
}

/// Gives another thread (e.g. a virtual thread about to run) an id and a buffer.
pub fn define_other(jvmti: Jvmti, thread: jthread) -> Option<&'static ThreadBuf> {
    if buffer::is_stopping() {
        return None;
    }
    let _guard = REGISTRY.lock().ok()?;
    match buffer::of_thread(jvmti, thread) {
        Ok(Some(b)) => Some(b),
        Ok(None) => define(jvmti, thread, false),
        Err(_) => None,
    }
}

/// Registers every live thread that has no id yet (at VM init, at attach, and when a
/// trace starts later: then `before_trace`, their frames may predate the trace).
pub fn register_all(jvmti: Jvmti, before_trace: bool) {
    let Ok(threads) = jvmti.all_threads() else {
        return;
    };
    let Ok(_guard) = REGISTRY.lock() else { return };
    for &t in threads.as_slice() {
        if matches!(buffer::of_thread(jvmti, t), Ok(None)) {
            let _ = define(jvmti, t, before_trace);
        }
    }
}

/// The thread is ending: its last record, then hand everything to the sink.
pub fn end(jvmti: Jvmti, thread: jthread) {
    if let Some(b) = current(jvmti, thread) {
        b.write(record::tick_only(record::TAG_THREAD_END, clock::ticks()).bytes());
        crate::live::thread_ended(b.tid);
        buffer::close_current();
    }
}
