//! The recording state machine: idle or tracing, one trace (one document) at a time, started and stopped by the control requests, the in-application switch and the delay/duration timers.
//!
//! ```text
//!            begin (start=on at load or attach; jtrace start; Trace.start; delay over)
//!   Idle ───────────────────────────────────────────────────────────────► Tracing(n)
//!    ▲                                                                      │
//!    └──────────── stop (jtrace stop; Trace.stop; duration over; VM death) ─┘
//! ```
//!
//! Probes stay in the classes while idle: recording is switched by the buffers' stop
//! flag, and an unrecorded entry is counted (`counts`). Each trace has its own file
//! (`%n` = its number), sink thread and filters; ids stay the same across traces
//! and every live thread and class is re-defined at the head of each document
//! (`live::restart`). Control requests are serialised by the state's lock.

use crate::buffer;
use crate::clock;
use crate::control::{Outcome, Reply};
use crate::events::threads;
use crate::host;
use crate::jvmti::{Jni, Jvmti};
use crate::log::log_once;
use crate::options::{self, Options};
use crate::ring::{Ending, Ring};
use crate::sink;
use crate::state::{agent, filters, set_current, set_filters, Current};
use std::sync::atomic::Ordering;
use std::sync::mpsc;
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};
use trace::defs::Msg;
use trace::header::Header;

/// The trace being recorded, the one owner of what it needs: its file, its sink
/// thread, when it began, and what its handlers share (`state::Current`: sink
/// channel, lost bytes, objects its document defined), installed in the leaf
/// while it records. Opening makes it, closing drops it.
struct Trace {
    seq: u32,
    out_path: String,
    running: sink::Running,
    started: Instant,
    current: Arc<Current>,
    /// `ring=`: the records are kept in memory, written only by a dump.
    ring: Option<Arc<Ring>>,
    /// Its `duration=` timer, cancelled when the trace is dropped (stopped earlier).
    _duration: Option<Scheduled>,
}

#[derive(Default)]
struct State {
    /// Number of the last trace begun (the first is 1).
    seq: u32,
    trace: Option<Trace>,
    /// The closing line of the last trace that ended.
    last: Option<String>,
    /// A start is scheduled (delay=): its timer.
    delayed: Option<Scheduled>,
}

static STATE: Mutex<Option<State>> = Mutex::new(None);

fn with_state<T>(f: impl FnOnce(&mut State) -> T) -> T {
    let mut g = STATE.lock().unwrap_or_else(|e| e.into_inner());
    f(g.get_or_insert_with(State::default))
}

/// The options of a trace started by a control request: the load options with this
/// request's per-trace keys. Refuses keys that are fixed at load.
pub fn trace_options(raw: &str) -> Result<Options, String> {
    let base = &agent().options;
    let mut o = options::parse(raw).map_err(|e| options::error_report(&e))?;
    read_filter_file(&mut o)?;
    let per_trace = options::per_trace_keys();
    let fixed: Vec<&str> = raw
        .split(',')
        .filter_map(|i| i.split('=').next())
        .filter(|k| !k.is_empty() && !per_trace.contains(k))
        .collect();
    if !fixed.is_empty() {
        return Err(format!(
            "jtrace: {} cannot change between traces (fixed when the agent loaded: {}); \
             a trace may set only {}\n",
            fixed.join(", "),
            base.raw,
            per_trace.join(", ")
        ));
    }
    Ok(options::for_trace(base, raw, &o))
}

/// Reads `filters=FILE` into the options; the error names the file and line.
pub fn read_filter_file(o: &mut Options) -> Result<(), String> {
    let Some(path) = o.filters_file.clone() else {
        return Ok(());
    };
    let text = std::fs::read_to_string(&path)
        .map_err(|e| format!("jtrace: cannot read the filter file filters={path}: {e}\n"))?;
    options::apply_filter_file(o, &path, &text).map_err(|e| {
        let mut s = String::from("jtrace: invalid filter file:\n");
        for x in e {
            s.push_str(&format!("  - {x}\n"));
        }
        s
    })
}

impl Trace {
    /// Opens trace `seq` with `o`'s output and filters: its files and sink thread, the
    /// filters in force (classes retransformed while still idle if they changed and
    /// the JVM is `live`), every live definition re-sent, the buffers given the sink,
    /// recording switched on. Returns the trace and a note for the reply; `Err` is the
    /// reply saying why nothing started.
    fn open(o: &Options, seq: u32, live: Option<(Jvmti, Jni)>) -> Result<(Trace, String), Reply> {
        let start_ns = clock::real_ns();
        // A series numbers its files over the agent's life (`%n`), not its traces.
        let number = if o.series() {
            crate::series::take_number()
        } else {
            seq
        };
        let out_path =
            options::expand_out(&o.out, std::process::id(), start_ns / 1_000_000_000, number);
        let secs = start_ns / 1_000_000_000;
        let jtr_path = o
            .jtr
            .as_deref()
            .map(|t| options::expand_out(t, std::process::id(), secs, seq));
        // Created here so that a path that cannot be written is refused at once.
        let files = match sink::create(&out_path, jtr_path.as_deref()) {
            Ok(f) => f,
            Err(e) => {
                return Err((
                    Outcome::Error,
                    format!(
                        "jtrace: cannot write the trace to {e}\n\
                         jtrace: give a writable path, e.g. out=/tmp/trace-%p.xml"
                    ),
                ))
            }
        };
        let header = header(o, start_ns);
        let (tx, rx) = mpsc::sync_channel::<Msg>(buffer::QUEUE);
        let spill = std::path::PathBuf::from(format!("{out_path}.spill"));
        let ring =
            (o.ring > 0).then(|| Ring::new(o.ring, header.clone(), &o.out, o.jtr.as_deref()));
        let spawned = match &ring {
            Some(r) => {
                // Nothing is written until a dump: the path was only tried.
                drop(files);
                let _ = std::fs::remove_file(&out_path);
                sink::spawn_ring(r.clone(), rx, o.dump_on_exit)
            }
            None => {
                let plan = o
                    .series()
                    .then(|| crate::series::Plan::new(o, number, &out_path));
                sink::spawn(files, header, rx, spill, plan)
            }
        };
        let running = match spawned {
            Ok(r) => r,
            Err(e) => {
                let _ = std::fs::remove_file(&out_path);
                return Err((
                    Outcome::Error,
                    format!("jtrace: cannot start the sink thread: {e}"),
                ));
            }
        };
        let old = filters();
        set_filters(o);
        let mut note = String::new();
        if let Some((jvmti, jni)) = live {
            // Still idle: code running under the old filters records nothing here.
            if old.filters != o.filters && crate::state::bci_ready() {
                let t0 = Instant::now();
                let n = crate::events::tracker::retransform_changed(jvmti, jni, &old, o);
                note = format!(
                    "; {n} classes retransformed for the new filters in {:.2} s",
                    t0.elapsed().as_secs_f64()
                );
            }
        }
        let current = Arc::new(Current::new(tx));
        crate::live::restart(|| set_current(Some(current.clone())));
        buffer::resume();
        crate::events::tracker::set_recording(true);
        if let Some((jvmti, _)) = live {
            threads::register_all(jvmti, true);
        }
        Ok((
            Trace {
                seq,
                out_path,
                running,
                started: Instant::now(),
                current,
                ring,
                _duration: None,
            },
            note,
        ))
    }

    /// Closes the trace: recording switched off, every record taken (the stop
    /// protocol), `Finish` sent (`shutdown`: VM death, write runtimeShutdown; `tid`:
    /// the thread asking), the sink waited for, the counts carried to the next trace.
    /// Returns the closing line.
    fn close(self, shutdown: bool, tid: Option<u32>) -> String {
        let t = clock::ticks();
        crate::events::tracker::set_recording(false);
        buffer::stop(Duration::from_millis(500));
        let notes = crate::window::take_counts();
        let windows = crate::window::closing_words(&notes);
        buffer::send(Msg::Finish {
            t,
            tid,
            dropped_bytes: self.current.lost_bytes(),
            shutdown,
            count_base: crate::counts::base(),
            notes,
        });
        set_current(None);
        match sink::wait_for_sink(&self.running, &self.out_path) {
            Some(summary) => {
                for &(mid, n) in &summary.stats.method_counts {
                    crate::counts::carry(mid, n);
                }
                if let Some((records, cut)) = summary.ring_unwritten {
                    let mb = self.ring.as_ref().map_or(0, |r| r.bound() >> 20);
                    return format!(
                        "jtrace: the ring (ring={mb}m: {records} events received, {cut} of the \
                         oldest cut) was not written: dump-on=exit writes it when the trace \
                         ends, jtrace dump PID while the JVM runs (jtrace {})",
                        trace::VERSION
                    );
                }
                let lost = self.current.lost_bytes();
                let skipped = crate::state::skipped_classes();
                let path = summary.written_to.as_deref().unwrap_or(&self.out_path);
                let words: Vec<&str> = [windows.as_deref(), summary.series.as_deref()]
                    .into_iter()
                    .flatten()
                    .collect();
                let words = (!words.is_empty()).then(|| words.join(", "));
                sink::closing_line(path, &summary, lost, skipped, words.as_deref())
            }
            None => format!(
                "jtrace: the sink did not finish; {} may be incomplete",
                self.out_path
            ),
        }
    }
}

/// Starts trace number n+1 with `o`'s output and filters. `live`: the JVM is running
/// (not Agent_OnLoad): threads alive now are registered as running before the trace,
/// and classes whose instrumentation the new filters change are retransformed.
pub fn begin(o: &Options, live: Option<(Jvmti, Jni)>) -> Reply {
    with_state(|st| {
        if let Some(s) = &st.trace {
            return (
                Outcome::Refused,
                format!(
                    "jtrace: already tracing (trace {} to {}); stop it first with jtrace stop",
                    s.seq, s.out_path
                ),
            );
        }
        let seq = st.seq + 1;
        let (trace, note) = match Trace::open(o, seq, live) {
            Ok(t) => t,
            Err(reply) => return reply,
        };
        st.seq = seq;
        st.delayed = None;
        let out_path = trace.out_path.clone();
        st.trace = Some(Trace {
            _duration: (o.duration_ms > 0).then(|| schedule(o.duration_ms, Timer::Stop(seq))),
            ..trace
        });
        let abs = match (o.ring, o.dump_on_exit) {
            (0, _) => format!("writing {}", absolute(&out_path)),
            (n, false) => format!(
                "keeping the newest {} MB in memory (ring=), written by jtrace dump",
                n >> 20
            ),
            (n, true) => format!(
                "keeping the newest {} MB in memory (ring=), written by jtrace dump and at the end to {}",
                n >> 20,
                absolute(&out_path)
            ),
        };
        let limit = if o.duration_ms > 0 {
            format!(" for {} ms", o.duration_ms)
        } else {
            String::new()
        };
        (
            Outcome::Ok,
            format!("jtrace: trace {seq} started{limit}: {abs}{note}"),
        )
    })
}

fn header(o: &Options, start_ns: u64) -> Header {
    let mut options: Vec<(String, String)> = o
        .effective()
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect();
    // Method rules have no place in the `filter` element (classes only): each is an
    // `option` with key methodFilter, as the filter file's line.
    options.extend(
        o.filters
            .iter()
            .filter(|f| !f.all_methods())
            .map(|f| ("methodFilter".to_string(), f.file_line())),
    );
    Header {
        node_id: host::uuid(),
        hostname: host::hostname(),
        ipaddress: host::ip_addresses(),
        timezone_minutes_west: host::timezone_minutes_west(),
        boot_ns: host::boot_ns(),
        process_id: host::uuid(),
        pid: std::process::id(),
        process_name: host::process_name(),
        command_line: host::command_line(),
        process_start_ns: host::process_start_ns().unwrap_or(start_ns),
        agent_id: host::uuid(),
        agent_parameters: o.raw.clone(),
        agent_version: trace::VERSION.to_string(),
        trace_id: host::uuid(),
        start_ns,
        options,
        // Each trace defines its own collector thread, with an id of its own.
        gc_thread_id: if o.gc { crate::ids::next_thread() } else { 0 },
        exceptions: o.exceptions,
        filters: o
            .filters
            .iter()
            .filter(|f| f.all_methods())
            .map(|f| {
                let e = f.echo();
                (e.pattern, e.generic_pattern.to_string(), e.mode.to_string())
            })
            .collect(),
        jvm: crate::state::try_agent().map_or_else(Vec::new, |a| a.jvm.clone()),
    }
}

/// Ends the current trace: every record taken, the document closed as at VM death
/// (`shutdown`: it is VM death, write runtimeShutdown), the sink waited for.
/// `tid`: the thread asking (runtimeShutdown names it).
pub fn stop(shutdown: bool, tid: Option<u32>) -> Reply {
    with_state(|st| stop_locked(st, shutdown, tid))
}

/// Stops trace `seq` if it is still the one running (its duration is over).
fn stop_if(seq: u32) {
    with_state(|st| {
        if st.trace.as_ref().is_some_and(|s| s.seq == seq) {
            stop_locked(st, false, None);
        }
    });
}

fn stop_locked(st: &mut State, shutdown: bool, tid: Option<u32>) -> Reply {
    let Some(s) = st.trace.take() else {
        return (
            Outcome::Refused,
            "jtrace: not tracing; nothing to stop (start a trace with jtrace start)".to_string(),
        );
    };
    let line = s.close(shutdown, tid);
    // The application's stderr says where each trace went, as at VM death.
    eprintln!("{line}");
    if !shutdown {
        crate::counts::note_idle(agent().options.counts_all);
    }
    st.last = Some(line.clone());
    (Outcome::Ok, line)
}

/// Writes the current trace's ring to `path` (or `out=` with `%n` the dump's number)
/// as a complete trace; recording goes on.
pub fn dump(path: Option<&str>) -> Reply {
    with_state(|st| {
        let Some(tr) = &st.trace else {
            return (
                Outcome::Refused,
                "jtrace: not tracing; nothing to dump (a dump needs a trace with ring=SIZE)"
                    .to_string(),
            );
        };
        let Some(ring) = &tr.ring else {
            return (
                Outcome::Refused,
                format!(
                    "jtrace: trace {} has no ring: it is written as it records, to {} \
                     (a dump needs ring=SIZE)",
                    tr.seq,
                    absolute(&tr.out_path)
                ),
            );
        };
        if !ring.settle() {
            return (
                Outcome::Error,
                "jtrace: the ring did not receive the buffered records in time; nothing dumped"
                    .to_string(),
            );
        }
        let (path, beside) = match path {
            Some(p) => (p.to_string(), None),
            None => ring.next_paths(),
        };
        let end = Ending {
            t: clock::ticks(),
            tid: None,
            dropped_bytes: tr.current.lost_bytes(),
            shutdown: false,
            notes: crate::window::peek_counts(),
        };
        match ring.write(&ring.snapshot(), &path, beside.as_deref(), end) {
            Ok(w) => {
                let cut = if w.cut_records > 0 {
                    format!(" ({} older events cut)", w.cut_records)
                } else {
                    String::new()
                };
                (
                    Outcome::Ok,
                    format!(
                        "jtrace: ring dumped to {}: {} bytes, {} events{cut}; recording goes on",
                        absolute(&path),
                        std::fs::metadata(&path).map_or(w.stats.bytes, |m| m.len()),
                        w.stats.events
                    ),
                )
            }
            Err(e) => (
                Outcome::Error,
                format!("jtrace: cannot write the dump to {e}"),
            ),
        }
    })
}

/// Whether a trace is recording.
pub fn tracing() -> bool {
    with_state(|st| st.trace.is_some())
}

/// What `jtrace status` prints: one `key: value` per line.
pub fn status() -> Reply {
    with_state(|st| {
        let a = agent();
        let mut s = format!(
            "jtrace {} loaded in pid {} (mode={})\n",
            trace::VERSION,
            std::process::id(),
            a.options.mode.as_str()
        );
        match &st.trace {
            Some(x) if x.ring.is_some() => {
                let (records, held) = x.ring.as_ref().map_or((0, 0), |r| r.figures());
                s.push_str(&format!(
                    "state: tracing (ring)\ntrace: {}\nring: {held} of {} bytes held\nseconds: {:.1}\nevents: {records}",
                    x.seq,
                    x.ring.as_ref().map_or(0, |r| r.bound()),
                    x.started.elapsed().as_secs_f64(),
                ));
            }
            Some(x) => {
                let bytes = std::fs::metadata(&x.out_path).map_or(0, |m| m.len());
                s.push_str(&format!(
                    "state: tracing\ntrace: {}\nfile: {}\nseconds: {:.1}\nevents: {}\nbytes: {bytes}",
                    x.seq,
                    absolute(&x.out_path),
                    x.started.elapsed().as_secs_f64(),
                    x.running.events.load(Ordering::Relaxed),
                ));
            }
            None => {
                s.push_str("state: idle");
                if st.delayed.is_some() {
                    s.push_str(" (a delayed start is scheduled)");
                }
                s.push_str(&format!("\ntraces: {}", st.seq));
                if let Some(l) = &st.last {
                    s.push_str(&format!("\nlast: {l}"));
                }
            }
        }
        (Outcome::Ok, s)
    })
}

fn absolute(path: &str) -> String {
    std::path::absolute(path)
        .map(|p| p.display().to_string())
        .unwrap_or_else(|_| path.to_string())
}

// ------------------------------------------------------------------ timers

enum Timer {
    /// Start a trace with these options (delay=).
    Start(Box<Options>),
    /// Stop trace number n if it is still the current one (duration=).
    Stop(u32),
}

/// Pending timers: (id, when, what).
static TIMERS: Mutex<Vec<(u64, Instant, Timer)>> = Mutex::new(Vec::new());
static TIMER_CV: Condvar = Condvar::new();
static TIMER_THREAD: std::sync::Once = std::sync::Once::new();
static NEXT_TIMER: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);

/// A pending timer; dropping it cancels the timer if it has not fired.
struct Scheduled(u64);

impl Drop for Scheduled {
    fn drop(&mut self) {
        if let Ok(mut t) = TIMERS.lock() {
            t.retain(|(id, _, _)| *id != self.0);
        }
    }
}

/// Runs `timer` after `ms` on the agent's timer thread (attached to the JVM as a
/// daemon and never traced), started on first use.
fn schedule(ms: u64, timer: Timer) -> Scheduled {
    let id = NEXT_TIMER.fetch_add(1, Ordering::Relaxed);
    if let Ok(mut t) = TIMERS.lock() {
        t.push((id, Instant::now() + Duration::from_millis(ms), timer));
    }
    TIMER_CV.notify_all();
    TIMER_THREAD.call_once(|| {
        if !threads::spawn_attached(c"jtrace-timer", timer_loop) {
            log_once("cannot start the timer thread; delay= and duration= do nothing");
        }
    });
    Scheduled(id)
}

/// Schedules the first trace after `delay=` (the JVM must be live: VM init or attach).
pub fn schedule_delayed_start(o: &Options) {
    // Under the state's lock: the start cannot run before its timer is filed here.
    with_state(|st| st.delayed = Some(schedule(o.delay_ms, Timer::Start(Box::new(o.clone())))));
}

/// Wakes the timer thread at VM death, so that it detaches from the JVM and ends.
pub fn wake_timers() {
    // Taking the lock orders the wake-up after the thread's last look at vm_dead().
    drop(TIMERS.lock());
    TIMER_CV.notify_all();
}

fn timer_loop(jni: Jni) {
    loop {
        let due = {
            let Ok(mut t) = TIMERS.lock() else { return };
            loop {
                if crate::state::vm_dead() {
                    return;
                }
                let now = Instant::now();
                if let Some(i) = t.iter().position(|(_, at, _)| *at <= now) {
                    break t.swap_remove(i).2;
                }
                let wait = t
                    .iter()
                    .map(|(_, at, _)| *at - now)
                    .min()
                    .unwrap_or(Duration::from_secs(3600));
                t = TIMER_CV
                    .wait_timeout(t, wait)
                    .map(|(g, _)| g)
                    .unwrap_or_else(|e| e.into_inner().0);
            }
        };
        if crate::state::vm_dead() {
            return;
        }
        let jvmti = agent().jvmti;
        match due {
            Timer::Start(o) => {
                let mut o = *o;
                o.delay_ms = 0;
                let line = jni.with_local_frame(64, || begin(&o, Some((jvmti, jni))).1);
                // The application's stderr hears of a trace that started on its own.
                eprintln!("{line}");
            }
            Timer::Stop(seq) => {
                stop_if(seq);
            }
        }
    }
}
