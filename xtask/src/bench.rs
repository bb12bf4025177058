//! `cargo xtask bench`: jtrace's costs measured side by side in one run, and printed with issue 10's targets.
//!
//! In order: MooBench on each JDK (no agent, `mode=jvmti`, `mode=bci` into `.jtr`, `.xml`
//! and `.xml.zst`, JFR's `jdk.MethodTrace` on JDK 25+: `bench/moo.rs`); javac fully traced
//! (no agent, `.jtr`, `.xml`: `bench/javac.rs`); the disk's own write bandwidth at the
//! XML traces' sizes (`bench/disk.rs`); the renderer on its own (`writer_bench`,
//! callgrind, `jtrace xml` of the run's `.jtr` traces: `bench/renderer.rs`); `mvn test`
//! with and without `jtrace record` (`bench/mvn_test.rs`; `--mvn-test` runs only it);
//! `-javaagent:jtrace-agent.jar` start-up beside `-agentpath` (`bench/javaagent.rs`;
//! `--javaagent` runs only it); the
//! Parquet export of a MooBench and a javac `.jtr` (`bench/parquet_export.rs`; `--parquet`
//! runs only it); then one
//! small program per event family (`bench/families.rs`; `--families` runs only these).
//! One JVM run: `bench/jvm.rs`. Before all of these, issue 18's cells (start to exit,
//! idle, MooBench steady and whole, H2, attach: `bench/cost.rs`; `--cost` runs only
//! these). What each number means: docs/BENCHMARKS.md. A cell that fails is reported
//! with its error and the run goes on.

pub mod answers;
mod cost;
mod deep;
mod disk;
mod families;
mod javaagent;
mod javac;
mod jvm;
pub mod loaders;
mod moo;
mod mvn_test;
mod parquet_export;
mod renderer;

use crate::util;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

/// The JDK of javac and the event families, and the one MooBench is compiled with.
const DEFAULT_JDK: &str = "/usr/lib/jvm/java-17-openjdk-amd64";
/// The JDKs MooBench runs on (JFR's method tracing needs 25+).
const DEFAULT_MOO_JDKS: [&str; 2] = [
    "/usr/lib/jvm/java-17-openjdk-amd64",
    "/usr/lib/jvm/temurin-25-jdk-amd64",
];
/// The JDK (21+) the virtual-thread family runs on.
const DEFAULT_JDK_VTHREADS: &str = "/usr/lib/jvm/temurin-25-jdk-amd64";
const GNU_TIME: &str = "/usr/bin/time";
const TIMEOUT: &str = "/usr/bin/timeout";
/// No single JVM run may take longer than this.
const RUN_LIMIT: Duration = Duration::from_secs(900);
/// MooBench's recursion depth: one outer iteration is this many traced calls.
const DEPTH: u64 = 10;

const USAGE: &str = "usage: cargo xtask bench [--quick] [--families | --cost | --mvn-test | --parquet | --javaagent] [--jdk PATH] [--moo-jdks PATH,PATH...] [--jdk-vthreads PATH] [--cells exit,idle,moo,h2,attach] [--runs N] [--moo-n N] [--moo-n-jvmti N] [--files N] [--writer-events N] [--callgrind-events N]";

struct Config {
    quick: bool,
    /// Only the event-family programs.
    families_only: bool,
    /// Only issue 18's cells (`bench/cost.rs`).
    cost_only: bool,
    /// Which of issue 18's cells run (`--cells`; all when empty).
    cells: Vec<String>,
    /// Only `mvn test` with and without `jtrace record` (`bench/mvn_test.rs`).
    mvn_test_only: bool,
    /// Only `-javaagent` start-up beside `-agentpath` (`bench/javaagent.rs`).
    javaagent_only: bool,
    /// Only the Parquet export's cell (`bench/parquet_export.rs`).
    parquet_only: bool,
    /// Only the answers on a deep recursive-descent trace (`bench/deep.rs`).
    deep_only: bool,
    /// javac's and the families' JDK; MooBench is compiled with its javac.
    jdk: PathBuf,
    /// The JDKs MooBench runs on; one that is missing is reported as skipped.
    moo_jdks: Vec<PathBuf>,
    /// JDK 21+ for the virtual-thread family (skipped if it has no java/javac).
    jdk_vthreads: PathBuf,
    runs: usize,
    /// MooBench outer iterations in every cell but jvmti.
    moo_n: u64,
    /// MooBench outer iterations with mode=jvmti (smaller: it is 100x+ slower).
    moo_n_jvmti: u64,
    /// Generated source files javac compiles.
    files: usize,
    writer_events: u64,
    /// N of the callgrind runs (N and 2N events).
    callgrind_events: u64,
}

impl Config {
    fn parse(args: &[String]) -> Result<Config, String> {
        let quick = args.iter().any(|a| a == "--quick");
        let mut c = Config {
            quick,
            families_only: args.iter().any(|a| a == "--families"),
            cost_only: args.iter().any(|a| a == "--cost"),
            cells: Vec::new(),
            mvn_test_only: args.iter().any(|a| a == "--mvn-test"),
            javaagent_only: args.iter().any(|a| a == "--javaagent"),
            parquet_only: args.iter().any(|a| a == "--parquet"),
            deep_only: args.iter().any(|a| a == "--deep"),
            jdk: PathBuf::from(DEFAULT_JDK),
            moo_jdks: DEFAULT_MOO_JDKS.iter().map(PathBuf::from).collect(),
            jdk_vthreads: PathBuf::from(DEFAULT_JDK_VTHREADS),
            runs: if quick { 1 } else { 3 },
            moo_n: if quick { 200_000 } else { 2_000_000 },
            moo_n_jvmti: if quick { 20_000 } else { 500_000 },
            files: if quick { 20 } else { 100 },
            writer_events: if quick { 5_000_000 } else { 20_000_000 },
            callgrind_events: if quick { 200_000 } else { 1_000_000 },
        };
        let mut it = args.iter();
        while let Some(a) = it.next() {
            if matches!(
                a.as_str(),
                "--quick"
                    | "--families"
                    | "--cost"
                    | "--mvn-test"
                    | "--parquet"
                    | "--javaagent"
                    | "--deep"
            ) {
                continue;
            }
            let mut value = || {
                it.next()
                    .ok_or_else(|| format!("{a} needs a value\n{USAGE}"))
            };
            let num = |v: &String| -> Result<u64, String> {
                v.replace('_', "")
                    .parse::<u64>()
                    .ok()
                    .filter(|&n| n > 0)
                    .ok_or_else(|| format!("{a}: not a positive number: {v}"))
            };
            match a.as_str() {
                "--jdk" => c.jdk = PathBuf::from(value()?),
                "--moo-jdks" => {
                    c.moo_jdks = value()?
                        .split(',')
                        .filter(|p| !p.is_empty())
                        .map(PathBuf::from)
                        .collect()
                }
                "--jdk-vthreads" => c.jdk_vthreads = PathBuf::from(value()?),
                "--cells" => {
                    c.cells = value()?.split(',').map(str::to_string).collect();
                    if let Some(bad) = c.cells.iter().find(|n| !cost::CELLS.contains(&n.as_str())) {
                        return Err(format!(
                            "--cells: no cell {bad:?} (cells: {})",
                            cost::CELLS.join(", ")
                        ));
                    }
                }
                "--runs" => c.runs = num(value()?)? as usize,
                "--moo-n" => c.moo_n = num(value()?)?,
                "--moo-n-jvmti" => c.moo_n_jvmti = num(value()?)?,
                "--files" => c.files = num(value()?)? as usize,
                "--writer-events" => c.writer_events = num(value()?)?,
                "--callgrind-events" => c.callgrind_events = num(value()?)?,
                _ => return Err(format!("unknown argument {a}\n{USAGE}")),
            }
        }
        Ok(c)
    }
}

/// What every part of the bench shares: the configuration and the private copies of
/// what it runs.
pub struct Env {
    cfg: Config,
    /// The agent, copied out of target/release.
    agent: PathBuf,
    /// The `jtrace` command, copied out of target/release.
    jtrace: PathBuf,
    /// JFR settings for the JFR cell ([`jvm::JFC`]).
    jfc: PathBuf,
    /// The temporary directory everything is written to (traces in `run/`).
    work: PathBuf,
    /// MooBench's classes (compiled for Java 17, run on every JDK).
    classes: PathBuf,
    time: bool,
    timeout: bool,
}

impl Env {
    /// `java` under `/usr/bin/time -f '%M %U %S' -o RSS_FILE` and `timeout` when they
    /// exist ([`read_time`] reads the file).
    fn command(&self, java: crate::java::Run, rss_file: &Path) -> Command {
        if !self.time {
            return java.command();
        }
        let mut c = Command::new(GNU_TIME);
        c.arg("-f").arg("%M %U %S").arg("-o").arg(rss_file);
        if self.timeout {
            c.arg(TIMEOUT)
                .arg("-k")
                .arg("10")
                .arg(RUN_LIMIT.as_secs().to_string());
        }
        java.under(&mut c);
        c
    }
}

/// (peak RSS in KiB, user + system CPU seconds) from the file `/usr/bin/time -f '%M %U
/// %S'` wrote (its last line; earlier lines may say the command failed).
fn read_time(file: &Path) -> (Option<u64>, Option<f64>) {
    let text = std::fs::read_to_string(file).unwrap_or_default();
    let mut w = text.lines().last().unwrap_or("").split_whitespace();
    let rss = w.next().and_then(|v| v.parse().ok());
    let cpu = match (w.next(), w.next()) {
        (Some(u), Some(s)) => u.parse::<f64>().ok().zip(s.parse::<f64>().ok()),
        _ => None,
    };
    (rss, cpu.map(|(u, s)| u + s))
}

/// Why a benchmark JVM failed: its exit status, when, and the last lines of stderr.
fn failed_run(status: std::process::ExitStatus, wall: f64, stderr: &str) -> String {
    let tail: Vec<&str> = stderr.lines().rev().take(8).collect();
    let tail: Vec<&str> = tail.into_iter().rev().collect();
    format!(
        "exit status {status} after {wall:.1} s; stderr tail:\n    {}",
        tail.join("\n    ")
    )
}

/// The number after `key` on the first stdout line that starts with it
/// (`loop_ns=123`).
fn stdout_field(stdout: &str, key: &str) -> Option<u64> {
    stdout
        .lines()
        .find_map(|l| l.strip_prefix(key))
        .and_then(|v| v.trim().parse().ok())
}

/// `f(v)` or `-`, for table cells.
fn fmt_opt<T>(v: Option<T>, f: impl FnOnce(T) -> String) -> String {
    v.map_or_else(|| "-".to_string(), f)
}

pub fn run(args: &[String]) -> bool {
    let cfg = match Config::parse(args) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("{e}");
            return false;
        }
    };
    match bench(cfg) {
        Ok(ok) => ok,
        Err(e) => {
            eprintln!("bench: {e}");
            false
        }
    }
}

fn bench(cfg: Config) -> Result<bool, String> {
    let javac = cfg.jdk.join("bin/javac");
    if !crate::java::java_in(&cfg.jdk).is_file() || !javac.is_file() {
        return Err(format!("no java/javac in {}", cfg.jdk.display()));
    }
    eprintln!("bench: building the agent, jtrace and writer_bench (release)");
    util::build_release()?;
    util::cargo_status(&[
        "build",
        "--release",
        "--quiet",
        "-p",
        "trace",
        "--example",
        "writer_bench",
    ])?;
    // Now, not at the end: others may commit while the bench runs.
    let rev = revision();
    let root = util::root();
    let work = std::env::temp_dir().join(format!("jtrace-bench-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&work);
    std::fs::create_dir_all(&work).map_err(|e| format!("{}: {e}", work.display()))?;
    // Private copies: other work may rebuild target/release while the bench runs, and
    // every cell must measure the same binaries.
    for (from, to) in [
        ("target/release/libjtrace.so", "libjtrace.so"),
        ("target/release/jtrace", "jtrace"),
        ("target/release/examples/writer_bench", "writer_bench"),
    ] {
        std::fs::copy(root.join(from), work.join(to))
            .map_err(|e| format!("copying {from}: {e}"))?;
    }
    let jfc = work.join("method-trace.jfc");
    std::fs::write(&jfc, jvm::JFC).map_err(|e| format!("{}: {e}", jfc.display()))?;
    let env = Env {
        agent: work.join("libjtrace.so"),
        jtrace: work.join("jtrace"),
        jfc,
        classes: work.join("classes"),
        time: Path::new(GNU_TIME).is_file(),
        timeout: Path::new(TIMEOUT).is_file(),
        work: work.clone(),
        cfg,
    };
    let result = bench_in(&env, &javac, &rev);
    let _ = std::fs::remove_dir_all(&work);
    result
}

fn bench_in(env: &Env, javac: &Path, rev: &str) -> Result<bool, String> {
    let root = util::root();
    let mut sources: Vec<PathBuf> = std::fs::read_dir(root.join("bench/moobench"))
        .map_err(|e| format!("bench/moobench: {e}"))?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "java"))
        .collect();
    sources.sort();
    let jdk = crate::java::Jdk::at(javac.parent().and_then(Path::parent).unwrap_or(javac));
    crate::java::javac(&jdk, &env.classes, &["--release", "17"], &sources)
        .map_err(|e| format!("javac bench/moobench failed: {e}"))?;

    let mut report = String::new();
    let _ = writeln!(report, "\n{}", machine(&env.cfg.jdk));
    let _ = writeln!(report, "agent source (when built): {rev}");
    let mut ok = true;
    let mut loads = vec![("start", load_average())];
    if env.cfg.mvn_test_only {
        let t = mvn_test::run(env);
        println!("{report}{t}");
        return Ok(!t.contains("FAILED"));
    }
    if env.cfg.javaagent_only {
        let t = javaagent::run(env);
        println!("{report}{t}");
        return Ok(!t.contains("FAILED"));
    }
    if env.cfg.deep_only {
        let t = deep::run(&env.jtrace, &env.agent, &env.cfg.jdk, &env.work);
        println!("{report}{t}");
        return Ok(!t.contains("FAILED"));
    }
    if env.cfg.parquet_only {
        let t = parquet_export::run(env);
        println!("{report}{t}");
        return Ok(!t.contains("FAILED"));
    }
    if !env.cfg.families_only {
        let cost = cost::run(env);
        loads.push(("after issue 18's cells", load_average()));
        report.push_str(&cost.text);
        report.push('\n');
        ok &= cost.ok;
    }
    if !env.cfg.families_only && !env.cfg.cost_only {
        let moo = moo::run(env);
        loads.push(("after MooBench", load_average()));
        let javac = javac::run(env);
        loads.push(("after javac", load_average()));
        let run_dir = env.work.join("run");
        let mut sizes = vec![("MooBench .xml size", moo::largest_xml(&moo))];
        if javac::xml_bytes(&javac) > 0 {
            sizes.push(("javac .xml size", javac::xml_bytes(&javac)));
        }
        let disks: Vec<(&str, Result<disk::Bandwidth, String>)> = sizes
            .iter()
            .filter(|(_, b)| *b > 0)
            .map(|&(what, b)| {
                eprintln!("bench: disk bandwidth, {:.2} GB ({what})", b as f64 / 1e9);
                (what, disk::measure(&run_dir, b))
            })
            .collect();
        let _ = std::fs::remove_dir_all(&run_dir);
        let writer = renderer::writer_bench(env);
        let callgrind = renderer::callgrind(env);
        loads.push(("after the renderer", load_average()));

        let _ = writeln!(
            report,
            "{}runs per cell: {} (best kept: lowest loop time, javac lowest wall); moobench N={} (jvmti N={}), depth {DEPTH}; javac: {} generated files, JDK {}\n",
            if env.cfg.quick { "--quick: " } else { "" },
            env.cfg.runs,
            env.cfg.moo_n,
            env.cfg.moo_n_jvmti,
            env.cfg.files,
            env.cfg.jdk.display()
        );
        let _ = writeln!(report, "MooBench (moobench.MooBench N {DEPTH})");
        report.push_str(&moo::table(&moo));
        report.push('\n');
        let _ = writeln!(report, "javac, include=com.sun.tools.*");
        report.push_str(&javac::table(&javac));
        report.push('\n');
        report.push_str(&disk::report(&run_dir, &disks));
        report.push('\n');
        for line in &writer {
            let _ = writeln!(report, "{line}");
        }
        report.push_str(&callgrind);
        report.push_str(&answers::cell(
            &env.jtrace,
            &env.agent,
            &env.cfg.jdk,
            &env.work,
        ));
        report.push_str(&deep::run(&env.jtrace, &env.agent, &env.cfg.jdk, &env.work));
        let mut renders = Vec::new();
        for j in &moo {
            if let (Some(v), Ok(_)) = (j.version, &j.cells) {
                renders.push((
                    format!("(MooBench .jtr, JDK {v})"),
                    j.cell(jvm::Tracer::Jtr).and_then(|s| s.render),
                ));
            }
        }
        renders.push((
            "(javac .jtr)".to_string(),
            javac
                .iter()
                .find(|c| c.tracer == jvm::Tracer::Jtr)
                .and_then(|c| c.result.as_ref().ok())
                .and_then(|s| s.render),
        ));
        report.push_str(&renderer::jtrace_xml(&renders));
        report.push_str(&parquet_export::run(env));
        report.push('\n');
        let mvn = mvn_test::run(env);
        loads.push(("after mvn test", load_average()));
        ok &= !mvn.contains("FAILED");
        report.push_str(&mvn);
        report.push('\n');
        let ja = javaagent::run(env);
        ok &= !ja.contains("FAILED");
        report.push_str(&ja);
        report.push('\n');
        let moo_disk = disks
            .iter()
            .find(|(w, _)| w.starts_with("MooBench"))
            .and_then(|(_, r)| r.as_ref().ok())
            .map(|b| b.disk_bps);
        report.push_str(&moo::targets(&moo, moo_disk));
        report.push_str(&javac::targets(&javac));
        report.push('\n');
        ok &= moo
            .iter()
            .filter_map(|j| j.cells.as_ref().ok())
            .flatten()
            .all(|c| {
                c.result
                    .as_ref()
                    .map_or_else(|e| e.starts_with("skipped"), |_| true)
            });
        ok &= javac.iter().all(|c| c.result.is_ok());
        ok &= disks.iter().all(|(_, r)| r.is_ok());
        ok &= writer.iter().all(|l| !l.contains("FAILED")) && !callgrind.contains("FAILED");
    }
    if !env.cfg.cost_only {
        let fam = families::run(env);
        loads.push(("end", load_average()));
        report.push_str(&families::table(env, &fam));
        ok &= fam.iter().all(|r| r.result.is_ok());
    }
    let _ = writeln!(
        report,
        "\nload average (1/5/15 min): {}",
        loads
            .iter()
            .map(|(when, l)| format!("{when} {l}"))
            .collect::<Vec<_>>()
            .join("; ")
    );
    println!("{report}");
    if !ok {
        eprintln!("bench: some runs failed (see the tables)");
    }
    Ok(ok)
}

fn machine(jdk: &Path) -> String {
    let cpus = std::thread::available_parallelism().map_or(0, |n| n.get());
    let model = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|c| {
            c.lines()
                .find_map(|l| l.strip_prefix("model name"))
                .map(|v| v.trim_start_matches([' ', '\t', ':']).to_string())
        })
        .unwrap_or_else(|| "unknown CPU".into());
    let version = crate::java::Run::home(jdk)
        .arg("-version")
        .output()
        .ok()
        .and_then(|o| {
            String::from_utf8_lossy(&o.stderr)
                .lines()
                .nth(1)
                .map(str::to_string)
        })
        .unwrap_or_else(|| "unknown JDK".into());
    format!(
        "machine: {cpus} CPUs, {model}; JDK (javac, families): {} ({version})",
        jdk.display()
    )
}

/// `git describe --always --dirty`: which agent was measured (other work may be uncommitted).
fn revision() -> String {
    Command::new("git")
        .args(["describe", "--always", "--dirty"])
        .current_dir(util::root())
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_else(|| "unknown".into())
}

fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|l| l.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "n/a".into())
}
