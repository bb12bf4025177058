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
            // `--git-path` resolves each in a worktree too (refs live in the common dir).
            // logs/HEAD grows on every commit, packed branch or not.
            let mut names = vec![
                "HEAD".to_string(),
                "logs/HEAD".to_string(),
                "packed-refs".to_string(),
            ];
            names.extend(git(&["symbolic-ref", "-q", "HEAD"]));
            for name in names {
                if let Some(p) = git(&["rev-parse", "--git-path", &name]) {
                    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(p);
                    if p.is_file() {
                        println!("cargo:rerun-if-changed={}", p.display());
                    }
                }
            }
            git(&["rev-parse", "--short=12", "HEAD"]).unwrap_or_else(|| "unknown".to_string())
        }
    };
    println!("cargo:rustc-env=JTRACE_COMMIT={commit}");
}
