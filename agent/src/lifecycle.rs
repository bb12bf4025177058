//! The agent's life: load (options, output file, capabilities, writer), VM init, and the stop protocol at VM death.

use crate::buffer;
use crate::clock;
use crate::control::{self, Outcome, Reply, Verb};
use crate::events::threads;
use crate::ids::IdTable;
use crate::jvmti::{Jni, Jvmti};
use crate::options::{self, AllocMode, Mode, Options, StartMode};
use crate::recording;
use crate::sink::{self, Summary};
use crate::sys::jvmti::{self as raw, jthread, jvmtiCapabilities, jvmtiEventCallbacks};
use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc;
use std::sync::{Mutex, OnceLock};
use std::time::Duration;
use trace::record::{self, TAG_INIT_DONE};

/// Everything the callbacks share. Created once at load and never freed: callbacks
/// may still run during and after VM death.
pub struct Agent {
    pub jvmti: Jvmti,
    /// The options the agent was loaded with (a later trace may change its output
    /// and filters: `recording::filters`).
    pub options: Options,
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

static LOGGED: Mutex<Option<HashSet<String>>> = Mutex::new(None);

/// One line on stderr per distinct message: the application keeps its stdout.
pub fn log_once(msg: &str) {
    if let Ok(mut seen) = LOGGED.lock() {
        if seen
            .get_or_insert_with(HashSet::new)
            .insert(msg.to_string())
        {
            eprintln!("jtrace: {msg}");
        }
    }
}

/// What went wrong while loading, as one message for stderr.
pub struct LoadError(pub String);

/// Agent_OnLoad: everything that can fail with a user-facing message happens here,
/// before the JVM runs any Java code.
pub fn load(jvmti: Jvmti, option_string: &str) -> Result<(), LoadError> {
    let mut options =
        options::parse(option_string).map_err(|e| LoadError(options::error_report(&e)))?;
    if options.help {
        eprint!("{}", options::help_text());
        std::process::exit(0);
    }
    recording::read_filter_file(&mut options).map_err(LoadError)?;
    start(jvmti, options)?;
    if agent().options.start == StartMode::On && agent().options.delay_ms == 0 {
        let (outcome, text) = recording::begin(&agent().options, None);
        if outcome != Outcome::Ok {
            return Err(LoadError(format!("{text}\n")));
        }
    } else {
        buffer::set_idle();
    }
    enable_events(jvmti, &agent().options)
}

/// Agent_OnAttach: a plain load (`jtrace attach`, `jcmd JVMTI.agent_load`) or, once
/// the agent is loaded, a control request (`jtrace start/stop/status`): see
/// `control`. The reply is what the client prints.
pub fn attach(jvmti: Jvmti, jni: Jni, option_string: &str) -> Reply {
    let req = match control::parse(option_string) {
        Ok(r) => r,
        Err(e) => return (Outcome::Error, format!("jtrace: {e}")),
    };
    if AGENT.get().is_some() {
        return control(jvmti, jni, req.verb, &req.options);
    }
    match req.verb {
        Verb::Load => {}
        Verb::Status => {
            return (
                Outcome::Refused,
                "jtrace: the agent is not loaded in this JVM".to_string(),
            )
        }
        Verb::Start | Verb::Stop => {
            return (
                Outcome::Refused,
                "jtrace: the agent is not loaded in this JVM; load it with jtrace attach PID"
                    .to_string(),
            )
        }
    }
    match first_attach(jvmti, jni, &req.options) {
        Ok(r) => r,
        Err(e) => (Outcome::Error, e.0.trim_end().to_string()),
    }
}

/// A control request to the loaded agent (from a client, or from `jtrace.Trace`).
pub fn control(jvmti: Jvmti, jni: Jni, verb: Verb, raw: &str) -> Reply {
    if vm_dead() {
        return (
            Outcome::Refused,
            "jtrace: the JVM is shutting down".to_string(),
        );
    }
    match verb {
        Verb::Load => (
            Outcome::Refused,
            "jtrace: already loaded in this JVM; use jtrace start/stop/status PID".to_string(),
        ),
        Verb::Status => recording::status(),
        Verb::Stop => recording::stop(false, None),
        Verb::Start => {
            let o = match recording::trace_options(raw) {
                Ok(o) => o,
                Err(e) => return (Outcome::Error, e.trim_end().to_string()),
            };
            if recording::tracing() {
                // Refused before any timer is set: nothing changes.
                return recording::begin(&o, Some((jvmti, jni)));
            }
            if o.delay_ms > 0 {
                recording::schedule_delayed_start(&o);
                return (
                    Outcome::Ok,
                    format!("jtrace: the trace starts in {} ms", o.delay_ms),
                );
            }
            recording::begin(&o, Some((jvmti, jni)))
        }
    }
}

/// The first attach: the same checks and set-up as at load, then what VM init would
/// have done, and every already-loaded class the filters select rewritten in place.
fn first_attach(jvmti: Jvmti, jni: Jni, option_string: &str) -> Result<Reply, LoadError> {
    let began = std::time::Instant::now();
    threads::set_vm_live();
    let mut options =
        options::parse(option_string).map_err(|e| LoadError(options::error_report(&e)))?;
    if options.help {
        // Attached to a running application: print, but never stop it.
        eprint!("{}", options::help_text());
        return Err(LoadError("jtrace: help printed; not tracing\n".to_string()));
    }
    if options.mode == Mode::Jvmti {
        return Err(LoadError(
            "jtrace: mode=jvmti needs the agent at JVM start (-agentpath): a running JVM \
             refuses JVMTI method events; attach with mode=bci (the default)\n"
                .to_string(),
        ));
    }
    recording::read_filter_file(&mut options).map_err(LoadError)?;
    start(jvmti, options)?;
    let o = &agent().options;
    let mut reply = if o.start == StartMode::On && o.delay_ms == 0 {
        // The writer is created before any event is enabled: if the file cannot be
        // made, the attach fails with nothing running.
        let (outcome, text) = recording::begin(o, None);
        if outcome != Outcome::Ok {
            return Err(LoadError(text));
        }
        text
    } else {
        buffer::set_idle();
        "jtrace: loaded idle".to_string()
    };
    enable_events(jvmti, o)?;
    let mut retransformed = 0;
    jni.with_local_frame(64, || {
        threads::register_all(jvmti, false);
        if o.gc {
            crate::events::memory::start_heap_thread();
        }
        if crate::events::tracker::install(jvmti, jni) {
            retransformed = crate::events::tracker::retransform_loaded(jvmti, jni);
        }
        if o.alloc == AllocMode::Exact {
            crate::events::memory::arm_sampling(jvmti);
        }
    });
    if o.start == StartMode::On && o.delay_ms > 0 {
        recording::schedule_delayed_start(o);
        reply = format!("jtrace: loaded idle; the trace starts in {} ms", o.delay_ms);
    }
    reply.push_str(&format!(
        " ({retransformed} loaded classes instrumented; attach took {:.2} s)",
        began.elapsed().as_secs_f64()
    ));
    Ok((Outcome::Ok, reply))
}

/// Everything common to load and attach: capabilities, the agent, (not yet) events.
fn start(jvmti: Jvmti, options: Options) -> Result<(), LoadError> {
    clock::init();
    buffer::init();
    let version = jvmti.version().unwrap_or(0);
    if version < raw::JVMTI_VERSION_11 {
        return Err(LoadError(format!(
            "jtrace: needs a JVM with JVMTI 11 or newer (Java 11+); this one reports {version:#x}\n"
        )));
    }
    add_capabilities(jvmti, &options)?;
    let _ = AGENT.set(Agent {
        jvmti,
        options,
        method_table: OnceLock::new(),
        tracker_ready: AtomicBool::new(false),
        skipped_classes: AtomicU64::new(0),
        finished: AtomicBool::new(false),
    });
    Ok(())
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

fn add_capabilities(jvmti: Jvmti, options: &Options) -> Result<(), LoadError> {
    let potential = jvmti
        .potential_capabilities()
        .map_err(|e| LoadError(format!("jtrace: {e}\n")))?;
    let mut caps = jvmtiCapabilities::default();
    let mut want = vec![
        raw::CAP_CAN_GENERATE_ALL_CLASS_HOOK_EVENTS,
        raw::CAP_CAN_TAG_OBJECTS,
    ];
    if options.exceptions && options.mode == Mode::Jvmti {
        want.push(raw::CAP_CAN_GENERATE_EXCEPTION_EVENTS);
    }
    if options.lines && options.mode == Mode::Jvmti {
        want.push(raw::CAP_CAN_GENERATE_SINGLE_STEP_EVENTS);
    }
    // Tagged objects (exceptions, monitors, allocations) and class mirrors (unloading).
    want.push(raw::CAP_CAN_GENERATE_OBJECT_FREE_EVENTS);
    if options.gc {
        want.push(raw::CAP_CAN_GENERATE_GARBAGE_COLLECTION_EVENTS);
    }
    if options.monitors {
        want.push(raw::CAP_CAN_GENERATE_MONITOR_EVENTS);
        want.push(raw::CAP_CAN_GET_MONITOR_INFO);
    }
    if options.alloc != AllocMode::Off {
        want.push(raw::CAP_CAN_GENERATE_SAMPLED_OBJECT_ALLOC_EVENTS);
    }
    match options.mode {
        Mode::Jvmti => {
            want.push(raw::CAP_CAN_GENERATE_METHOD_ENTRY_EVENTS);
            want.push(raw::CAP_CAN_GENERATE_METHOD_EXIT_EVENTS);
        }
        Mode::Bci => want.push(raw::CAP_CAN_RETRANSFORM_CLASSES),
    }
    // Virtual threads (JDK 21+): without this capability their events are not posted.
    let vthreads = potential.bits[(raw::CAP_CAN_SUPPORT_VIRTUAL_THREADS / 32) as usize]
        & (1 << (raw::CAP_CAN_SUPPORT_VIRTUAL_THREADS % 32))
        != 0;
    if vthreads {
        want.push(raw::CAP_CAN_SUPPORT_VIRTUAL_THREADS);
    }
    for bit in want {
        let (w, b) = ((bit / 32) as usize, bit % 32);
        if potential.bits[w] & (1 << b) == 0 {
            return Err(LoadError(format!(
                "jtrace: this JVM does not offer JVMTI capability #{bit} needed by mode={}\n",
                options.mode.as_str()
            )));
        }
        caps.bits[w] |= 1 << b;
    }
    jvmti
        .add_capabilities(&caps)
        .map_err(|e| LoadError(format!("jtrace: {e}\n")))
}

fn enable_events(jvmti: Jvmti, options: &Options) -> Result<(), LoadError> {
    let cb = jvmtiEventCallbacks {
        VMInit: Some(crate::entry::vm_init),
        VMDeath: Some(crate::entry::vm_death),
        ThreadStart: Some(crate::entry::thread_start),
        ThreadEnd: Some(crate::entry::thread_end),
        ClassFileLoadHook: Some(crate::entry::class_file_load_hook),
        ClassPrepare: Some(crate::entry::class_prepare),
        MethodEntry: Some(crate::entry::method_entry),
        MethodExit: Some(crate::entry::method_exit),
        Exception: Some(crate::entry::exception),
        ExceptionCatch: Some(crate::entry::exception_catch),
        GarbageCollectionStart: Some(crate::entry::garbage_collection_start),
        GarbageCollectionFinish: Some(crate::entry::garbage_collection_finish),
        ObjectFree: Some(crate::entry::object_free),
        SampledObjectAlloc: Some(crate::entry::sampled_object_alloc),
        MonitorContendedEnter: Some(crate::entry::monitor_contended_enter),
        MonitorContendedEntered: Some(crate::entry::monitor_contended_entered),
        MonitorWait: Some(crate::entry::monitor_wait),
        MonitorWaited: Some(crate::entry::monitor_waited),
        SingleStep: Some(crate::entry::single_step),
        VirtualThreadStart: Some(crate::entry::virtual_thread_start),
        VirtualThreadEnd: Some(crate::entry::virtual_thread_end),
        ..Default::default()
    };
    let err = |e: crate::jvmti::JvmtiError| LoadError(format!("jtrace: {e}\n"));
    jvmti.set_event_callbacks(&cb).map_err(err)?;
    let mut events = vec![
        raw::JVMTI_EVENT_VM_INIT,
        raw::JVMTI_EVENT_VM_DEATH,
        raw::JVMTI_EVENT_THREAD_START,
        raw::JVMTI_EVENT_THREAD_END,
        raw::JVMTI_EVENT_CLASS_FILE_LOAD_HOOK,
        raw::JVMTI_EVENT_CLASS_PREPARE,
    ];
    if options.mode == Mode::Jvmti {
        events.push(raw::JVMTI_EVENT_METHOD_ENTRY);
        events.push(raw::JVMTI_EVENT_METHOD_EXIT);
        if options.exceptions {
            events.push(raw::JVMTI_EVENT_EXCEPTION);
            events.push(raw::JVMTI_EVENT_EXCEPTION_CATCH);
        }
    }
    events.push(raw::JVMTI_EVENT_OBJECT_FREE);
    if jvmti.version().unwrap_or(0) >= raw::JVMTI_VERSION_21
        && crate::events::vthreads::enable_mount_events(
            jvmti,
            crate::entry::virtual_thread_mount as *const std::ffi::c_void,
            crate::entry::virtual_thread_unmount as *const std::ffi::c_void,
        )
    {
        events.push(raw::JVMTI_EVENT_VIRTUAL_THREAD_START);
        events.push(raw::JVMTI_EVENT_VIRTUAL_THREAD_END);
    }
    if options.gc {
        events.push(raw::JVMTI_EVENT_GARBAGE_COLLECTION_START);
        events.push(raw::JVMTI_EVENT_GARBAGE_COLLECTION_FINISH);
    }
    if options.monitors {
        events.extend([
            raw::JVMTI_EVENT_MONITOR_CONTENDED_ENTER,
            raw::JVMTI_EVENT_MONITOR_CONTENDED_ENTERED,
            raw::JVMTI_EVENT_MONITOR_WAIT,
            raw::JVMTI_EVENT_MONITOR_WAITED,
        ]);
    }
    if let Some(interval) = match options.alloc {
        AllocMode::Off => None,
        AllocMode::Exact => Some(0),
        AllocMode::Sampled(n) => Some(n.min(i32::MAX as u64) as i32),
    } {
        jvmti.set_heap_sampling_interval(interval).map_err(err)?;
        events.push(raw::JVMTI_EVENT_SAMPLED_OBJECT_ALLOC);
    }
    for e in events {
        jvmti.set_event(true, e).map_err(err)?;
    }
    Ok(())
}

/// VMInit: the VM is ready; give every live thread an id and mark the moment.
pub fn vm_init(jvmti: Jvmti, jni: Jni, thread: jthread) {
    threads::set_vm_live();
    threads::register_all(jvmti, false);
    let options = &agent().options;
    if options.mode == Mode::Jvmti && options.lines {
        // HotSpot only honours single stepping enabled in the live phase.
        if let Err(e) = jvmti.set_event(true, raw::JVMTI_EVENT_SINGLE_STEP) {
            log_once(&format!("lines=on in mode=jvmti: {e}; no line events"));
        }
    }
    if agent().options.gc {
        crate::events::memory::start_heap_thread();
    }
    if agent().options.mode == Mode::Bci {
        crate::events::tracker::install(jvmti, jni);
    }
    if options.alloc != AllocMode::Off {
        crate::events::memory::arm_sampling(jvmti);
    }
    if let Some(b) = threads::current(jvmti, thread) {
        b.write(record::tick_only(TAG_INIT_DONE, clock::ticks()).bytes());
    }
    if options.start == StartMode::On && options.delay_ms > 0 {
        recording::schedule_delayed_start(options);
    }
}

/// VMDeath (also reached from Agent_OnUnload if VMDeath never came): record the
/// shutdown, stop every producer, drain, close the document and wait for the writer.
pub fn vm_death(jvmti: Jvmti, thread: jthread) {
    let Some(a) = AGENT.get() else { return };
    if a.finished.swap(true, Ordering::SeqCst) {
        return;
    }
    let tid = if thread.is_null() {
        None
    } else {
        threads::current(jvmti, thread).map(|b| b.tid)
    };
    // Method events first: fewer threads race into callbacks while we stop.
    for e in [
        raw::JVMTI_EVENT_METHOD_ENTRY,
        raw::JVMTI_EVENT_METHOD_EXIT,
        raw::JVMTI_EVENT_EXCEPTION,
        raw::JVMTI_EVENT_EXCEPTION_CATCH,
        raw::JVMTI_EVENT_SINGLE_STEP,
        raw::JVMTI_EVENT_SAMPLED_OBJECT_ALLOC,
    ] {
        let _ = jvmti.set_event(false, e);
    }
    if recording::tracing() {
        recording::stop(true, tid);
    }
    if !thread.is_null() {
        // The agent's attached threads detach now, not with the JVM: HotSpot's exit
        // would wait up to 300 ms for each of them, in native to the JVM.
        crate::events::memory::wake_heap_thread();
        recording::wake_timers();
        threads::release_waiting();
        if !threads::wait_agent_threads_detached(Duration::from_millis(500)) {
            log_once(
                "an agent thread did not detach at VM death; the JVM may take 0.3 s more to exit",
            );
        }
    }
}

/// Waits until the sink has closed every file. The XML renderer may still be behind
/// the recording (records wait in the spool): the JVM waits as long as it makes
/// progress, saying once on stderr how much is left, and gives up only after a minute
/// without progress.
pub fn wait_for_sink(r: &sink::Running, out_path: &str) -> Option<Summary> {
    const STALL: Duration = Duration::from_secs(60);
    let started = std::time::Instant::now();
    let mut said = false;
    let mut last = (0, std::time::Instant::now());
    loop {
        match r.done.recv_timeout(Duration::from_millis(500)) {
            Ok(s) => return Some(s),
            Err(mpsc::RecvTimeoutError::Disconnected) => return None,
            Err(mpsc::RecvTimeoutError::Timeout) => {}
        }
        let Some(sp) = &r.spool else {
            if started.elapsed() > Duration::from_secs(120) {
                return None;
            }
            continue;
        };
        let taken = sp.taken.load(Ordering::Relaxed);
        if taken != last.0 {
            last = (taken, std::time::Instant::now());
        } else if last.1.elapsed() > STALL {
            return None;
        }
        if !said && started.elapsed() > Duration::from_secs(2) {
            said = true;
            eprintln!(
                "jtrace: finishing {out_path}: {} MB of records still to render as XML",
                sp.pending_bytes() >> 20
            );
        }
    }
}

/// The one line on stderr when the trace is closed: where it went, how big it is, and
/// anything dropped or repaired (async-profiler and JFR say where their output went
/// too). The size is the file's, read back, so it is what the user will find.
pub fn closing_line(
    out_path: &str,
    sum: &Summary,
    lost_bytes: u64,
    skipped_classes: u64,
) -> String {
    let s = &sum.stats;
    let path = std::fs::canonicalize(out_path)
        .map(|p| p.display().to_string())
        .unwrap_or_else(|_| out_path.to_string());
    let size = std::fs::metadata(out_path).map_or(s.bytes, |m| m.len());
    let mut line = match &s.io_error {
        Some(e) => format!("jtrace: writing {path} failed ({e}); the trace is incomplete: "),
        None => format!("jtrace: trace written to {path}: "),
    };
    if sum.jtr_only {
        line.push_str(&format!("{size} bytes, {} events", s.events));
    } else {
        line.push_str(&format!(
            "{size} bytes, {} elements, {} events",
            s.elements, s.events
        ));
    }
    for (n, what) in [
        (lost_bytes, "bytes of records dropped"),
        (
            s.unknown_thread_records,
            "records of unknown threads dropped",
        ),
        (
            s.undefined_method_records,
            "entries of undefined methods dropped",
        ),
        (s.mismatched_exits, "exits naming no open frame ignored"),
        (s.inferred_exits, "exits inferred"),
        (skipped_classes, "classes left uninstrumented"),
    ] {
        if n > 0 {
            line.push_str(&format!(", {n} {what}"));
        }
    }
    if let Some(e) = &sum.jtr_error {
        line.push_str(&format!(" (writing the .jtr records failed: {e})"));
    }
    line
}
