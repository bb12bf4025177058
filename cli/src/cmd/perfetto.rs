//! `jtrace perfetto`: the per-thread timeline as a JSON trace-event file for
//! ui.perfetto.dev (and chrome://tracing), refused when too large for the UI to open.

use super::common::Select;
use crate::render::fmt;
use crate::render::perfetto::Perfetto;
use crate::session;
use std::io::BufWriter;
use std::path::PathBuf;

/// The default --max-size. The UI parses JSON inside the browser tab's memory (about
/// 2 GB for a tab); JSON files of 900 MB crash it, a few hundred MB open slowly.
const UI_LIMIT: u64 = 500 << 20;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The trace (.xml, .xml.gz, .xml.zst, .jtr)
    pub trace: PathBuf,
    /// Output file (.json, or .pftrace: Perfetto tells the formats apart by content)
    #[arg(short, long, value_name = "FILE")]
    pub output: PathBuf,
    #[command(flatten)]
    pub select: Select,
    /// Refuse to write more than this many MiB (the UI cannot open much more)
    #[arg(long, value_name = "MIB", default_value_t = UI_LIMIT >> 20)]
    pub max_size: u64,
    /// Write the file even when it is over --max-size
    #[arg(long)]
    pub force: bool,
}

pub fn run(a: Args) -> Result<(), String> {
    let filter = a.select.filter()?;
    let limit = a.max_size << 20;
    let size = std::fs::metadata(&a.trace).map(|m| m.len()).unwrap_or(0);
    // The JSON is smaller than the XML it comes from (about 100 bytes per call against
    // 250), so only inputs larger than the limit (or compressed ones) can produce too
    // much: for those, a first pass measures the output exactly without writing it.
    let compressed = !a.trace.to_string_lossy().ends_with(".xml");
    if !a.force && (size > limit || compressed && size.saturating_mul(10) > limit) {
        let mut p = Perfetto::new(std::io::sink());
        session::run(&a.trace, filter.clone(), &mut p)?;
        let (bytes, _) = p.finish().map_err(|e| e.to_string())?;
        if bytes > limit {
            return Err(format!(
                "{}: the timeline would be {}, over the {} ui.perfetto.dev can open \
                 (--max-size); cut a window with --from/--to or --thread, or pass --force",
                a.trace.display(),
                fmt::bytes(bytes),
                fmt::bytes(limit)
            ));
        }
        eprintln!(
            "jtrace: {}: the timeline will be {}",
            a.trace.display(),
            fmt::bytes(bytes)
        );
    }
    let file = std::fs::File::create(&a.output)
        .map_err(|e| format!("{}: cannot create: {e}", a.output.display()))?;
    let mut p = Perfetto::new(BufWriter::with_capacity(1 << 20, file));
    let result = session::run(&a.trace, filter, &mut p).and_then(|_| {
        let events = p.events;
        p.finish()
            .map(|(bytes, _)| (bytes, events))
            .map_err(|e| format!("{}: cannot write: {e}", a.output.display()))
    });
    match result {
        Ok((bytes, events)) => {
            eprintln!(
                "jtrace: wrote {} ({}, {events} events){}",
                a.output.display(),
                fmt::bytes(bytes),
                if bytes > limit {
                    "; over --max-size, ui.perfetto.dev may fail to open it"
                } else {
                    ""
                }
            );
            Ok(())
        }
        Err(e) => {
            // No half-written timeline left behind.
            let _ = std::fs::remove_file(&a.output);
            Err(e)
        }
    }
}
