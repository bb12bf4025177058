//! The agent's life: load and attach (options, capabilities, events), control requests, VM init, and VM death (which stops the recording).

use crate::buffer;
use crate::clock;
use crate::control::{self, Outcome, Reply, Verb};
use crate::events::threads;
use crate::jvmti::{Jni, Jvmti};
use crate::log::log_once;
use crate::options::{self, AllocMode, Mode, Options, StartMode};
use crate::recording;
use crate::state::{self, agent, try_agent, Entries};
use crate::sys::jvmti::{self as raw, jthread, jvmtiCapabilities};
use std::time::Duration;
use trace::record::{self, TAG_INIT_DONE};

/// What went wrong while loading, as one message for stderr.
pub struct LoadError(pub String);

/// Agent_OnLoad: everything that can fail with a user-facing message happens here,
/// before the JVM runs any Java code.
pub fn load(jvmti: Jvmti, option_string: &str, entries: &'static Entries) -> Result<(), LoadError> {
    let mut options =
        options::parse(option_string).map_err(|e| LoadError(options::error_report(&e)))?;
    if options.help {
        eprint!("{}", options::help_text());
        std::process::exit(0);
    }
    recording::read_filter_file(&mut options).map_err(LoadError)?;
    start(jvmti, options, entries, false)?;
    if agent().options.start == StartMode::On && agent().options.delay_ms == 0 {
        let (outcome, text) = recording::begin(&agent().options, None);
        if outcome != Outcome::Ok {
            return Err(LoadError(format!("{text}\n")));
        }
    } else {
        buffer::set_idle();
        crate::counts::note_idle(agent().options.counts_all);
    }
    enable_events(jvmti, &agent().options)
}

/// Agent_OnAttach: a plain load (`jtrace attach`, `jcmd JVMTI.agent_load`) or, once
/// the agent is loaded, a control request (`jtrace start/stop/status`): see
/// `control`. The reply is what the client prints.
pub fn attach(jvmti: Jvmti, jni: Jni, option_string: &str, entries: &'static Entries) -> Reply {
    let req = match control::parse(option_string) {
        Ok(r) => r,
        Err(e) => return (Outcome::Error, format!("jtrace: {e}")),
    };
    if try_agent().is_some() {
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
        Verb::Start | Verb::Stop | Verb::Dump | Verb::Tag => {
            return (
                Outcome::Refused,
                "jtrace: the agent is not loaded in this JVM; load it with jtrace attach PID"
                    .to_string(),
            )
        }
    }
    match first_attach(jvmti, jni, &req.options, entries) {
        Ok(r) => r,
        Err(e) => (Outcome::Error, e.0.trim_end().to_string()),
    }
}

/// A control request to the loaded agent (from a client, or from `jtrace.Trace`).
pub fn control(jvmti: Jvmti, jni: Jni, verb: Verb, raw: &str) -> Reply {
    if state::vm_dead() {
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
        Verb::Dump => recording::dump(control::dump_path(raw)),
        Verb::Tag => crate::events::tags::tag(jvmti, raw),
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
fn first_attach(
    jvmti: Jvmti,
    jni: Jni,
    option_string: &str,
    entries: &'static Entries,
) -> Result<Reply, LoadError> {
    let began = std::time::Instant::now();
    CAME_LIVE.store(true, std::sync::atomic::Ordering::Release);
    threads::set_vm_initialized();
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
    start(jvmti, options, entries, true)?;
    let o = &agent().options;
    let mut reply = if o.start == StartMode::On && o.delay_ms == 0 {
        // The sink is created before any event is enabled: if the file cannot be
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
        if crate::events::tracker::install(jni, recording::tracing()) {
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
fn start(
    jvmti: Jvmti,
    options: Options,
    entries: &'static Entries,
    live: bool,
) -> Result<(), LoadError> {
    clock::init();
    buffer::init(live);
    crate::window::init(&options);
    crate::events::objects::set_class_lookup(crate::events::classes::class_tag);
    let version = jvmti.version().unwrap_or(0);
    if version < raw::JVMTI_VERSION_11 {
        return Err(LoadError(format!(
            "jtrace: needs a JVM with JVMTI 11 or newer (Java 11+); this one reports {version:#x}\n"
        )));
    }
    add_capabilities(jvmti, &options)?;
    state::install(jvmti, options, entries);
    Ok(())
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
            // Only to define the blocking methods' classes loaded before the load
            // hook (`tracker::define_early_waits`); nothing is rewritten.
            if options.waits {
                want.push(raw::CAP_CAN_RETRANSFORM_CLASSES);
            }
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
    let cb = (agent().entries.callbacks)();
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
    if jvmti.version().unwrap_or(0) >= raw::JVMTI_VERSION_21 && {
        let [mount, unmount] = (agent().entries.mount_events)();
        crate::events::vthreads::enable_mount_events(jvmti, mount, unmount)
    } {
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

/// The agent came into a running JVM (`first_attach`), which did what VMInit does.
static CAME_LIVE: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// VMInit: the VM is ready; give every live thread an id and mark the moment.
pub fn vm_init(jvmti: Jvmti, jni: Jni, thread: jthread) {
    // The `-javaagent` jar's premain runs while HotSpot posts VMInit (the JPLIS agent
    // calls it from its own VMInit callback), so an agent attached there is handed the
    // same VMInit: its set-up is done already (a second tracker could not be defined,
    // a second heap thread would collect twice).
    if CAME_LIVE.load(std::sync::atomic::Ordering::Acquire) {
        return;
    }
    threads::set_vm_initialized();
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
        if crate::events::tracker::install(jni, recording::tracing()) {
            crate::events::tracker::retransform_early(jvmti, jni);
        }
    } else if options.waits {
        crate::events::tracker::define_early_waits(jvmti, jni);
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
/// shutdown, stop every producer, drain, close the document and wait for the sink.
pub fn vm_death(jvmti: Jvmti, thread: jthread) {
    if !state::finish() {
        return;
    }
    crate::exiting::begin();
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
