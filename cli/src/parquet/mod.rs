//! `jtrace parquet`: a trace as six Parquet tables that DuckDB, Spark and any other
//! Parquet reader query as they are (docs/PARQUET.md), one directory per table and one
//! hive-style partition per trace: `DIR/<table>/trace_id=<id>/part-0.parquet`.
//!
//! One pass through the model; files are written into a staging directory beside the
//! tables and moved into place only when every table is complete, so a failed export
//! leaves nothing a query would read.

mod export;
mod order;
mod schema;
mod table;

use crate::model::filter::Filter;
use crate::session;
use std::collections::HashSet;
use std::path::{Path, PathBuf};

pub use order::LIMIT;

pub use schema::markdown as schema_markdown;

/// What one export did.
pub struct Summary {
    pub trace_id: String,
    pub calls: u64,
    pub bytes: u64,
    pub spilled: u64,
}

/// Removes the staging directory unless the export completed.
struct Staging(PathBuf);

impl Drop for Staging {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Whether `id` can name a partition: letters, digits, `.`, `-`, `_`, not starting with
/// `.` or `_` (which Spark and Hive skip as hidden).
pub fn check_trace_id(id: &str) -> Result<(), String> {
    let ok = !id.is_empty()
        && !id.starts_with(['.', '_'])
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_'));
    if ok {
        Ok(())
    } else {
        Err(format!(
            "trace id {id:?}: use letters, digits, '.', '-' and '_' only, not starting with '.' or '_'"
        ))
    }
}

/// The id of a trace without one of its own: its file name without extensions, made safe.
fn id_from_file(path: &Path) -> String {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let stem = name.split('.').next().unwrap_or_default();
    let mut id: String = stem
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' {
                c
            } else {
                '-'
            }
        })
        .collect();
    if id.is_empty() {
        id = "trace".to_string();
    }
    id
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
    std::fs::create_dir(&staging.0)
        .map_err(|e| format!("{}: cannot create: {e}", staging.0.display()))?;
    let file = |t: &str| staging.0.join(format!("{t}.parquet"));
    let mut ex = export::Export::new(&file, &staging.0, limit)?;
    let s = session::run(trace, Filter::default(), &mut ex)?;
    let done = ex.finish(&s.model, &s.file, s.outcome.complete, &file)?;
    let id = match trace_id {
        Some(id) => id.to_string(),
        None => match &s.model.syms.trace.uuid {
            Some(u) if check_trace_id(u).is_ok() => u.clone(),
            _ => id_from_file(trace),
        },
    };
    check_trace_id(&id)?;
    if taken.contains(&id) {
        return Err(format!(
            "{}: trace id {id} was already exported by this command; use --trace-id",
            trace.display()
        ));
    }
    let mut bytes = 0;
    for (t, _, _) in schema::ALL {
        let dir = out.join(t).join(format!("trace_id={id}"));
        if dir.exists() {
            std::fs::remove_dir_all(&dir)
                .map_err(|e| format!("{}: cannot replace: {e}", dir.display()))?;
        }
        std::fs::create_dir_all(&dir)
            .map_err(|e| format!("{}: cannot create: {e}", dir.display()))?;
        let dest = dir.join("part-0.parquet");
        std::fs::rename(file(t), &dest)
            .map_err(|e| format!("{}: cannot write: {e}", dest.display()))?;
        bytes += std::fs::metadata(&dest).map(|m| m.len()).unwrap_or(0);
    }
    Ok(Summary {
        trace_id: id,
        calls: done.calls,
        bytes,
        spilled: done.spilled,
    })
}
