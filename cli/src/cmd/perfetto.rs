//! `jtrace perfetto`: the per-thread timeline as a JSON trace-event file for
//! ui.perfetto.dev (and chrome://tracing). A timeline too large for the UI to open gets
//! a window chosen to fit (said on stderr), unless the user chose one or `--force`.

use crate::cmd::common::Input;

use super::common::Select;
use crate::model::filter::Filter;
use crate::pass::{self, Pass};
use crate::read::Trace;
use crate::render::fmt;
use crate::render::perfetto::Perfetto;
use crate::render::pftrace::Pftrace;
use crate::render::timeline_size::{Format, TimelineSize};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

/// The default --max-size. The UI parses JSON inside the browser tab's memory (about
/// 2 GB for a tab); JSON files of 900 MB crash it, a few hundred MB open slowly.
const UI_LIMIT: u64 = 500 << 20;

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    pub input: Input,
    /// Output file: .json (trace-event JSON), or .pftrace (Perfetto's protobuf: TrackEvent
    /// with interned names, several times smaller)
    #[arg(short, long, value_name = "FILE", value_parser = timeline_file)]
    pub output: PathBuf,
    #[command(flatten)]
    pub select: Select,
    /// Write at most this many MiB (fractions allowed): a larger timeline gets a window
    /// from the trace's start that fits (the UI cannot open much more)
    #[arg(long, value_name = "MIB", default_value_t = (UI_LIMIT >> 20) as f64)]
    pub max_size: f64,
    /// Write the file even when it is over --max-size
    #[arg(long)]
    pub force: bool,
}

/// A timeline's file: JSON, or one of Perfetto's protobuf names ([`protobuf`]).
fn timeline_file(s: &str) -> Result<PathBuf, String> {
    super::common::out_format(s, &[".json", ".pftrace", ".perfetto-trace", ".pb"])
}

/// Whether `path` asks for Perfetto's protobuf format rather than JSON.
fn protobuf(path: &Path) -> bool {
    let name = path.to_string_lossy().to_lowercase();
    name.ends_with(".pftrace") || name.ends_with(".perfetto-trace") || name.ends_with(".pb")
}

/// One pass writing the timeline (JSON or protobuf) to `out`: bytes and events
/// written, and the pass (the reader's warnings on stderr).
fn pass<W: Write>(
    trace: &Trace,
    a: &Args,
    filter: &Filter,
    out: W,
) -> Result<(u64, u64, Pass), String> {
    let cannot = |e: std::io::Error| format!("{}: cannot write: {e}", a.output.display());
    if protobuf(&a.output) {
        let mut p = Pftrace::new(out);
        let s = pass::run(trace, filter.clone(), &mut p)?;
        let events = p.events;
        Ok((p.finish().map_err(cannot)?.0, events, s))
    } else {
        let mut p = Perfetto::new(out);
        let s = pass::run(trace, filter.clone(), &mut p)?;
        let events = p.events;
        Ok((p.finish().map_err(cannot)?.0, events, s))
    }
}

/// The whole timeline's exact size for `filter`, and the longest window from the
/// trace's start (its end, ns) whose timeline fits `limit` (none: not even the first
/// instants fit), from one pass that counts bytes without formatting
/// (`render::timeline_size`).
fn measure(
    trace: &Trace,
    a: &Args,
    filter: &Filter,
    limit: u64,
) -> Result<(u64, Option<u64>), String> {
    let format = if protobuf(&a.output) {
        Format::Proto
    } else {
        Format::Json
    };
    let mut size = TimelineSize::new(format);
    pass::run_quiet(trace, filter.clone(), &mut size)?;
    Ok((size.total(), size.window(limit)))
}

fn too_large(a: &Args, limit: u64) -> String {
    format!(
        "{}: no window from the start fits {} (--max-size); cut one with --from/--to or \
         --thread, or pass --force",
        a.input.trace.display(),
        fmt::bytes(limit)
    )
}

pub fn run(a: Args) -> Result<(), String> {
    let mut filter = a.select.every_method("perfetto shows every method")?;
    let limit = (a.max_size.max(0.0) * (1u64 << 20) as f64) as u64;
    let trace = a.input.open()?;
    let size = trace.size();
    // The JSON is smaller than the XML it comes from (about 100 bytes per call against
    // 250), so only inputs larger than the limit (or compressed ones) can produce too
    // much: for those, a first pass measures the output exactly without writing it.
    let compressed = !a.input.trace.to_string_lossy().ends_with(".xml");
    if !a.force && (size > limit || compressed && size.saturating_mul(10) > limit) {
        let (bytes, window) = measure(&trace, &a, &filter, limit)?;
        if bytes > limit {
            // A window the user chose is theirs: say it is too large.
            if a.select.from.is_some() || a.select.to.is_some() {
                return Err(format!(
                    "{}: the timeline would be {}, over the {} ui.perfetto.dev can open \
                     (--max-size); cut a narrower window with --from/--to or --thread, or \
                     pass --force",
                    a.input.trace.display(),
                    fmt::bytes(bytes),
                    fmt::bytes(limit)
                ));
            }
            let len = window.ok_or_else(|| too_large(&a, limit))?;
            eprintln!(
                "jtrace: {}: the whole timeline would be {}, over the {} ui.perfetto.dev can \
                 open (--max-size): writing its first {} (--from 0 --to {}ns); choose another \
                 window with --from/--to, or pass --force for all of it",
                a.input.trace.display(),
                fmt::bytes(bytes),
                fmt::bytes(limit),
                fmt::ns(len),
                len
            );
            filter.from = Some(0);
            filter.to = Some(len);
        } else {
            eprintln!(
                "jtrace: {}: the timeline will be {}",
                a.input.trace.display(),
                fmt::bytes(bytes)
            );
        }
    }
    let file = std::fs::File::create(&a.output)
        .map_err(|e| format!("{}: cannot create: {e}", a.output.display()))?;
    let result = pass(&trace, &a, &filter, BufWriter::with_capacity(1 << 20, file));
    match result {
        Ok((bytes, events, _)) => {
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
