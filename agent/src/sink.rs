//! The sink thread: takes definitions and record chunks off the channel and writes the trace: the XML document (plain or compressed), the `.jtr` record stream, or both.
//!
//! The agent records JVM facts; only `trace::render` speaks TPTP. The sink thread only
//! frames what arrives (no formatting): for `out=*.jtr` that is all, for XML it hands
//! each message to the spool, behind which a render thread writes the document. The
//! application's threads wait only when the channel is full, which with the spool
//! taking everything means only when the disk is.

use crate::buffer;
use crate::clock::{self, Converter};
use crate::ring::{Ending, Ring};
use crate::series::{Plan, Series};
use crate::spool::Spool;
use std::fs::File;
use std::io::BufWriter;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{self, Receiver};
use std::sync::Arc;
use std::time::Duration;
use trace::compress::{Compressed, Format};
use trace::defs::Msg;
use trace::header::Header;
use trace::jtr::JtrWriter;
use trace::record;
use trace::render::{Renderer, Stats};

/// Write buffer of each output file.
const FILE_BUFFER: usize = 1 << 20;

/// The trace files, created when a trace begins (at load for the first, so that a bad
/// path is refused before the JVM runs).
pub struct Files {
    format: Format,
    out: File,
    jtr: Option<File>,
}

/// What the sink thread reports when the trace is closed.
#[derive(Debug, Default)]
pub struct Summary {
    /// Renderer figures (`events` is counted for `.jtr` output too).
    pub stats: Stats,
    /// The main output is `.jtr` (no elements counted).
    pub jtr_only: bool,
    /// Why writing the `.jtr` stream (main or beside) failed, if it did.
    pub jtr_error: Option<String>,
    /// `ring=` without `dump-on=exit`: nothing was written at the close; the records
    /// the ring received and those it evicted.
    pub ring_unwritten: Option<(u64, u64)>,
    /// The file the closing line names when it is not `out=` as the trace opened: a
    /// ring's dump at the close (`dump-on=exit`), a series' last file.
    pub written_to: Option<String>,
    /// A series' words for the closing line.
    pub series: Option<String>,
}

/// Creates the output file(s).
pub fn create(out_path: &str, jtr_path: Option<&str>) -> Result<Files, String> {
    let create = |p: &str| File::create(p).map_err(|e| format!("{p}: {e}"));
    Ok(Files {
        format: Format::from_path(out_path),
        out: create(out_path)?,
        jtr: jtr_path.map(create).transpose()?,
    })
}

type FileOut = BufWriter<File>;

fn buffered(f: File) -> FileOut {
    BufWriter::with_capacity(FILE_BUFFER, f)
}

/// The running sink: the summary arrives once every file is complete.
pub struct Running {
    pub done: Receiver<Summary>,
    /// Records received so far (`jtrace status`).
    pub events: Arc<AtomicU64>,
    /// The spool of an XML trace (progress while the renderer catches up at exit).
    pub spool: Option<Arc<Spool>>,
}

/// Starts the sink thread (and, for XML, the render thread behind the spool; `spill`
/// is where the spool may keep records the renderer has not reached).
pub fn spawn(
    files: Files,
    header: Header,
    rx: Receiver<Msg>,
    spill: PathBuf,
    series: Option<Plan>,
) -> std::io::Result<Running> {
    let (done_tx, done_rx) = mpsc::channel();
    let spool = (files.format != Format::Jtr).then(|| Spool::new(spill));
    let sp = spool.clone();
    let events = Arc::new(AtomicU64::new(0));
    let ev = events.clone();
    std::thread::Builder::new()
        .name("jtrace-sink".into())
        .spawn(move || {
            let summary = run(files, header, rx, sp, &ev, series);
            let _ = done_tx.send(summary);
        })?;
    Ok(Running {
        done: done_rx,
        events,
        spool,
    })
}

/// Starts the sink thread of a ring (`ring=`): every message goes into `ring`; at the
/// close, the ring is written as its next dump (`at_close`: `dump-on=exit`) or dropped.
pub fn spawn_ring(ring: Arc<Ring>, rx: Receiver<Msg>, at_close: bool) -> std::io::Result<Running> {
    let (done_tx, done_rx) = mpsc::channel();
    let events = Arc::new(AtomicU64::new(0));
    let ev = events.clone();
    std::thread::Builder::new()
        .name("jtrace-sink".into())
        .spawn(move || {
            let summary = run_ring(&ring, rx, at_close, &ev);
            let _ = done_tx.send(summary);
        })?;
    Ok(Running {
        done: done_rx,
        events,
        spool: None,
    })
}

fn run_ring(ring: &Ring, rx: Receiver<Msg>, at_close: bool, events: &AtomicU64) -> Summary {
    let end = loop {
        match rx.recv() {
            Ok(Msg::Finish {
                t,
                tid,
                dropped_bytes,
                shutdown,
                notes,
                ..
            }) => {
                break Ending {
                    t,
                    tid,
                    dropped_bytes,
                    shutdown,
                    notes,
                }
            }
            Ok(msg) => {
                events.fetch_add(ring.push(msg), Ordering::Relaxed);
            }
            Err(_) => {
                break Ending {
                    t: clock::ticks(),
                    tid: None,
                    dropped_bytes: buffer::lost_bytes(),
                    shutdown: true,
                    notes: crate::window::take_counts(),
                }
            }
        }
    };
    let mut summary = Summary::default();
    if !at_close {
        let s = ring.snapshot();
        summary.ring_unwritten = Some((events.load(Ordering::Relaxed), s.cut()));
        return summary;
    }
    let (path, beside) = ring.next_paths();
    summary.jtr_only = Format::from_path(&path) == Format::Jtr;
    match ring.write(&ring.snapshot(), &path, beside.as_deref(), end) {
        Ok(w) => summary.stats = w.stats,
        Err(e) => summary.stats.io_error = Some(e),
    }
    summary.written_to = Some(path);
    summary
}

/// The sink thread: frames every message into the `.jtr` (if any) and hands it to
/// the spool (XML) or releases it (`.jtr` only).
fn run(
    files: Files,
    header: Header,
    rx: Receiver<Msg>,
    spool: Option<Arc<Spool>>,
    events: &AtomicU64,
    plan: Option<Plan>,
) -> Summary {
    let conv = clock::calibrate();
    // A series' files each carry their number in the header.
    let series = plan.map(|p| {
        let number = p.number;
        (Series::new(p, &header, conv), number)
    });
    let header = match &series {
        Some((_, n)) => Series::header_of(&header, *n),
        None => header,
    };
    let jtr_only = files.format == Format::Jtr;
    let mut summary = Summary {
        jtr_only,
        ..Summary::default()
    };
    let (jtr_file, xml_file) = if jtr_only {
        (Some(files.out), None)
    } else {
        (files.jtr, Some(files.out))
    };
    let mut jtr = None;
    if let Some(f) = jtr_file {
        match JtrWriter::new(buffered(f), &header, &conv) {
            Ok(w) => jtr = Some(w),
            Err(e) => summary.jtr_error = Some(e.to_string()),
        }
    }
    let mut render = None;
    if let (Some(sp), Some(f)) = (spool.clone(), xml_file) {
        // One zstd worker: compression runs beside the formatting instead of after it
        // (gzip and plain output ignore it).
        let out = Compressed::with_workers(buffered(f), files.format, 1);
        let h = header.clone();
        match std::thread::Builder::new()
            .name("jtrace-render".into())
            .spawn(move || render_xml(out, &h, conv, &sp))
        {
            Ok(t) => render = Some(t),
            Err(e) => summary.stats.io_error = Some(format!("cannot start the render thread: {e}")),
        }
    }
    let queue = spool.as_ref().filter(|_| render.is_some());
    let mut series = series.map(|(s, _)| s);
    loop {
        let mut msg = match rx.recv() {
            Ok(m) => m,
            // Every sender is gone without a finish (the agent was unloaded): close anyway.
            Err(_) => Msg::Finish {
                t: clock::ticks(),
                tid: None,
                dropped_bytes: buffer::lost_bytes(),
                shutdown: true,
                count_base: Vec::new(),
                notes: crate::window::take_counts(),
            },
        };
        if let Some(s) = series.as_mut() {
            s.note(&msg);
            if let Msg::Finish { notes, .. } = &mut msg {
                notes.extend(s.notes());
            }
        }
        // The `.jtr` writer walks each chunk's records once for its index, and
        // counts them on the way.
        let mut counted = None;
        if let Some(w) = jtr.as_mut() {
            match w.write_counted(&msg) {
                Ok(n) => counted = Some(n),
                Err(e) => {
                    summary.jtr_error.get_or_insert(e.to_string());
                    jtr = None;
                }
            }
        }
        let received = counted.unwrap_or_else(|| match &msg {
            Msg::Chunk { data, .. } => record::count(data),
            Msg::Chunks(c) => c.iter().map(|(_, d)| record::count(d)).sum(),
            _ => 0,
        });
        events.fetch_add(received, Ordering::Relaxed);
        if matches!(msg, Msg::Mark(_)) {
            continue;
        }
        let is_finish = matches!(msg, Msg::Finish { .. });
        match queue {
            Some(sp) => sp.push(msg),
            None => {
                // Counted once, above: walking every record twice cost the `.jtr`
                // sink a fifth of a core on MooBench.
                summary.stats.events += received;
                recycle(msg);
            }
        }
        if is_finish {
            break;
        }
        if let Some(s) = series.as_mut() {
            if let Some(w) = jtr.take_if(|w| s.due(w.bytes())) {
                match s.next(w, clock::ticks()) {
                    Ok(w) => jtr = Some(w),
                    Err(e) => {
                        summary
                            .jtr_error
                            .get_or_insert(format!("{}: {e}", s.path()));
                    }
                }
            }
        }
    }
    if let Some(s) = &series {
        summary.written_to = Some(s.path().to_string());
        summary.series = Some(s.words());
    }
    if let Some(sp) = &spool {
        sp.close();
    }
    if let Some(w) = jtr {
        if jtr_only {
            summary.stats.bytes = w.bytes();
        }
        if let Err(e) = w.into_inner().into_inner().map_err(|e| e.into_error()) {
            summary.jtr_error.get_or_insert(e.to_string());
        }
    }
    if let Some(t) = render {
        match t.join() {
            Ok(stats) => summary.stats = stats,
            Err(_) => summary.stats.io_error = Some("the XML renderer failed".to_string()),
        }
    }
    if let Some(sp) = &spool {
        sp.remove_spill();
    }
    summary
}

/// How many nice levels the render thread runs below the application's threads.
///
/// On a machine with few cores the renderer (~115 bytes of XML per event, several
/// times the program's own work per traced call) otherwise takes CPU from the very
/// threads it traces and from the sink they hand their chunks to. Below them it
/// renders with the CPU they leave; what it has not reached waits in the spool
/// (spilled to disk past its memory bound) and is rendered before the trace closes.
const RENDER_NICE: i32 = 10;

/// The render thread: XML from the spool until the finish, then the file completed.
fn render_xml(
    out: std::io::Result<Compressed<FileOut>>,
    header: &Header,
    conv: Converter,
    spool: &Spool,
) -> Stats {
    crate::sys::os::lower_thread_priority(RENDER_NICE);
    let mut r = match out {
        Ok(o) => Renderer::new(o, header, conv),
        Err(e) => {
            // Keep draining so the producer never waits on a renderer that is gone.
            while let Some(m) = spool.pop() {
                recycle(m);
            }
            return Stats {
                io_error: Some(e.to_string()),
                ..Stats::default()
            };
        }
    };
    while let Some(msg) = spool.pop() {
        if !r.handle(msg, buffer::recycle) {
            break;
        }
    }
    let mut stats = r.stats();
    if let Err(e) = r.into_sink().finish() {
        stats.io_error.get_or_insert(e.to_string());
    }
    stats
}

/// Gives the chunks of a message that is not rendered back to the buffers' pool.
fn recycle(msg: Msg) {
    match msg {
        Msg::Chunk { data, .. } => buffer::recycle(data),
        Msg::Chunks(chunks) => {
            for (_, data) in chunks {
                buffer::recycle(data);
            }
        }
        Msg::Defs(_) | Msg::Finish { .. } | Msg::Mark(_) => {}
    }
}

/// Waits until the sink has closed every file. The XML renderer may still be behind
/// the recording (records wait in the spool): the JVM waits as long as it makes
/// progress, saying once on stderr how much is left, and gives up only after a minute
/// without progress.
pub fn wait_for_sink(r: &Running, out_path: &str) -> Option<Summary> {
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

/// The one line on stderr when the trace is closed: where it went, how big it is,
/// anything dropped or repaired, `words` (windows, a series), and which build wrote it (` (jtrace VERSION)`, last;
/// async-profiler and JFR say where their output went too). The size is the file's, read back, so it is what the user will find.
pub fn closing_line(
    out_path: &str,
    sum: &Summary,
    lost_bytes: u64,
    skipped_classes: u64,
    words: Option<&str>,
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
    if let Some(w) = words {
        line.push_str(", ");
        line.push_str(w);
    }
    // Which build wrote it, last, so that the figures read as before.
    line.push_str(&format!(" (jtrace {})", trace::VERSION));
    line
}
