//! The agent's global state, a leaf: the `Agent` made once at load, its accessors (`agent()`, `try_agent()`), the filters in force, and the slot of the trace being recorded (`Current`).
//!
//! Event handlers read what they share from here, never from the orchestrating
//! modules above them (`lifecycle`, `recording`), so imports run one way: down.
//! What one trace needs is one value: `recording::Trace` makes a `Current` when the
//! trace opens, installs it here (`set_current`) and drops it when the trace closes;
//! nothing of a trace is reset by hand. The probe path does not come here: it reads
//! only the buffers' stop flag (`buffer::ThreadBuf::write`).

use crate::ids::IdTable;
use crate::jvmti::Jvmti;
use crate::options::{Mode, Options};
use crate::sys::jvmti::jvmtiEventCallbacks;
use std::collections::HashSet;
use std::ffi::c_void;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::SyncSender;
use std::sync::{Arc, Mutex, OnceLock, RwLock};
use trace::defs::Msg;

/// What the JVM calls, as `entry.rs` fills it next to the functions it names: the
/// JVMTI event callbacks, HotSpot's mount/unmount extension events and the
/// tracker's natives (in `classfile::GATED_NATIVES` order).
pub struct Entries {
    pub callbacks: fn() -> jvmtiEventCallbacks,
    pub mount_events: fn() -> [*const c_void; 2],
    pub tracker_natives: fn() -> [*mut c_void; 7],
}

/// Everything the callbacks share. Created once at load and never freed: callbacks
/// may still run during and after VM death.
pub struct Agent {
    pub jvmti: Jvmti,
    /// The options the agent was loaded with (a later trace may change its output
    /// and filters: `recording::filters`).
    pub options: Options,
    /// The callback and native tables (`entry.rs`).
    pub entries: &'static Entries,
    /// The JVM's facts (`jvm::facts`), read at load: every trace's header carries them.
    pub jvm: Vec<(String, String)>,
    method_table: OnceLock<IdTable>,
    tracker_ready: AtomicBool,
    skipped_classes: AtomicU64,
    finished: AtomicBool,
}

static AGENT: OnceLock<Agent> = OnceLock::new();

/// The agent. Callbacks are only enabled after it exists.
pub fn agent() -> &'static Agent {
    AGENT.get().expect("callbacks run only after load")
}

/// The agent, if loading got that far.
pub fn try_agent() -> Option<&'static Agent> {
    AGENT.get()
}

impl Agent {
    /// jmethodID → method id (2^19 slots): JVMTI-mode method events, and
    /// allocation sites in both modes.
    pub fn method_table(&self) -> &IdTable {
        self.method_table
            .get_or_init(|| IdTable::with_capacity_pow2(19))
    }

    pub fn tracker_ready(&self) -> bool {
        self.tracker_ready.load(Ordering::Acquire)
    }

    pub fn set_tracker_ready(&self) {
        self.tracker_ready.store(true, Ordering::Release);
    }

    pub fn count_skipped(&self) {
        self.skipped_classes.fetch_add(1, Ordering::Relaxed);
    }
}

/// Makes the agent (once; a second call keeps the first).
pub fn install(jvmti: Jvmti, options: Options, entries: &'static Entries) {
    let _ = AGENT.set(Agent {
        jvmti,
        options,
        entries,
        jvm: crate::jvm::facts(jvmti),
        method_table: OnceLock::new(),
        tracker_ready: AtomicBool::new(false),
        skipped_classes: AtomicU64::new(0),
        finished: AtomicBool::new(false),
    });
}

/// Marks the start of VM death; true only for the first caller (and only once the
/// agent exists).
pub fn finish() -> bool {
    AGENT
        .get()
        .is_some_and(|a| !a.finished.swap(true, Ordering::SeqCst))
}

/// Whether VM death has begun: no trace may start any more.
pub fn vm_dead() -> bool {
    AGENT
        .get()
        .is_some_and(|a| a.finished.load(Ordering::SeqCst))
}

/// Whether classes are being rewritten with probes (mode=bci, tracker installed).
pub fn bci_ready() -> bool {
    AGENT
        .get()
        .is_some_and(|a| a.options.mode == Mode::Bci && a.tracker_ready())
}

/// Classes the rewriter had to leave alone so far.
pub fn skipped_classes() -> u64 {
    AGENT
        .get()
        .map_or(0, |a| a.skipped_classes.load(Ordering::Relaxed))
}

/// The filters of the current (or last) trace: the load hook and retransformation
/// read them. None until the first trace's options are known (then the load options).
static FILTERS: RwLock<Option<Arc<Options>>> = RwLock::new(None);

/// The options whose filters decide what is instrumented now.
pub fn filters() -> Arc<Options> {
    if let Some(f) = FILTERS.read().ok().and_then(|f| f.clone()) {
        return f;
    }
    Arc::new(agent().options.clone())
}

pub fn set_filters(o: &Options) {
    if let Ok(mut f) = FILTERS.write() {
        *f = Some(Arc::new(o.clone()));
    }
}

/// What the handlers of one trace share while it records: its sink's channel, the bytes it lost, and which objects named before it began its document
/// has defined. Made by `recording::Trace::open`, dropped with the trace.
pub struct Current {
    sink: SyncSender<Msg>,
    lost_bytes: AtomicU64,
    /// The first object id given during this trace: an object named with an older id
    /// was defined in an earlier document, and is defined again (once) in this one
    /// when it is first named (`jtrace stop` then `start`).
    first_object: u64,
    redefined: Mutex<HashSet<u64>>,
}

impl Current {
    /// A trace sending to `sink`; objects given ids before now are not defined in its
    /// document yet.
    pub fn new(sink: SyncSender<Msg>) -> Current {
        Current {
            sink,
            lost_bytes: AtomicU64::new(0),
            first_object: crate::ids::objects_so_far(),
            redefined: Mutex::new(HashSet::new()),
        }
    }

    /// Sends a message to the trace's sink, waiting while its queue is full; false if
    /// the sink is gone.
    pub fn send(&self, msg: Msg) -> bool {
        self.sink.send(msg).is_ok()
    }

    pub fn add_lost(&self, bytes: u64) {
        self.lost_bytes.fetch_add(bytes, Ordering::Relaxed);
    }

    /// Bytes of records this trace could not deliver.
    pub fn lost_bytes(&self) -> u64 {
        self.lost_bytes.load(Ordering::Relaxed)
    }

    /// An existing object id: whether this document still needs its objDef (true
    /// once per id given before the trace began).
    fn needs_object_def(&self, id: u64) -> bool {
        id < self.first_object && self.redefined.lock().is_ok_and(|mut r| r.insert(id))
    }
}

/// The trace being recorded (None while idle). Replaced at each start, under the
/// `live` registry's lock (see `live::restart`).
static CURRENT: RwLock<Option<Arc<Current>>> = RwLock::new(None);

/// The trace being recorded, if any.
pub fn current() -> Option<Arc<Current>> {
    CURRENT.read().ok().and_then(|c| c.clone())
}

/// Installs (or, with None, removes) the trace being recorded.
pub fn set_current(trace: Option<Arc<Current>>) {
    if let Ok(mut c) = CURRENT.write() {
        *c = trace;
    }
}

/// An existing object id: whether the current document still needs its objDef.
pub fn needs_object_def(id: u64) -> bool {
    current().is_some_and(|c| c.needs_object_def(id))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc::sync_channel;

    #[test]
    fn a_trace_defines_each_older_object_once_and_no_newer_one() {
        let (tx, _rx) = sync_channel(1);
        let older = crate::ids::next_object();
        let trace = Current::new(tx);
        let newer = crate::ids::next_object();
        assert!(trace.needs_object_def(older), "named before: defined again");
        assert!(!trace.needs_object_def(older), "but once");
        assert!(
            !trace.needs_object_def(newer),
            "named during: defined when tagged"
        );
        // The next trace defines the older object again, once.
        let (tx, _rx) = sync_channel(1);
        let next = Current::new(tx);
        assert!(next.needs_object_def(older) && !next.needs_object_def(older));
        assert!(next.needs_object_def(newer));
    }

    #[test]
    fn what_a_gone_sink_refuses_is_this_traces_loss() {
        let (tx, rx) = sync_channel(1);
        let trace = Current::new(tx);
        assert!(trace.send(Msg::Chunk {
            tid: 1,
            data: vec![0; 3]
        }));
        drop(rx);
        assert!(!trace.send(Msg::Chunk {
            tid: 1,
            data: vec![0; 5]
        }));
        trace.add_lost(5);
        assert_eq!(trace.lost_bytes(), 5);
        let (tx, _rx) = sync_channel(1);
        assert_eq!(
            Current::new(tx).lost_bytes(),
            0,
            "a new trace starts at none lost"
        );
    }
}
