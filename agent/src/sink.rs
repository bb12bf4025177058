//! The sink thread: takes definitions and record chunks off the channel and writes the trace: the XML document (plain or compressed), the `.jtr` record stream, or both.
//!
//! The agent records JVM facts; only `trace::render` speaks TPTP. For `out=*.jtr` the
//! thread only frames what arrives (no formatting), so the application's threads wait
//! for the disk only when the channel is full.

use crate::buffer;
use crate::clock;
use std::fs::File;
use std::io::BufWriter;
use std::sync::mpsc::{self, Receiver};
use trace::compress::{Compressed, Format};
use trace::defs::Msg;
use trace::header::Header;
use trace::jtr::JtrWriter;
use trace::record;
use trace::render::{Renderer, Stats};

/// Write buffer of each output file.
const FILE_BUFFER: usize = 1 << 20;

/// The trace files, created at load so that a bad path is refused before the JVM runs.
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

/// Starts the sink thread; the receiver gets the summary once the document is closed
/// and every file complete.
pub fn spawn(
    files: Files,
    header: Header,
    rx: Receiver<Msg>,
) -> std::io::Result<Receiver<Summary>> {
    let (done_tx, done_rx) = mpsc::channel();
    std::thread::Builder::new()
        .name("jtrace-writer".into())
        .spawn(move || {
            let summary = run(files, &header, rx);
            let _ = done_tx.send(summary);
        })?;
    Ok(done_rx)
}

type FileOut = BufWriter<File>;

/// The open outputs of one trace.
struct Outputs {
    xml: Option<Renderer<Compressed<FileOut>>>,
    jtr: Option<JtrWriter<FileOut>>,
    summary: Summary,
}

impl Outputs {
    fn open(files: Files, header: &Header) -> Outputs {
        let conv = clock::calibrate();
        let mut summary = Summary::default();
        let buffered = |f: File| BufWriter::with_capacity(FILE_BUFFER, f);
        let mut open_jtr = |f: File| match JtrWriter::new(buffered(f), header, &conv) {
            Ok(w) => Some(w),
            Err(e) => {
                summary.jtr_error = Some(e.to_string());
                None
            }
        };
        let (xml, jtr) = if files.format == Format::Jtr {
            (None, open_jtr(files.out))
        } else {
            let jtr = files.jtr.and_then(&mut open_jtr);
            match Compressed::new(buffered(files.out), files.format) {
                Ok(s) => (Some(Renderer::new(s, header, conv)), jtr),
                Err(e) => {
                    summary.stats.io_error = Some(e.to_string());
                    (None, jtr)
                }
            }
        };
        summary.jtr_only = files.format == Format::Jtr;
        Outputs { xml, jtr, summary }
    }

    /// Writes one message to every output; true once it was the finish.
    fn handle(&mut self, msg: Msg) -> bool {
        if let Some(w) = self.jtr.as_mut() {
            if let Err(e) = w.write(&msg) {
                self.summary.jtr_error.get_or_insert(e.to_string());
                self.jtr = None;
            }
        }
        let is_finish = matches!(msg, Msg::Finish { .. });
        match self.xml.as_mut() {
            Some(r) => {
                r.handle(msg, buffer::recycle);
            }
            None => count_and_recycle(msg, &mut self.summary.stats),
        }
        is_finish
    }

    /// Completes every file (compressed streams get their trailers).
    fn close(mut self) -> Summary {
        let mut summary = std::mem::take(&mut self.summary);
        if let Some(r) = self.xml {
            let events = summary.stats.events;
            summary.stats = r.stats();
            summary.stats.events += events;
            if let Err(e) = r.into_sink().finish() {
                summary.stats.io_error.get_or_insert(e.to_string());
            }
        }
        if let Some(w) = self.jtr {
            if summary.jtr_only {
                summary.stats.bytes = w.bytes();
            }
            if let Err(e) = w.into_inner().into_inner().map_err(|e| e.into_error()) {
                summary.jtr_error.get_or_insert(e.to_string());
            }
        }
        summary
    }
}

fn run(files: Files, header: &Header, rx: Receiver<Msg>) -> Summary {
    let mut outputs = Outputs::open(files, header);
    let mut finished = false;
    while let Ok(msg) = rx.recv() {
        if outputs.handle(msg) {
            finished = true;
            break;
        }
    }
    if !finished {
        // Every sender is gone without a finish (the agent was unloaded): close anyway.
        outputs.handle(Msg::Finish {
            t: clock::ticks(),
            tid: None,
            dropped_bytes: buffer::lost_bytes(),
        });
    }
    outputs.close()
}

/// `.jtr` only: the records are not rendered, but the closing line still counts them.
fn count_and_recycle(msg: Msg, stats: &mut Stats) {
    match msg {
        Msg::Chunk { data, .. } => {
            stats.events += record::count(&data);
            buffer::recycle(data);
        }
        Msg::Chunks(chunks) => {
            for (_, data) in chunks {
                stats.events += record::count(&data);
                buffer::recycle(data);
            }
        }
        Msg::Defs(_) | Msg::Finish { .. } => {}
    }
}
