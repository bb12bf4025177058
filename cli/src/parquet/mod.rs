//! `jtrace parquet`: a trace as six Parquet tables that DuckDB, Spark and any other
//! Parquet reader query as they are (docs/PARQUET.md), one hive-style directory per
//! trace: `DIR/trace_id=<id>/<table>.parquet`, every table also holding `trace_id`.
//!
//! One pass through the model; files are written into a staging directory beside the
//! traces and the trace's directory is moved into place only when every table is
//! complete, so a failed export leaves nothing a query would read.

mod calls;
mod export;
mod id;
mod order;
mod pages;
mod schema;
mod table;

use crate::model::filter::Filter;
use crate::pass;
use std::collections::HashSet;
use std::path::{Path, PathBuf};

pub use id::check as check_trace_id;
pub use order::LIMIT;

pub use schema::markdown as schema_markdown;

/// What one export did.
pub struct Summary {
    pub trace_id: String,
    pub calls: u64,
    pub bytes: u64,
    /// Calls written in row groups while the trace was read (the others at its end).
    pub ahead: u64,
}

/// Removes the staging directory unless the export completed.
struct Staging(PathBuf);

impl Drop for Staging {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Exports `trace` into `out`; `trace_id` overrides the trace's own id; an id in `taken`
/// (exported by the same command) is refused before anything is replaced.
pub fn export(
    trace: &Path,
    out: &Path,
    trace_id: Option<&str>,
    taken: &HashSet<String>,
    limit: usize,
) -> Result<Summary, String> {
    std::fs::create_dir_all(out).map_err(|e| format!("{}: cannot create: {e}", out.display()))?;
    let staging = Staging(out.join(format!(".jtrace-staging-{}", std::process::id())));
    let _ = std::fs::remove_dir_all(&staging.0);
    let tables = staging.0.join("tables");
    std::fs::create_dir_all(&tables)
        .map_err(|e| format!("{}: cannot create: {e}", tables.display()))?;
    let file = |t: &str| tables.join(format!("{t}.parquet"));
    let fallback = id::from_file(trace);
    let mut ex = export::Export::new(&file, limit, trace_id, &fallback)?;
    let s = pass::run(
        &crate::read::Trace::open(trace)?,
        Filter::default(),
        &mut ex,
    )?;
    let done = ex.finish(&s.model, &s.file, s.outcome.complete, &file)?;
    let id = done.trace_id;
    id::check(&id)?;
    if taken.contains(&id) {
        return Err(format!(
            "{}: trace id {id} was already exported by this command; use --trace-id",
            trace.display()
        ));
    }
    let mut bytes = 0;
    for (t, _, _) in schema::ALL {
        bytes += std::fs::metadata(file(t)).map(|m| m.len()).unwrap_or(0);
    }
    // A re-export of the same id replaces that trace's directory only: the old one is
    // moved into staging (removed with it), then the new one into its place.
    let dest = out.join(format!("trace_id={id}"));
    if dest.exists() {
        let old = staging.0.join("old");
        std::fs::rename(&dest, &old)
            .map_err(|e| format!("{}: cannot replace: {e}", dest.display()))?;
    }
    std::fs::rename(&tables, &dest)
        .map_err(|e| format!("{}: cannot write: {e}", dest.display()))?;
    Ok(Summary {
        trace_id: id,
        calls: done.calls,
        bytes,
        ahead: done.ahead,
    })
}
