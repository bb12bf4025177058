//! tracecheck: semantic checks over a jtrace TPTP trace.
//!
//! [`check`] streams a trace file once (constant memory in the trace length, apart from
//! the live ids) and either returns a [`Summary`] of what it contains or the first
//! [`MAX_VIOLATIONS`] rule violations, each with the line it was found on. The rules are
//! listed on [`Rule`]; `docs/TRACE_FORMAT.md` describes them for readers of traces.

#![forbid(unsafe_code)]

mod attrs;
mod census;
mod checker;
mod idmap;
mod integrity;
mod lines;
pub mod linetable;
mod model;
mod read;
mod rules;
pub mod summary;
mod violation;
pub mod vocab;

use std::fs::File;
use std::io::{BufRead, BufReader, Read, Seek, SeekFrom};
use std::path::Path;

pub use attrs::Call;
pub use census::{census, Census};
pub use checker::Checker;
pub use summary::{AllocStats, MethodStats, Summary, ThreadInfo, WaitStats, WindowInfo};
pub use violation::{Rule, Violation, MAX_VIOLATIONS};

/// Checks the trace at `path`.
pub fn check(path: impl AsRef<Path>) -> Result<Summary, Vec<Violation>> {
    let path = path.as_ref();
    match File::open(path) {
        Ok(f) => check_reader(BufReader::with_capacity(1 << 20, f)),
        Err(e) => Err(vec![Violation {
            line: 0,
            rule: Rule::Io,
            message: format!("cannot open {}: {e}", path.display()),
        }]),
    }
}

/// Checks a trace read from `reader`.
pub fn check_reader<R: BufRead>(reader: R) -> Result<Summary, Vec<Violation>> {
    read::run(reader)
}

/// What [`check_prefix`] found.
#[derive(Debug, Clone)]
pub enum Checked {
    /// A complete, valid trace.
    Complete(Summary),
    /// A readable prefix: every whole line up to `lines` obeys every rule, then the
    /// file stops before `</TRACE>` (the writer was killed or ran out of disk). The
    /// summary covers the prefix.
    CutShort { lines: u64, summary: Summary },
}

/// Checks a trace that may have been cut short. A partial last line (an element the
/// writer had not finished) is left out: jtrace writes one element per line, so the
/// prefix up to the last newline is what a reader can use. A file that is complete
/// gives [`Checked::Complete`]; violations before the cut are still violations.
pub fn check_prefix(path: impl AsRef<Path>) -> Result<Checked, Vec<Violation>> {
    let path = path.as_ref();
    let io = |e: std::io::Error| {
        vec![Violation {
            line: 0,
            rule: Rule::Io,
            message: format!("cannot read {}: {e}", path.display()),
        }]
    };
    let mut f = File::open(path).map_err(io)?;
    let whole = last_newline(&mut f).map_err(io)?;
    f.seek(SeekFrom::Start(0)).map_err(io)?;
    let reader = BufReader::with_capacity(1 << 20, f.take(whole));
    let (summary, cut) = read::run_with(reader, true)?;
    Ok(match cut {
        None => Checked::Complete(summary),
        Some(lines) => Checked::CutShort { lines, summary },
    })
}

/// The length of the file up to and including its last newline (0 if none).
fn last_newline(f: &mut File) -> std::io::Result<u64> {
    let len = f.metadata()?.len();
    let mut end = len;
    let mut buf = vec![0u8; 64 * 1024];
    while end > 0 {
        let start = end.saturating_sub(buf.len() as u64);
        let chunk = &mut buf[..(end - start) as usize];
        f.seek(SeekFrom::Start(start))?;
        f.read_exact(chunk)?;
        if let Some(i) = chunk.iter().rposition(|&b| b == b'\n') {
            return Ok(start + i as u64 + 1);
        }
        end = start;
    }
    Ok(0)
}

/// Checks a trace held in memory (handy in tests).
pub fn check_str(trace: &str) -> Result<Summary, Vec<Violation>> {
    check_reader(trace.as_bytes())
}
