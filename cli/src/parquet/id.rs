//! A trace's id in the fleet: the name of its `trace_id=<id>` directory and the value of
//! every table's `trace_id` column, chosen once so the two always agree.

use std::path::Path;

/// Whether `id` can name a partition: letters, digits, `.`, `-`, `_`, not starting with
/// `.` or `_` (which Spark and Hive skip as hidden).
pub fn check(id: &str) -> Result<(), String> {
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
pub fn from_file(path: &Path) -> String {
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

/// The id: `given` (--trace-id), else the trace's own `uuid` when it can name a
/// partition, else `fallback` (from the file name).
pub fn choose(given: Option<&str>, uuid: Option<&str>, fallback: &str) -> String {
    match given {
        Some(id) => id.to_string(),
        None => match uuid {
            Some(u) if check(u).is_ok() => u.to_string(),
            _ => fallback.to_string(),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn given_then_uuid_then_file() {
        assert_eq!(choose(Some("x"), Some("u-1"), "f"), "x");
        assert_eq!(choose(None, Some("u-1"), "f"), "u-1");
        assert_eq!(choose(None, Some("a/b"), "f"), "f");
        assert_eq!(choose(None, None, "f"), "f");
        assert_eq!(from_file(Path::new("/t/run 1.jtr.gz")), "run-1");
        assert!(check(&from_file(Path::new("/t/.jtr"))).is_ok());
        assert!(check("_x").is_err() && check("a/b").is_err() && check("").is_err());
    }
}
