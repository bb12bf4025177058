//! `cargo xtask test`, step cli: the readers of windows (CliRequests, traced with `window=` and `keep=`): `jtrace windows` lists exactly the windows the program says were kept, per thread in order with their calls and outcomes, byte for byte the same from the `.jtr` as from the XML; `report --window ID` counts exactly that window's calls; an unknown id is an error naming `jtrace windows`.

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
