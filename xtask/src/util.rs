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

/// `cargo build --release --quiet -p PACKAGE...` (the agent is `jtrace`, the command
/// `jtrace-cli`), ready to run.
pub fn cargo_release(packages: &[&str]) -> Command {
    let mut c = cargo();
    c.args(["build", "--release", "--quiet"]);
    for p in packages {
        c.args(["-p", p]);
    }
    c
}

/// `xmllint --noout --dtdvalid docs/trace.dtd FILE`; `Err` carries xmllint's complaint.
pub fn xmllint(trace: &Path) -> Result<(), String> {
    xmllint_with(trace, &[])
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

/// Headless Chromium's DOM of `url` after its scripts ran (`--dump-dom`), with console
/// messages logged on stderr; a fresh profile in `profile`, removed afterwards.
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
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg("--dump-dom")
        .arg(url)
        .output()
        .map_err(|e| format!("cannot run chromium (apt-get install chromium): {e}"));
    let _ = std::fs::remove_dir_all(profile);
    out
}
