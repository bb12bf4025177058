//! `cargo xtask bench --deep`: jtrace's answers on a deep recursive-descent trace (issue 43): a parser of generated expressions (`bench/deep/Descent.java`) traced whole, hundreds of millions of events, millions of distinct call paths; each answer's peak resident memory and output size beside the bounds it keeps by default (500 MB, 10 MB).

use super::answers::timed;
use crate::util;
use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;

/// Texts parsed: 2,000 give about 350 M events (a 4.6 GB `.jtr`).
const ROUNDS: u32 = 2000;
/// The bounds every answer keeps by default.
const MAX_RSS_MB: u64 = 500;
const MAX_OUTPUT: u64 = 10_000_000;

/// The answers measured (the trace's path and `-o FILE` are added).
const ANSWERS: &[&[&str]] = &[
    &["report"],
    &["report", "--html"],
    &["collapsed"],
    &["flame"],
    &["tree"],
    &["slow", "--over", "300ms"],
    &["graph", "Descent.expr"],
    &["info"],
];

/// The cell: a table, or a FAILED line.
pub fn run(jtrace: &Path, agent: &Path, jdk: &Path, work: &Path) -> String {
    eprintln!("bench: jtrace's answers on a deep recursive-descent trace");
    let dir = work.join("deep");
    let r = measure(jtrace, agent, jdk, &dir);
    let _ = std::fs::remove_dir_all(&dir);
    match r {
        Ok(t) => t,
        Err(e) => format!("deep answers FAILED: {e}\n"),
    }
}

fn measure(jtrace: &Path, agent: &Path, jdk: &Path, dir: &Path) -> Result<String, String> {
    let _ = std::fs::remove_dir_all(dir);
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let classes = dir.join("classes");
    let src = util::root().join("bench/deep/Descent.java");
    crate::java::javac(&crate::java::Jdk::at(jdk), &classes, &[], &[src])
        .map_err(|e| format!("javac Descent.java failed: {e}"))?;
    let jtr = dir.join("deep.jtr");
    let o = crate::java::Run::home(jdk)
        .agent(agent, &format!("out={},include=Descent", jtr.display()))
        .class_path(&classes)
        .main("Descent")
        .arg(ROUNDS.to_string())
        .output()?;
    let err = String::from_utf8_lossy(&o.stderr);
    if !o.status.success() {
        return Err(format!(
            "java Descent failed: {}",
            util::clip(err.trim(), 300)
        ));
    }
    let events = util::closing_events(&err)
        .ok_or_else(|| format!("no closing line from the agent: {}", util::clip(&err, 300)))?;
    let size = std::fs::metadata(&jtr).map_or(0, |m| m.len());
    let mut t = String::new();
    let _ = writeln!(
        t,
        "deep answers: Descent {ROUNDS} (a recursive-descent parser, include=Descent): {events} events, {:.2} GB .jtr",
        size as f64 / 1e9
    );
    let _ = writeln!(
        t,
        "  {:<28} {:>9} {:>12} {:>10}  within {MAX_RSS_MB} MB and {} MB",
        "answer",
        "CPU s",
        "peak RSS MB",
        "output MB",
        MAX_OUTPUT / 1_000_000
    );
    let mut all_within = true;
    for a in ANSWERS {
        let out = dir.join(if a.contains(&"--html") {
            "answer.html"
        } else if a[0] == "flame" {
            "answer.svg"
        } else {
            "answer.txt"
        });
        let _ = std::fs::remove_file(&out);
        let mut c = Command::new(jtrace);
        c.args(*a).arg(&jtr).arg("-o").arg(&out);
        let m = timed(&mut c, dir)?;
        let bytes = std::fs::metadata(&out).map_or(0, |m| m.len());
        let within = m.rss_kb / 1024 <= MAX_RSS_MB && bytes <= MAX_OUTPUT;
        all_within &= within;
        let _ = writeln!(
            t,
            "  {:<28} {:>9.1} {:>12} {:>10.2}  {}",
            a.join(" "),
            m.cpu,
            m.rss_kb / 1024,
            bytes as f64 / 1e6,
            if within { "yes" } else { "NO" }
        );
    }
    if !all_within {
        let _ = writeln!(t, "deep answers FAILED: an answer went past its bounds");
    }
    Ok(t)
}
