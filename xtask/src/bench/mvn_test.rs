//! `mvn test` on examples/maven-junit with and without `jtrace record --tests-only` (and with `lines=on`): what tracing a test suite costs, wall and CPU of the whole build.
//!
//! Offline with Debian's Maven (`mvn -o -q -s settings.xml test`); the project is compiled
//! once before the runs, so each run is Maven's start, surefire's forked JVM and the
//! tests. The three settings are interleaved run by run (drift hits them alike); the best
//! wall of each is kept, with its CPU (user + system of Maven and every JVM it started).
//! One test fails on purpose, so Maven exits with 1; a run counts when the tests printed
//! their six TRUTH lines.

use super::{fmt_opt, load_average, read_time, Env, GNU_TIME};
use crate::util;
use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;
use std::time::Instant;

/// (label, extra `jtrace record` arguments; None = no jtrace).
const SETTINGS: [(&str, Option<&[&str]>); 3] = [
    ("mvn test", None),
    ("jtrace record --tests-only", Some(&["--tests-only"])),
    (
        "jtrace record --tests-only lines=on",
        Some(&["--tests-only", "lines=on"]),
    ),
];

#[derive(Clone, Default)]
struct Best {
    wall: Option<f64>,
    cpu: Option<f64>,
    /// Events and bytes of the traces of the best run.
    events: Option<u64>,
    bytes: Option<u64>,
    error: Option<String>,
}

/// The cell's table (or why it could not run).
pub fn run(env: &Env) -> String {
    match measure(env) {
        Ok(t) => t,
        Err(e) => format!("mvn test (examples/maven-junit): FAILED: {e}\n"),
    }
}

fn measure(env: &Env) -> Result<String, String> {
    if !Path::new("/usr/bin/mvn").is_file() {
        return Err("no /usr/bin/mvn (apt-get install maven libsurefire-java)".into());
    }
    // jtrace record finds libjtrace.so and the jars beside itself.
    let jar = crate::package::build_jar()?;
    for f in ["jtrace.jar", "jtrace-record.jar"] {
        std::fs::copy(jar.with_file_name(f), env.work.join(f))
            .map_err(|e| format!("copying {f}: {e}"))?;
    }
    let project = env.work.join("maven-junit");
    let _ = std::fs::remove_dir_all(&project);
    let cp = Command::new("cp")
        .arg("-r")
        .arg(util::root().join("examples/maven-junit"))
        .arg(&project)
        .status()
        .map_err(|e| e.to_string())?;
    if !cp.success() {
        return Err("cp examples/maven-junit failed".into());
    }
    let _ = std::fs::remove_dir_all(project.join("target"));
    let warm = Command::new("mvn")
        .args(["-o", "-q", "-s", "settings.xml", "test-compile"])
        .current_dir(&project)
        .output()
        .map_err(|e| format!("cannot run mvn: {e}"))?;
    if !warm.status.success() {
        return Err(format!(
            "mvn test-compile: {}",
            String::from_utf8_lossy(&warm.stdout)
        ));
    }
    let traces = env.work.join("mvn-traces");
    let mut best = vec![Best::default(); SETTINGS.len()];
    let load_before = load_average();
    for _ in 0..env.cfg.runs {
        for (i, (_, record)) in SETTINGS.iter().enumerate() {
            let _ = std::fs::remove_dir_all(&traces);
            std::fs::create_dir_all(&traces).map_err(|e| e.to_string())?;
            match once(env, &project, &traces, *record) {
                Ok(b) => {
                    if best[i].wall.is_none_or(|w| b.wall.is_some_and(|x| x < w)) {
                        best[i] = b;
                    }
                }
                Err(e) => best[i].error = Some(e),
            }
        }
    }
    let _ = std::fs::remove_dir_all(&traces);
    let _ = std::fs::remove_dir_all(&project);
    let plain = best[0].wall;
    let mut t = String::new();
    let _ = writeln!(
        t,
        "mvn test, examples/maven-junit (6 tests; mvn -o -q test, compiled beforehand), best of {} runs; load before {load_before}, after {}",
        env.cfg.runs,
        load_average()
    );
    let _ = writeln!(
        t,
        "  {:<36} {:>8} {:>7} {:>8} {:>10} {:>10}",
        "setting", "wall s", "x mvn", "CPU s", "events", "trace MB"
    );
    for ((label, _), b) in SETTINGS.iter().zip(&best) {
        if let (None, Some(e)) = (b.wall, &b.error) {
            let _ = writeln!(t, "  {label:<36} FAILED: {e}");
            continue;
        }
        let _ = writeln!(
            t,
            "  {:<36} {:>8} {:>7} {:>8} {:>10} {:>10}",
            label,
            fmt_opt(b.wall, |w| format!("{w:.2}")),
            fmt_opt(b.wall.zip(plain), |(w, p)| format!("{:.2}", w / p)),
            fmt_opt(b.cpu, |c| format!("{c:.2}")),
            fmt_opt(b.events, |e| e.to_string()),
            fmt_opt(b.bytes, |x| format!("{:.1}", x as f64 / 1e6)),
        );
    }
    Ok(t)
}

/// One `mvn test`, under `jtrace record` when `record` is given.
fn once(env: &Env, project: &Path, traces: &Path, record: Option<&[&str]>) -> Result<Best, String> {
    let rss = traces.join("time.txt");
    let mut c = if env.time {
        let mut c = Command::new(GNU_TIME);
        c.arg("-f").arg("%M %U %S").arg("-o").arg(&rss);
        c
    } else {
        Command::new("env")
    };
    if let Some(args) = record {
        let pattern = traces.join("mvn-%p.jtr");
        c.arg(&env.jtrace).arg("record").arg("-o").arg(&pattern);
        c.args(args).arg("--");
    }
    c.args(["mvn", "-o", "-q", "-s", "settings.xml", "test"])
        .current_dir(project);
    let started = Instant::now();
    let o = c.output().map_err(|e| format!("cannot run mvn: {e}"))?;
    let wall = started.elapsed().as_secs_f64();
    let stdout = String::from_utf8_lossy(&o.stdout);
    let truths = stdout.lines().filter(|l| l.starts_with("TRUTH|")).count();
    if o.status.code() != Some(1) || truths != 6 {
        return Err(format!(
            "exit {:?}, {truths} TRUTH lines (expected the failing test's 1 and 6): {}",
            o.status.code(),
            util::clip(String::from_utf8_lossy(&o.stderr).trim(), 300)
        ));
    }
    let (_, cpu) = read_time(&rss);
    let stderr = String::from_utf8_lossy(&o.stderr);
    let mut b = Best {
        wall: Some(wall),
        cpu,
        ..Best::default()
    };
    if record.is_some() {
        // jtrace record's summary: `  FILE: COMMAND...: N events, ...` per trace (the
        // agent's own `trace written` lines come before it).
        let summary = stderr.rfind("jtrace record:").map_or("", |i| &stderr[i..]);
        b.events = Some(
            summary
                .lines()
                .filter_map(|l| l.rsplit_once(" events"))
                .filter_map(|(head, _)| head.rsplit(' ').next()?.parse::<u64>().ok())
                .sum(),
        );
        b.bytes = Some(
            std::fs::read_dir(traces)
                .map_err(|e| e.to_string())?
                .flatten()
                .filter(|e| e.file_name().to_string_lossy().ends_with(".jtr"))
                .filter_map(|e| e.metadata().ok())
                .map(|m| m.len())
                .sum(),
        );
    }
    Ok(b)
}
