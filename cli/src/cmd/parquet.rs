//! `jtrace parquet`: traces into a directory of Parquet tables (docs/PARQUET.md).

use super::common::emit;
use crate::parquet;
use crate::render::fmt;
use std::collections::HashSet;
use std::path::PathBuf;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The traces (.jtr, .xml, .xml.gz, .xml.zst)
    #[arg(required_unless_present = "schema")]
    pub traces: Vec<PathBuf>,
    /// The fleet directory: DIR/trace_id=<id>/<table>.parquet per trace
    #[arg(short, long, value_name = "DIR", required_unless_present = "schema")]
    pub output: Option<PathBuf>,
    /// Print the tables' columns (Markdown) and exit
    #[arg(long, exclusive = true)]
    pub schema: bool,
    /// The trace's id: its directory and trace_id column (one trace only; default: the trace's own id)
    #[arg(long, value_name = "ID")]
    pub trace_id: Option<String>,
    /// Calls held in memory (over all threads) before their row groups are written
    #[arg(long, value_name = "N", default_value_t = parquet::LIMIT, hide = true)]
    pub spill_after: usize,
}

pub fn run(a: Args) -> Result<(), String> {
    let Some(output) = a.output.as_deref().filter(|_| !a.schema) else {
        return emit(None, parquet::schema_markdown().as_bytes());
    };
    if let Some(id) = &a.trace_id {
        if a.traces.len() > 1 {
            return Err("--trace-id names one trace; give one TRACE or none of --trace-id".into());
        }
        parquet::check_trace_id(id)?;
    }
    if output.exists() && !output.is_dir() {
        return Err(format!(
            "{}: not a directory; -o names the directory the traces' tables go into",
            output.display()
        ));
    }
    // The outermost directory this run makes (`-o a/b/c` with none of them there: `a`).
    let made = output
        .ancestors()
        .take_while(|d| !d.as_os_str().is_empty() && !d.exists())
        .last()
        .map(std::path::Path::to_path_buf);
    let r = export_all(&a, output);
    if let (Err(_), Some(top)) = (&r, made) {
        // Each only if empty, from the innermost out: the traces exported before the
        // failure stay.
        for d in output.ancestors() {
            if std::fs::remove_dir(d).is_err() || d == top {
                break;
            }
        }
    }
    r
}

/// Exports each trace of `a` into `output`, one line on stderr each.
fn export_all(a: &Args, output: &std::path::Path) -> Result<(), String> {
    let mut seen = HashSet::new();
    for t in &a.traces {
        let size = std::fs::metadata(t).map(|m| m.len()).unwrap_or(0);
        let s = parquet::export(t, output, a.trace_id.as_deref(), &seen, a.spill_after)?;
        seen.insert(s.trace_id.clone());
        let ratio = if size > 0 {
            format!(", {:.2}x the trace", s.bytes as f64 / size as f64)
        } else {
            String::new()
        };
        eprintln!(
            "jtrace: wrote {}/trace_id={}: {} calls, {}{ratio}{}",
            output.display(),
            s.trace_id,
            s.calls,
            fmt::bytes(s.bytes),
            if s.ahead > 0 {
                format!(" ({} calls written while reading)", s.ahead)
            } else {
                String::new()
            }
        );
    }
    Ok(())
}
