//! `cargo xtask test`, step cli: time windows of a fresh agent `.jtr` read through its index (CliWindows: threads recursing, throwing and catching, waiting and contending, in many chunks) answer byte for byte as the full pass over the run's XML, and read a part of the file (counted with `JTRACE_READ_STATS`, never timed).

use crate::util;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The answers compared in every window (the trace's path is appended).
const ANSWERS: &[&[&str]] = &[
    &["report", "--json"],
    &["tree"],
    &["perfetto", "-o", "out.json"],
    &["replay", "--json"],
    &["collapsed"],
    &["slow", "--over", "100us", "--json"],
    &["report", "--json", "--thread", "window-worker-1"],
];

/// The files an answer's `-o` writes (each view names its format by the extension; also
/// the cli step's).
pub(crate) const OUT_FILES: [&str; 4] = ["out", "out.svg", "out.json", "out.pftrace"];

/// Windows as fractions of the trace's duration (None: no bound).
const WINDOWS: &[(Option<f64>, Option<f64>)] = &[
    (Some(0.0), Some(0.1)),
    (Some(0.2), Some(0.21)),
    (Some(0.3), Some(0.6)),
    (Some(0.5), Some(0.5005)),
    (Some(0.45), Some(1.0)),
    (Some(0.7), Some(1.2)),
    (Some(0.4), None),
    (None, Some(0.35)),
];

/// The run's `trace.xml` and `trace.jtr`, each linked as `trace` in a directory of
/// its own (`PREFIX-xml`, `PREFIX-jtr`), so that both answers name the same file.
pub(crate) fn both_named(run: &Path, prefix: &str) -> Result<[PathBuf; 2], String> {
    let dir = |ext: &str| -> Result<PathBuf, String> {
        let dir = run.join(format!("{prefix}-{ext}"));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        let file = run.join(format!("trace.{ext}"));
        std::os::unix::fs::symlink(&file, dir.join("trace"))
            .map_err(|e| format!("{}: {e}", file.display()))?;
        Ok(dir)
    };
    Ok([dir("xml")?, dir("jtr")?])
}

/// Runs `jtrace ARGS` in `dir` with the read statistics on: stdout (and the file of
/// [`OUT_FILES`] it wrote), and the chunks read / listed / resumed wrong.
pub(crate) fn answer(
    jtrace: &Path,
    dir: &Path,
    args: &[&str],
) -> Result<(Vec<u8>, [u64; 3]), String> {
    let out = Command::new(jtrace)
        .args(args)
        .current_dir(dir)
        .env("JTRACE_READ_STATS", "1")
        .output()
        .map_err(|e| format!("cannot run {}: {e}", jtrace.display()))?;
    let err = String::from_utf8_lossy(&out.stderr);
    if !out.status.success() {
        return Err(format!(
            "jtrace {} failed: {}",
            args.join(" "),
            util::clip(err.trim(), 300)
        ));
    }
    let mut answer = out.stdout;
    for name in OUT_FILES {
        if let Ok(file) = std::fs::read(dir.join(name)) {
            answer.extend_from_slice(&file);
            let _ = std::fs::remove_file(dir.join(name));
        }
    }
    // "jtrace: read: X of Y record chunks (Z replayed whole), W resumed wrong", one
    // line per pass (each worker's under `--jobs`): summed.
    let mut n = [0u64; 3];
    for l in err.lines().filter_map(|l| l.strip_prefix("jtrace: read: ")) {
        let nums: Vec<u64> = l
            .split(|c: char| !c.is_ascii_digit())
            .filter_map(|w| w.parse().ok())
            .collect();
        if let [x, y, _, w] = nums[..] {
            n = [n[0] + x, n[1] + y, n[2] + w];
        }
    }
    Ok((answer, n))
}

pub(crate) fn same_windows(jtrace: &Path, run: &Path) -> Result<(), String> {
    let dirs = both_named(run, "windows")?;
    let (doc, _) = answer(jtrace, &dirs[0], &["report", "--json", "trace"])?;
    let doc: serde_json::Value =
        serde_json::from_slice(&doc).map_err(|e| format!("report --json: {e}"))?;
    let span = doc["trace"]["duration_ns"].as_u64().unwrap_or(0) as f64;
    let (mut read, mut listed) = (0, 0);
    for &(from, to) in WINDOWS {
        let bound = |f: Option<f64>| f.map(|f| format!("{}ns", (f * span) as u64));
        let mut window = Vec::new();
        if let Some(f) = bound(from) {
            window.extend(["--from".to_string(), f]);
        }
        if let Some(t) = bound(to) {
            window.extend(["--to".to_string(), t]);
        }
        for a in ANSWERS {
            let mut args: Vec<&str> = a.to_vec();
            args.extend(window.iter().map(String::as_str));
            args.push("trace");
            let (want, _) = answer(jtrace, &dirs[0], &args)?;
            let (got, [r, l, wrong]) = answer(jtrace, &dirs[1], &args)?;
            if got != want {
                let at = got.iter().zip(&want).take_while(|(a, b)| a == b).count();
                return Err(format!(
                    "jtrace {}: the .jtr's answer differs from the XML's at byte {at}: {:?} / {:?}",
                    args.join(" "),
                    String::from_utf8_lossy(
                        &want[at.saturating_sub(60)..(at + 60).min(want.len())]
                    ),
                    String::from_utf8_lossy(&got[at.saturating_sub(60)..(at + 60).min(got.len())]),
                ));
            }
            if wrong > 0 || l == 0 {
                return Err(format!(
                    "jtrace {}: {wrong} threads resumed with another depth than the index's, of {l} chunks",
                    args.join(" ")
                ));
            }
            read += r;
            listed += l;
        }
    }
    if read * 10 > listed * 7 {
        return Err(format!(
            "the windows read {read} of {listed} record chunks: the index saved little"
        ));
    }
    Ok(())
}
