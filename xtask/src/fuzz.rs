//! `cargo xtask fuzz`: the coverage-guided fuzz targets of `fuzz/` (cargo-fuzz over libFuzzer, `--sanitizer none` on stable Rust, optimised with debug assertions and overflow checks on), each run for a while from its kept corpus and its seeds; a crash, a hang or an allocation past the limit fails the task and leaves its input under `fuzz/artifacts/`.

use crate::util;
use std::path::Path;
use std::process::Command;

/// The targets (`fuzz/fuzz_targets/*.rs`), each with its seeds' folder under `fuzz/seeds/`.
const TARGETS: &[(&str, &str)] = &[
    ("jtr", "jtr"),
    ("xml", "xml"),
    ("check", "xml"),
    ("options", "options"),
];

/// The cargo-fuzz this task installs when it is missing (crates.io).
const CARGO_FUZZ: &str = "0.13.2";

/// What one run may take: libFuzzer's own limits, so that an input which makes a reader
/// allocate in proportion to a number it read (not to the bytes it was given) is a
/// finding, as a hang is.
const LIMITS: &[&str] = &["-rss_limit_mb=1024", "-malloc_limit_mb=256", "-timeout=10"];

pub fn run(args: &[String]) -> bool {
    let mut seconds = 120u64;
    let mut chosen = Vec::new();
    for a in args {
        match a.strip_prefix("--seconds=").map(str::parse) {
            Some(Ok(s)) => seconds = s,
            Some(Err(_)) => return usage(&format!("{a}: not a number of seconds")),
            None if TARGETS.iter().any(|(t, _)| t == a) => chosen.push(a.as_str()),
            None => return usage(&format!("{a}: no such target")),
        }
    }
    if chosen.is_empty() {
        chosen = TARGETS.iter().map(|(t, _)| *t).collect();
    }
    if let Err(e) = cargo_fuzz() {
        eprintln!("xtask fuzz: {e}");
        return false;
    }
    let dir = util::root().join("fuzz");
    let mut ok = true;
    for (target, seeds) in TARGETS.iter().filter(|(t, _)| chosen.contains(t)) {
        let corpus = dir.join("corpus").join(target);
        if let Err(e) = std::fs::create_dir_all(&corpus) {
            eprintln!("xtask fuzz: {}: {e}", corpus.display());
            return false;
        }
        println!("fuzz {target}: {seconds} s from fuzz/corpus/{target} and fuzz/seeds/{seeds}");
        let run = util::status(
            Command::new("cargo")
                .current_dir(&dir)
                .args(["fuzz", "run", "--sanitizer", "none", "-O", "-a", target])
                .arg(&corpus)
                .arg(Path::new("seeds").join(seeds))
                .arg("--")
                .arg(format!("-max_total_time={seconds}"))
                .args(LIMITS),
            &format!("fuzz target {target}"),
        );
        match run {
            Ok(()) => println!("PASS fuzz/{target}"),
            Err(e) => {
                println!("FAIL fuzz/{target}: {e}; its input is under fuzz/artifacts/{target}/");
                ok = false;
            }
        }
    }
    ok
}

fn usage(why: &str) -> bool {
    eprintln!(
        "xtask fuzz: {why}\nusage: cargo xtask fuzz [--seconds=N] [TARGET...]  (targets: {})",
        TARGETS
            .iter()
            .map(|(t, _)| *t)
            .collect::<Vec<_>>()
            .join(", ")
    );
    false
}

/// cargo-fuzz, installed from crates.io when missing.
fn cargo_fuzz() -> Result<(), String> {
    let found = Command::new("cargo")
        .args(["fuzz", "--version"])
        .output()
        .is_ok_and(|o| o.status.success());
    if found {
        return Ok(());
    }
    util::cargo_status(&["install", "--locked", "--version", CARGO_FUZZ, "cargo-fuzz"])
}
