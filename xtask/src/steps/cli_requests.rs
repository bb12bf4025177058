//! `cargo xtask test`, step cli: the readers of windows (CliRequests, traced with `window=` and `keep=`): `jtrace windows` lists exactly the windows the program says were kept, per thread in order with their calls and outcomes, byte for byte the same from the `.jtr` as from the XML; `report --window ID` counts exactly that window's calls; DuckDB counts the same calls per `window_id` in the Parquet export; an unknown id is an error naming `jtrace windows`.

use crate::steps::cli_windows::both_named;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

/// The check of CliRequests' run directory.
pub fn windows_read(jtrace: &Path, run: &Path) -> Result<(), String> {
    // The program's truth: `EXPECT windows THREAD C:O,C:O`.
    let stdout = std::fs::read_to_string(run.join("stdout.txt")).map_err(|e| e.to_string())?;
    let truth: BTreeMap<String, String> = stdout
        .lines()
        .filter_map(|l| l.strip_prefix("EXPECT windows "))
        .filter_map(|l| l.split_once(' '))
        .map(|(t, l)| (t.to_string(), l.to_string()))
        .collect();
    if truth.len() != 2 {
        return Err(format!(
            "CliRequests printed {} window lists, not 2",
            truth.len()
        ));
    }
    let [xml, jtr] = both_named(run, "requests")?;
    let listed = |dir: &Path| jtrace_out(jtrace, dir, &["windows", "trace", "--json"]);
    let (a, b) = (listed(&xml)?, listed(&jtr)?);
    if a != b {
        return Err("jtrace windows --json differs between the .jtr and the XML".into());
    }
    let doc: Value = serde_json::from_slice(&a).map_err(|e| e.to_string())?;
    let windows = doc["windows"].as_array().cloned().unwrap_or_default();
    // Per thread, in start order, as the program lists them.
    let mut by_start = windows.clone();
    by_start.sort_by_key(|w| w["start_ns"].as_u64().unwrap_or(0));
    for (thread, want) in &truth {
        let got: Vec<String> = by_start
            .iter()
            .filter(|w| w["thread"] == *thread.as_str())
            .map(|w| format!("{}:{}", w["calls"], w["outcome"].as_str().unwrap_or("")))
            .collect();
        let got = if got.is_empty() {
            "-".to_string()
        } else {
            got.join(",")
        };
        if got != *want {
            return Err(format!(
                "jtrace windows, {thread}: program says {want}, listed {got}"
            ));
        }
    }
    // Slowest first.
    let durations: Vec<u64> = windows
        .iter()
        .filter_map(|w| w["duration_ns"].as_u64())
        .collect();
    if durations.windows(2).any(|p| p[0] < p[1]) {
        return Err("jtrace windows: not slowest first".into());
    }
    // Each window alone: report --window counts exactly its calls, in both formats.
    for w in &windows {
        let id = w["id"].as_str().unwrap_or("");
        for dir in [&xml, &jtr] {
            let r = jtrace_out(jtrace, dir, &["report", "trace", "--json", "--window", id])?;
            let r: Value = serde_json::from_slice(&r).map_err(|e| e.to_string())?;
            if r["trace"]["calls"] != w["calls"] {
                return Err(format!(
                    "report --window {id}: {} calls, the window has {}",
                    r["trace"]["calls"], w["calls"]
                ));
            }
        }
    }
    // Parquet's calls carry the window: DuckDB counts each window's calls, and no call
    // lies outside a window.
    let fleet = run.join("requests-parquet");
    let _ = std::fs::remove_dir_all(&fleet);
    jtrace_out(
        jtrace,
        &jtr,
        &["parquet", "trace", "-o", &fleet.display().to_string()],
    )?;
    let sql = format!(
        "SELECT coalesce(window_id, -1), count(*) FROM read_parquet('{}/*/calls.parquet') \
         GROUP BY 1 ORDER BY 1",
        fleet.display()
    );
    let o = Command::new("python3")
        .args([
            "-c",
            "import duckdb, sys, json; print(json.dumps(duckdb.connect().execute(sys.argv[1]).fetchall()))",
            &sql,
        ])
        .output()
        .map_err(|e| format!("python3: {e}"))?;
    if !o.status.success() {
        return Err(format!("duckdb: {}", String::from_utf8_lossy(&o.stderr)));
    }
    let got: Vec<(i64, u64)> =
        serde_json::from_slice(&o.stdout).map_err(|e| format!("duckdb said: {e}"))?;
    let mut want: Vec<(i64, u64)> = windows
        .iter()
        .map(|w| {
            let id = w["id"].as_str().and_then(|i| i.parse().ok()).unwrap_or(-2);
            (id, w["calls"].as_u64().unwrap_or(0))
        })
        .collect();
    want.sort_unstable();
    if got != want {
        return Err(format!(
            "DuckDB's calls per window_id (-1: none) {got:?}, jtrace windows says {want:?}"
        ));
    }
    let bad = Command::new(jtrace)
        .args(["report", "trace", "--window", "999999"])
        .current_dir(&xml)
        .output()
        .map_err(|e| e.to_string())?;
    let err = String::from_utf8_lossy(&bad.stderr);
    if bad.status.success() || !err.contains("jtrace windows lists them") {
        return Err(format!("report --window 999999: no clear error: {err}"));
    }
    Ok(())
}

fn jtrace_out(jtrace: &Path, dir: &Path, args: &[&str]) -> Result<Vec<u8>, String> {
    let o = Command::new(jtrace)
        .args(args)
        .current_dir(dir)
        .output()
        .map_err(|e| format!("{}: {e}", jtrace.display()))?;
    if !o.status.success() {
        return Err(format!(
            "jtrace {}: {}",
            args.join(" "),
            String::from_utf8_lossy(&o.stderr)
        ));
    }
    Ok(o.stdout)
}
