//! Running one program of the real-world corpus: bounded in time, in its own process group
//! (so that nothing it starts outlives it), and judging a run with the agent against the
//! run without it (exit code, stdout, files) and the traces it wrote.

use crate::util;
use std::collections::BTreeMap;
use std::io::Read;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::thread;
use std::time::{Duration, Instant};

/// What one run of a program gave.
pub struct Captured {
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
    pub secs: f64,
    /// Set when the harness had to kill the program (timeout) or something it left behind.
    pub problem: Option<String>,
}

impl Captured {
    /// The last non-empty stderr line, for one-line reasons.
    pub fn stderr_tail(&self) -> String {
        let last = self.stderr.lines().rev().find(|l| !l.trim().is_empty());
        util::clip(last.unwrap_or(""), 200)
    }
}

/// Exit code, or 128 + signal as a shell reports it.
pub fn exit_code(status: ExitStatus) -> Option<i32> {
    status.code().or_else(|| status.signal().map(|s| 128 + s))
}

/// Starts `cmd` as the leader of a new process group with stdout and stderr piped.
pub fn spawn(cmd: &mut Command, stdin: Stdio) -> Result<Child, String> {
    cmd.process_group(0)
        .stdin(stdin)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot start {:?}: {e}", cmd.get_program()))
}

/// Reads a pipe to the end on a thread of its own (a full pipe would block the program).
pub fn drain<R: Read + Send + 'static>(mut r: R) -> thread::JoinHandle<String> {
    thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = r.read_to_end(&mut buf);
        String::from_utf8_lossy(&buf).into_owned()
    })
}

/// SIGKILL to every process left in the group `pgid` (the group of a child we started);
/// whether any was left.
pub fn kill_group(pgid: u32) -> bool {
    let alive = group_alive(pgid);
    if alive {
        let _ = Command::new("kill")
            .args(["-KILL", "--", &format!("-{pgid}")])
            .stderr(Stdio::null())
            .status();
    }
    alive
}

fn group_alive(pgid: u32) -> bool {
    Command::new("kill")
        .args(["-0", "--", &format!("-{pgid}")])
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// After the program exited: whether it left processes behind (killed then). A child JVM
/// the program ended on its way out (jshell's snippet JVM) may still be exiting, with or
/// without the agent (which then closes its trace), so the group gets a grace period to
/// go by itself first.
fn left_behind(pgid: u32) -> bool {
    let grace = Instant::now() + Duration::from_secs(10);
    while group_alive(pgid) && Instant::now() < grace {
        thread::sleep(Duration::from_millis(50));
    }
    kill_group(pgid)
}

/// Waits for `child` until `deadline`; kills its whole group if it is late. Afterwards any
/// process it left in its group is killed too (and reported: a program must not leave
/// processes behind). A pipe the caller took already reads as empty.
pub fn finish(child: Child, deadline: Instant, started: Instant) -> Captured {
    finish_watched(child, deadline, started, None)
}

/// The most trace a run may write before it is stopped: the machines share one disk, and a
/// compiler traced in full writes tens of gigabytes in a minute (scalac: 33 GB).
pub const MAX_TRACE_BYTES: u64 = 12 << 30;

/// Bytes of the files directly in `dir`.
fn dir_bytes(dir: &Path) -> u64 {
    std::fs::read_dir(dir)
        .map(|d| {
            d.flatten()
                .filter_map(|e| e.metadata().ok())
                .map(|m| m.len())
                .sum()
        })
        .unwrap_or(0)
}

/// [`finish`], also stopping the program if the traces in `traces` outgrow
/// [`MAX_TRACE_BYTES`].
pub fn finish_watched(
    mut child: Child,
    deadline: Instant,
    started: Instant,
    traces: Option<&Path>,
) -> Captured {
    let out = child.stdout.take().map(drain);
    let err = child.stderr.take().map(drain);
    let pgid = child.id();
    let mut problem = None;
    let mut polls = 0u64;
    let status = loop {
        polls += 1;
        if let Some(dir) = traces.filter(|_| polls.is_multiple_of(50)) {
            let bytes = dir_bytes(dir);
            if bytes > MAX_TRACE_BYTES {
                kill_group(pgid);
                problem = Some(format!(
                    "the trace outgrew {} after {:.0} s: stopped",
                    super::human_bytes(bytes),
                    started.elapsed().as_secs_f64()
                ));
                break child.wait().ok();
            }
        }
        match child.try_wait() {
            Ok(Some(s)) => break Some(s),
            Ok(None) if Instant::now() < deadline => thread::sleep(Duration::from_millis(20)),
            _ => {
                kill_group(pgid);
                problem = Some(format!(
                    "timeout: killed after {:.0} s",
                    started.elapsed().as_secs_f64()
                ));
                break child.wait().ok();
            }
        }
    };
    let secs = started.elapsed().as_secs_f64();
    if left_behind(pgid) && problem.is_none() {
        problem = Some("left processes behind (killed after a 10 s grace)".to_string());
    }
    Captured {
        code: status.and_then(exit_code),
        stdout: out.and_then(|h| h.join().ok()).unwrap_or_default(),
        stderr: err.and_then(|h| h.join().ok()).unwrap_or_default(),
        secs,
        problem,
    }
}

/// Runs `cmd` to completion (or `timeout`), stdin closed.
pub fn run(cmd: &mut Command, timeout: Duration) -> Captured {
    run_watched(cmd, timeout, None)
}

/// [`run`], watching the size of the traces in `traces` (see [`finish_watched`]).
pub fn run_watched(cmd: &mut Command, timeout: Duration, traces: Option<&Path>) -> Captured {
    let started = Instant::now();
    match spawn(cmd, Stdio::null()) {
        Ok(child) => finish_watched(child, started + timeout, started, traces),
        Err(e) => Captured {
            code: None,
            stdout: String::new(),
            stderr: e.clone(),
            secs: 0.0,
            problem: Some(e),
        },
    }
}

/// Runs a preparation step (never traced); `Err` names the step and its complaint.
pub fn prepare(cmd: &mut Command, what: &str) -> Result<(), String> {
    let c = run(cmd, Duration::from_secs(600));
    if c.code == Some(0) && c.problem.is_none() {
        Ok(())
    } else {
        Err(format!(
            "{what}: exit {:?}{}: {}",
            c.code,
            c.problem.map(|p| format!(" ({p})")).unwrap_or_default(),
            util::clip(&c.stderr.replace('\n', " | "), 300)
        ))
    }
}

/// Copies the directory tree `from` to `to` (regular files and directories only).
pub fn copy_tree(from: &Path, to: &Path) -> Result<(), String> {
    std::fs::create_dir_all(to).map_err(|e| format!("{}: {e}", to.display()))?;
    for e in std::fs::read_dir(from).map_err(|e| format!("{}: {e}", from.display()))? {
        let e = e.map_err(|e| e.to_string())?;
        let (src, dst) = (e.path(), to.join(e.file_name()));
        let ty = e.file_type().map_err(|e| e.to_string())?;
        if ty.is_dir() {
            copy_tree(&src, &dst)?;
        } else {
            std::fs::copy(&src, &dst).map_err(|e| format!("{}: {e}", src.display()))?;
        }
    }
    Ok(())
}

/// The `.java` files under `dir`, sorted.
pub fn java_files(dir: &Path) -> Result<Vec<PathBuf>, String> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))? {
        let p = e.map_err(|e| e.to_string())?.path();
        if p.is_dir() {
            out.extend(java_files(&p)?);
        } else if p.extension().is_some_and(|x| x == "java") {
            out.push(p);
        }
    }
    out.sort();
    Ok(out)
}

/// Every file under `dir` by relative path, with its bytes; directories as `None` (an empty
/// directory a program creates is an output too). Paths under `ignore` are left out.
fn tree(dir: &Path, ignore: &[&str]) -> Result<BTreeMap<String, Option<Vec<u8>>>, String> {
    fn walk(
        base: &Path,
        dir: &Path,
        ignore: &[&str],
        out: &mut BTreeMap<String, Option<Vec<u8>>>,
    ) -> Result<(), String> {
        for e in std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))? {
            let e = e.map_err(|e| e.to_string())?;
            let path = e.path();
            let rel = path
                .strip_prefix(base)
                .map_err(|e| e.to_string())?
                .to_string_lossy()
                .into_owned();
            if ignore
                .iter()
                .any(|i| rel == *i || rel.starts_with(&format!("{i}/")))
            {
                continue;
            }
            let ty = e.file_type().map_err(|e| e.to_string())?;
            if ty.is_dir() {
                out.insert(rel, None);
                walk(base, &path, ignore, out)?;
            } else if ty.is_file() {
                let bytes = std::fs::read(&path).map_err(|e| format!("{rel}: {e}"))?;
                out.insert(rel, Some(bytes));
            }
        }
        Ok(())
    }
    let mut out = BTreeMap::new();
    walk(dir, dir, ignore, &mut out)?;
    Ok(out)
}

/// Compares two run directories byte for byte; `Err` names the first difference.
pub fn same_files(plain: &Path, traced: &Path, ignore: &[&str]) -> Result<usize, String> {
    let a = tree(plain, ignore)?;
    let b = tree(traced, ignore)?;
    for (path, bytes) in &a {
        match b.get(path) {
            None => return Err(format!("file {path} missing with the agent")),
            Some(other) if other != bytes => {
                return Err(format!("file {path} differs with the agent"))
            }
            Some(_) => {}
        }
    }
    if let Some(extra) = b.keys().find(|p| !a.contains_key(*p)) {
        return Err(format!("file {extra} only written with the agent"));
    }
    Ok(a.values().filter(|v| v.is_some()).count())
}

/// `stdout` with the run directory's path replaced by `$DIR` (the two runs work in
/// different directories) and each line passed through the case's `mask`.
pub fn normalise(stdout: &str, dir: &Path, mask: fn(&str) -> String) -> Vec<String> {
    let dir = dir.to_string_lossy();
    stdout
        .lines()
        .map(|l| mask(&l.replace(dir.as_ref(), "$DIR")))
        .collect()
}

/// `Err` describes the first line where the two outputs part.
pub fn same_stdout(plain: &[String], traced: &[String]) -> Result<(), String> {
    if plain == traced {
        return Ok(());
    }
    let i = plain
        .iter()
        .zip(traced)
        .position(|(a, b)| a != b)
        .unwrap_or(plain.len().min(traced.len()));
    let line = |v: &[String]| {
        v.get(i)
            .map(|l| format!("{:?}", util::clip(l, 140)))
            .unwrap_or_else(|| "end of output".to_string())
    };
    Err(format!(
        "stdout differs at line {}: without agent {}, with agent {}",
        i + 1,
        line(plain),
        line(traced)
    ))
}

/// What a valid trace holds, for the report.
pub struct TraceFacts {
    pub bytes: u64,
    pub events: u64,
    /// What the agent repaired or dropped (the trace's own traceEnd counts), if anything.
    pub repairs: Option<String>,
}

/// Validates one trace as `cargo xtask check` does (the DTD, then tracecheck's rules), the
/// two at once. Traces of real programs reach gigabytes: xmllint streams, and tracecheck
/// runs as its release binary (`tracecheck`, built by the caller), many times faster than
/// the unoptimised copy linked into xtask.
pub fn validate(trace: &Path, tracecheck: &Path) -> Result<TraceFacts, String> {
    let bytes = std::fs::metadata(trace)
        .map_err(|e| format!("no trace {}: {e}", trace.display()))?
        .len();
    let owned: PathBuf = trace.to_path_buf();
    let lint = thread::spawn(move || util::xmllint_streaming(&owned));
    let checked = Command::new(tracecheck).arg(trace).output();
    lint.join()
        .unwrap_or_else(|_| Err("xmllint thread panicked".to_string()))
        .map_err(|e| format!("xmllint {}: {}", trace.display(), util::clip(&e, 300)))?;
    let out = checked.map_err(|e| format!("cannot run {}: {e}", tracecheck.display()))?;
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        return Err(format!(
            "tracecheck {}: {} violation(s): {}",
            trace.display(),
            err.lines().count(),
            util::first_three(err.lines(), 400)
        ));
    }
    // "…: valid (…, N method entries, N elements)"
    let text = String::from_utf8_lossy(&out.stdout);
    let events = text
        .rsplit_once(" elements)")
        .and_then(|(head, _)| head.rsplit(' ').next())
        .and_then(|n| n.parse().ok())
        .ok_or_else(|| format!("tracecheck said {:?}", util::clip(text.trim(), 200)))?;
    let repairs = text
        .lines()
        .find_map(|l| l.split_once(": repaired or dropped: "))
        .map(|(_, r)| r.trim().to_string());
    Ok(TraceFacts {
        bytes,
        events,
        repairs,
    })
}

/// Whether `trace`'s Parquet export and `jtrace report --json` of it agree, queried with
/// DuckDB (`xtask/parquet/agree.py`): per method its calls, self and inclusive
/// times, exits by exception, open calls, longest call and p99, each thread's calls and
/// the slowest calls as the report says, and every call's path is its caller's and its
/// own method. The export goes into `answers/fleet` as trace `id` and the report, once
/// DuckDB agreed with it, into `answers/reports/<id>.json`, both kept for
/// [`fleet_agrees`]. What agreed, in a line.
pub fn answers_agree(
    trace: &Path,
    jtrace: &Path,
    answers: &Path,
    id: &str,
) -> Result<String, String> {
    let (fleet, reports) = (answers.join("fleet"), answers.join("reports"));
    // Reports wait here until DuckDB agrees with them: Spark compares only those.
    let pending = answers.join("pending");
    for d in [&reports, &pending] {
        std::fs::create_dir_all(d).map_err(|e| format!("{}: {e}", d.display()))?;
    }
    // The same case run again replaces its trace.
    let _ = std::fs::remove_dir_all(fleet.join(format!("trace_id={id}")));
    let _ = std::fs::remove_file(reports.join(format!("{id}.json")));
    let report = pending.join(format!("{id}.json"));
    let out = Command::new(jtrace)
        .args(["report", "--json"])
        .arg(trace)
        .output()
        .map_err(|e| format!("cannot run {}: {e}", jtrace.display()))?;
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        return Err(format!("jtrace report: {}", util::clip(err.trim(), 300)));
    }
    std::fs::write(&report, &out.stdout).map_err(|e| format!("{}: {e}", report.display()))?;
    util::run_tool(
        Command::new(jtrace)
            .arg("parquet")
            .arg(trace)
            .args(["--trace-id", id, "-o"])
            .arg(&fleet),
        "jtrace parquet",
    )?;
    let said = agree("duckdb", &fleet, std::slice::from_ref(&report), None)
        .map_err(|e| format!("on {}: {e}", trace.display()))?;
    let agreed = reports.join(format!("{id}.json"));
    std::fs::rename(&report, &agreed).map_err(|e| format!("{}: {e}", agreed.display()))?;
    Ok(said)
}

/// Whether Spark, over every export [`answers_agree`] put in `answers` at once (a fleet
/// of real programs' traces, read as the files are), gives each trace's report's answers
/// too; Spark runs on the JDK at `java_home`. With `max_calls`, only the traces of at
/// most that many calls are compared. What agreed, in a line; none when no trace is to
/// be compared.
pub fn fleet_agrees(
    answers: &Path,
    java_home: &Path,
    max_calls: Option<u64>,
) -> Result<Option<String>, String> {
    let reports_dir = answers.join("reports");
    let Ok(dir) = std::fs::read_dir(&reports_dir) else {
        return Ok(None);
    };
    let mut reports: Vec<PathBuf> = dir
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .filter(|p| max_calls.is_none_or(|max| report_calls(p) <= max))
        .collect();
    reports.sort();
    if reports.is_empty() {
        return Ok(None);
    }
    agree("spark", &answers.join("fleet"), &reports, Some(java_home)).map(Some)
}

/// The calls `jtrace report --json` counted in its trace (`trace.calls`; none if unreadable).
fn report_calls(report: &Path) -> u64 {
    std::fs::read(report)
        .ok()
        .and_then(|b| serde_json::from_slice::<serde_json::Value>(&b).ok())
        .and_then(|v| v["trace"]["calls"].as_u64())
        .unwrap_or(0)
}

/// `xtask/parquet/agree.py ENGINE FLEET REPORT...`: its line, or why it failed.
fn agree(
    engine: &str,
    fleet: &Path,
    reports: &[PathBuf],
    java_home: Option<&Path>,
) -> Result<String, String> {
    let script = util::root().join("xtask/parquet/agree.py");
    let mut cmd = Command::new("python3");
    cmd.arg(&script).arg(engine).arg(fleet).args(reports);
    if let Some(home) = java_home {
        util::spark_env(&mut cmd, home);
    }
    let out = cmd
        .output()
        .map_err(|e| format!("cannot run {}: {e}", script.display()))?;
    let said = String::from_utf8_lossy(&out.stdout).trim().to_string();
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        return Err(format!(
            "the Parquet export and the report disagree: {}",
            util::clip(&format!("{said} {}", err.trim()), 600)
        ));
    }
    Ok(said)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stdout_difference_is_located() {
        let a = vec!["x".to_string(), "y".to_string()];
        let b = vec!["x".to_string(), "z".to_string()];
        let e = same_stdout(&a, &b).unwrap_err();
        assert!(e.contains("line 2"), "{e}");
        assert!(same_stdout(&a, &a).is_ok());
        let short = vec!["x".to_string()];
        assert!(same_stdout(&a, &short)
            .unwrap_err()
            .contains("end of output"));
    }

    #[test]
    fn run_dir_is_masked() {
        let lines = normalise("in /tmp/a/x\nok", Path::new("/tmp/a"), |l| l.to_string());
        assert_eq!(lines, vec!["in $DIR/x", "ok"]);
    }
}
