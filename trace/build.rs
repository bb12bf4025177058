//! Build script: the commit jtrace is built from, for `trace::VERSION` (`jtrace --version`, the agent's stderr line, the trace header).
//!
//! `JTRACE_COMMIT` in the environment wins (a build from a source archive with no `.git`);
//! then `git rev-parse`; else `unknown`.

use std::path::PathBuf;
use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    let o = Command::new("git")
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .ok()?;
    let s = String::from_utf8(o.stdout).ok()?.trim().to_string();
    (o.status.success() && !s.is_empty()).then_some(s)
}

fn main() {
    println!("cargo:rerun-if-env-changed=JTRACE_COMMIT");
    let commit = match std::env::var("JTRACE_COMMIT") {
        Ok(c) if !c.is_empty() => c,
        _ => {
            // Rebuilt when HEAD moves: HEAD itself, the branch it names, packed refs.
            // (Only files that exist: cargo reruns the script, and rebuilds every crate
            // above this one, whenever a named file is missing.)
            if let Some(dir) = git(&["rev-parse", "--absolute-git-dir"]) {
                let dir = PathBuf::from(dir);
                let mut watched = vec![dir.join("HEAD"), dir.join("packed-refs")];
                if let Some(r) = git(&["symbolic-ref", "-q", "HEAD"]) {
                    watched.push(dir.join(r));
                }
                for p in watched.iter().filter(|p| p.is_file()) {
                    println!("cargo:rerun-if-changed={}", p.display());
                }
            }
            git(&["rev-parse", "--short=12", "HEAD"]).unwrap_or_else(|| "unknown".to_string())
        }
    };
    println!("cargo:rustc-env=JTRACE_COMMIT={commit}");
}
