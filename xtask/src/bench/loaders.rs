//! `cargo xtask bench-loaders`: resident memory grown over N short-lived class loaders (bench/loaders), without the agent and with it, side by side.
//!
//! Not a test: memory is a measurement, printed and recorded in docs/BENCHMARKS.md.
//! The program measures its own VmRSS after a warm-up of 10,000 loaders and after the
//! N loaders (each time after collections); the figure is the growth between the two,
//! and what the agent adds is the growth with it minus the growth without it.

use crate::util;
use std::path::{Path, PathBuf};

const DEFAULT_JDK: &str = "/usr/lib/jvm/java-17-openjdk-amd64";

/// (RSS before, RSS after) in KiB, from the program's one output line.
fn run(jdk: &Path, classes: &Path, agent: Option<String>, n: u64) -> Result<(u64, u64), String> {
    let out = crate::java::Run::home(jdk)
        .args(agent)
        .arg("-Xmx512m")
        .class_path(classes)
        .main("LoaderChurn")
        .arg(n.to_string())
        .output()?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    if !out.status.success() {
        return Err(format!(
            "LoaderChurn failed: {}",
            util::clip(&String::from_utf8_lossy(&out.stderr), 300)
        ));
    }
    let w: Vec<&str> = stdout.split_whitespace().collect();
    let field = |k: &str| -> Result<u64, String> {
        w.iter()
            .position(|x| *x == k)
            .and_then(|i| w.get(i + 1))
            .and_then(|v| v.parse().ok())
            .ok_or_else(|| format!("no {k} in {stdout:?}"))
    };
    Ok((field("rss-before-kb")?, field("rss-after-kb")?))
}

pub fn run_cmd(args: &[String]) -> bool {
    let n: u64 = args
        .iter()
        .find_map(|a| a.strip_prefix("--loaders="))
        .and_then(|v| v.parse().ok())
        .unwrap_or(80_000);
    let jdk = PathBuf::from(
        args.iter()
            .find_map(|a| a.strip_prefix("--jdk="))
            .unwrap_or(DEFAULT_JDK),
    );
    let root = util::root();
    let built = util::build_release().is_ok();
    let agent = root.join("target/release/libjtrace.so");
    if !built || !agent.is_file() {
        eprintln!("bench-loaders: cannot build the agent");
        return false;
    }
    let work = root.join("target/bench-loaders");
    let classes = work.join("classes");
    let source = [root.join("bench/loaders/LoaderChurn.java")];
    if let Err(e) = crate::java::javac(&crate::java::Jdk::at(&jdk), &classes, &[], &source) {
        eprintln!("bench-loaders: javac failed: {e}");
        return false;
    }
    let trace = work.join("trace.xml");
    println!(
        "{n} class loaders, {} (RSS after collections)",
        jdk.display()
    );
    let plain = run(&jdk, &classes, None, n);
    let traced = run(
        &jdk,
        &classes,
        Some(crate::java::agent_arg(
            &agent,
            &format!("out={}", trace.display()),
        )),
        n,
    );
    match (plain, traced) {
        (Ok((b0, a0)), Ok((b1, a1))) => {
            let g0 = a0 as i64 - b0 as i64;
            let g1 = a1 as i64 - b1 as i64;
            println!("  without agent: {b0} KiB -> {a0} KiB, growth {g0} KiB");
            println!("  with jtrace:   {b1} KiB -> {a1} KiB, growth {g1} KiB");
            println!(
                "  the agent's extra growth: {} KiB ({:.1} MiB); trace {} MB",
                g1 - g0,
                (g1 - g0) as f64 / 1024.0,
                std::fs::metadata(&trace).map_or(0, |m| m.len() / 1_000_000)
            );
            true
        }
        (a, b) => {
            for e in [a.err(), b.err()].into_iter().flatten() {
                eprintln!("bench-loaders: {e}");
            }
            false
        }
    }
}
