//! Small helpers shared by the tasks: workspace paths and running external tools.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The workspace root (the parent of this crate).
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask lives inside the workspace")
        .to_path_buf()
}

/// The cargo that runs us (so `cargo xtask` uses the pinned toolchain).
pub fn cargo() -> Command {
    let mut c = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string()));
    c.current_dir(root());
    c
}

/// The packages every task builds in release, always together: the agent (`jtrace`), the
/// command (`jtrace-cli`) and the checker (`tracecheck`). Cargo unifies features over the
/// packages of one build, so a build of a subset compiles shared crates again (minutes).
pub const RELEASE_PACKAGES: [&str; 3] = ["jtrace", "jtrace-cli", "tracecheck"];

/// `cargo build --release` of [`RELEASE_PACKAGES`]: the one release build of every task,
/// so no task rebuilds what another has built. Not quiet: the first build takes minutes,
/// and cargo's progress says so.
pub fn build_release() -> Result<(), String> {
    let mut c = cargo();
    c.args(["build", "--release"]);
    for p in RELEASE_PACKAGES {
        c.args(["-p", p]);
    }
    status(
        &mut c,
        &format!("cargo build --release -p {}", RELEASE_PACKAGES.join(" -p ")),
    )
}

/// `xmllint --noout --dtdvalid docs/trace.dtd FILE`; `Err` carries xmllint's complaint.
pub fn xmllint(trace: &Path) -> Result<(), String> {
    xmllint_with(trace, &[])
}

/// `Err` naming the Debian packages to install when any of `needs`' paths (path,
/// package) is missing: a step never runs, or passes, without its real tools.
pub fn needs(needs: &[(&str, &str)]) -> Result<(), String> {
    let missing: Vec<&str> = needs
        .iter()
        .filter(|(p, _)| !Path::new(p).exists())
        .map(|(_, pkg)| *pkg)
        .collect();
    if missing.is_empty() {
        Ok(())
    } else {
        Err(format!("missing: apt-get install {}", missing.join(" ")))
    }
}

/// Every file under `dir`, recursively (none when it cannot be read).
pub fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                todo.push(p);
            } else {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// The `.jtr` files in `dir` whose names start with `NAME-` (what `jtrace record -o
/// DIR/NAME-%p.jtr` wrote).
pub fn traces_named(dir: &Path, name: &str) -> Result<Vec<PathBuf>, String> {
    let prefix = format!("{name}-");
    Ok(std::fs::read_dir(dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            let n = p.file_name().unwrap_or_default().to_string_lossy();
            n.starts_with(&prefix) && n.ends_with(".jtr")
        })
        .collect())
}

/// A command's stdout when it succeeded; `Err` names `what`, its status and the start
/// of its stderr.
pub fn stdout_of(o: &std::process::Output, what: &str) -> Result<String, String> {
    if o.status.success() {
        Ok(String::from_utf8_lossy(&o.stdout).into_owned())
    } else {
        Err(format!(
            "{what} failed ({}): {}",
            o.status,
            clip(String::from_utf8_lossy(&o.stderr).trim(), 400)
        ))
    }
}

/// A `.jtr` trace rendered by `jtrace xml` to `xml`, then judged by xmllint against
/// docs/trace.dtd and by tracecheck; `Err` names the first complaints.
pub fn validate_jtr(jtrace: &Path, trace: &Path, xml: &Path) -> Result<(), String> {
    run_tool(
        Command::new(jtrace)
            .arg("xml")
            .arg(trace)
            .arg("-o")
            .arg(xml),
        "jtrace xml",
    )?;
    xmllint(xml)?;
    tracecheck::check(xml)
        .map(|_| ())
        .map_err(|v| format!("tracecheck: {}", first_three(&v, 400)))
}

/// The same check with `--stream`: the same DTD validation through xmllint's reader,
/// in constant memory, for traces of gigabytes (the tree of one would not fit).
pub fn xmllint_streaming(trace: &Path) -> Result<(), String> {
    xmllint_with(trace, &["--stream"])
}

fn xmllint_with(trace: &Path, extra: &[&str]) -> Result<(), String> {
    let dtd = root().join("docs/trace.dtd");
    let out = Command::new("xmllint")
        .arg("--noout")
        .args(extra)
        .arg("--dtdvalid")
        .arg(&dtd)
        .arg(trace)
        .output()
        .map_err(|e| format!("cannot run xmllint (apt-get install libxml2-utils): {e}"))?;
    if out.status.success() {
        Ok(())
    } else {
        let err = String::from_utf8_lossy(&out.stderr);
        Err(err.lines().take(5).collect::<Vec<_>>().join(" | "))
    }
}

/// `s` cut to at most `n` characters, for one-line reasons.
pub fn clip(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_string()
    } else {
        format!("{}...", s.chars().take(n).collect::<String>())
    }
}

/// The first three of `items` (a check's violations, a tool's complaints, the threads
/// that are off) joined by ` / ` and cut to `n` characters: how a failure says what went
/// wrong without pasting all of it.
pub fn first_three<T: std::fmt::Display>(items: impl IntoIterator<Item = T>, n: usize) -> String {
    let first: Vec<String> = items.into_iter().take(3).map(|i| i.to_string()).collect();
    clip(&first.join(" / "), n)
}

/// `cargo ARGS`, as a result.
pub fn cargo_status(args: &[&str]) -> Result<(), String> {
    status(cargo().args(args), &format!("cargo {}", args.join(" ")))
}

pub fn status(cmd: &mut Command, what: &str) -> Result<(), String> {
    match cmd.status() {
        Ok(s) if s.success() => Ok(()),
        Ok(s) => Err(format!("{what} failed: {s}")),
        Err(e) => Err(format!("cannot run {what}: {e}")),
    }
}

/// What a command that starts Spark (pyspark, local mode) needs: the JDK at `java_home`,
/// and the loopback address to bind to (the machine's name may not resolve).
pub fn spark_env<'a>(cmd: &'a mut Command, java_home: &Path) -> &'a mut Command {
    cmd.env("JAVA_HOME", java_home)
        .env("SPARK_LOCAL_IP", "127.0.0.1")
}

/// Runs a tool to its end; `Err` says it could not start or failed, with the start of
/// its stderr.
pub fn run_tool(cmd: &mut Command, what: &str) -> Result<(), String> {
    let o = cmd
        .output()
        .map_err(|e| format!("cannot run {what}: {e}"))?;
    if o.status.success() {
        return Ok(());
    }
    // Some tools (Maven) say what went wrong on stdout: its error lines, else its tail.
    let stdout = String::from_utf8_lossy(&o.stdout);
    let errors: Vec<&str> = stdout.lines().filter(|l| l.contains("ERROR")).collect();
    let said = if !o.stderr.is_empty() {
        String::from_utf8_lossy(&o.stderr).into_owned()
    } else if !errors.is_empty() {
        errors.join("\n")
    } else {
        let lines: Vec<&str> = stdout.lines().collect();
        lines[lines.len().saturating_sub(10)..].join("\n")
    };
    Err(format!(
        "{what} failed: {}",
        clip(&said.replace('\n', " | "), 600)
    ))
}

/// Headless Chromium's DOM of `url` after its scripts ran (`--dump-dom`), with console
/// messages logged on stderr, in a 1400x1000 window (pages must be readable at 1400px);
/// a fresh profile in `profile`, removed afterwards.
pub fn chromium_dump_dom(url: &str, profile: &Path) -> Result<std::process::Output, String> {
    let _ = std::fs::remove_dir_all(profile);
    let out = std::process::Command::new("timeout")
        .arg("120")
        .arg("chromium")
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--enable-logging=stderr",
            "--v=0",
            "--window-size=1400,1000",
            // Time for what the page does after loading (its flame graph's frame count
            // arrives as a message).
            "--virtual-time-budget=5000",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg("--dump-dom")
        .arg(url)
        .output()
        .map_err(|e| format!("cannot run chromium (apt-get install chromium): {e}"));
    let _ = std::fs::remove_dir_all(profile);
    out
}

/// How the agent's one line at close starts when the trace was written completely.
pub const CLOSING: &str = "jtrace: trace written to ";

/// The agent's last closing line in `stderr`, `jtrace: trace written to PATH: N bytes[, M
/// elements], K events[, drops and repairs] (jtrace VERSION)`, without the version: (the
/// line, the version).
pub fn closing_line(stderr: &str) -> Option<(&str, &str)> {
    let line = stderr.lines().rev().find(|l| l.starts_with(CLOSING))?;
    let (body, version) = line.rsplit_once(" (jtrace ")?;
    Some((body, version.strip_suffix(')')?))
}

/// The events figure of the agent's last closing line in `stderr`.
pub fn closing_events(stderr: &str) -> Option<u64> {
    let (body, _) = closing_line(stderr)?;
    body.split(", ")
        .find_map(|f| f.strip_suffix(" events")?.rsplit(' ').next()?.parse().ok())
}

#[cfg(test)]
mod closing_tests {
    use super::*;

    #[test]
    fn closing_event_count() {
        let err = "jtrace: finishing x: 5 MB\njtrace: trace written to /t/trace.xml: 2259 bytes, \
                   2000071 elements, 2000008 events (jtrace 0.1.0+abc)\n";
        assert_eq!(closing_events(err), Some(2000008));
        let err = "jtrace: trace written to /t/t.jtr: 1265 bytes, 3 events, 1 exits inferred (jtrace 0.1.0+abc)";
        assert_eq!(closing_events(err), Some(3));
        assert_eq!(closing_line(err).map(|(_, v)| v), Some("0.1.0+abc"));
        assert_eq!(closing_events("nothing"), None);
    }
}

/// The date packages give their files, so that a build is repeatable: the last commit's
/// (`git log -1`), or `SOURCE_DATE_EPOCH` when set (the reproducible-builds convention), else
/// 2026-01-01: (seconds since the epoch, ISO 8601 as `jar --date` takes it).
pub fn source_date() -> (u64, String) {
    let secs = std::env::var("SOURCE_DATE_EPOCH")
        .ok()
        .and_then(|s| s.trim().parse().ok())
        .or_else(|| {
            let o = Command::new("git")
                .args(["log", "-1", "--format=%ct"])
                .current_dir(root())
                .output()
                .ok()?;
            String::from_utf8_lossy(&o.stdout).trim().parse().ok()
        })
        .unwrap_or(1_767_225_600);
    (secs, iso_utc(secs))
}

/// `secs` since the epoch as `YYYY-MM-DDTHH:MM:SSZ` (days to a civil date as in Howard
/// Hinnant's `civil_from_days`).
fn iso_utc(secs: u64) -> String {
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem / 60 % 60,
        rem % 60
    )
}

#[cfg(test)]
mod date_tests {
    #[test]
    fn iso_dates() {
        assert_eq!(super::iso_utc(0), "1970-01-01T00:00:00Z");
        assert_eq!(super::iso_utc(1_767_225_600), "2026-01-01T00:00:00Z");
        assert_eq!(super::iso_utc(951_782_400 + 3661), "2000-02-29T01:01:01Z");
    }
}

/// The SHA-256 of a file, in hex (by `sha256sum`).
pub fn sha256(path: &Path) -> Result<String, String> {
    let o = Command::new("sha256sum")
        .arg(path)
        .output()
        .map_err(|e| format!("cannot run sha256sum: {e}"))?;
    let out = String::from_utf8_lossy(&o.stdout);
    let sum = out.split_whitespace().next().unwrap_or_default();
    if sum.len() != 64 {
        return Err(format!("sha256sum {}: {out:?}", path.display()));
    }
    Ok(sum.to_string())
}
