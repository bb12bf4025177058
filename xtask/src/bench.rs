//! `cargo xtask bench`: runs each workload without the agent, with mode=jvmti and with mode=bci side by side in one run, and prints the costs.
//!
//! Workloads: a MooBench-style recursion (bench/moobench) and the JDK's own javac
//! compiling generated sources; then the writer micro-benchmark
//! (agent/examples/writer_bench.rs); then, per event family (allocations, GC, monitors,
//! exceptions, lines, virtual threads), a small program that exercises it
//! (bench/families), without the agent, with the family off and with it on
//! (`--families` runs only these). What each number means: docs/BENCHMARKS.md.
//! A mode that fails is reported with its error and the run goes on.

use crate::util;
use std::fmt::Write as _;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

const DEFAULT_JDK: &str = "/usr/lib/jvm/java-17-openjdk-amd64";
/// The JDK (21+) the virtual-thread family runs on.
const DEFAULT_JDK_VTHREADS: &str = "/usr/lib/jvm/temurin-25-jdk-amd64";
const GNU_TIME: &str = "/usr/bin/time";
const TIMEOUT: &str = "/usr/bin/timeout";
/// No single JVM run may take longer than this.
const RUN_LIMIT: Duration = Duration::from_secs(900);
const DEPTH: u64 = 10;
const MODES: [Option<&str>; 3] = [None, Some("jvmti"), Some("bci")];

const USAGE: &str = "usage: cargo xtask bench [--quick] [--families] [--jdk PATH] [--jdk-vthreads PATH] [--runs N] [--moo-n N] [--moo-n-jvmti N] [--files N] [--writer-events N]";

struct Config {
    quick: bool,
    /// Only the event-family programs (no MooBench, javac, writer).
    families_only: bool,
    jdk: PathBuf,
    /// JDK 21+ for the virtual-thread family (skipped if it has no java/javac).
    jdk_vthreads: PathBuf,
    runs: usize,
    /// MooBench outer iterations without the agent and with mode=bci.
    moo_n: u64,
    /// MooBench outer iterations with mode=jvmti (smaller: it is 100x+ slower).
    moo_n_jvmti: u64,
    /// Generated source files javac compiles.
    files: usize,
    writer_events: u64,
}

impl Config {
    fn parse(args: &[String]) -> Result<Config, String> {
        let quick = args.iter().any(|a| a == "--quick");
        let mut c = Config {
            quick,
            families_only: args.iter().any(|a| a == "--families"),
            jdk: PathBuf::from(DEFAULT_JDK),
            jdk_vthreads: PathBuf::from(DEFAULT_JDK_VTHREADS),
            runs: if quick { 1 } else { 3 },
            moo_n: if quick { 200_000 } else { 2_000_000 },
            moo_n_jvmti: if quick { 20_000 } else { 500_000 },
            files: if quick { 50 } else { 100 },
            writer_events: if quick { 5_000_000 } else { 20_000_000 },
        };
        let mut it = args.iter();
        while let Some(a) = it.next() {
            if a == "--quick" || a == "--families" {
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
                "--jdk-vthreads" => c.jdk_vthreads = PathBuf::from(value()?),
                "--runs" => c.runs = num(value()?)? as usize,
                "--moo-n" => c.moo_n = num(value()?)?,
                "--moo-n-jvmti" => c.moo_n_jvmti = num(value()?)?,
                "--files" => c.files = num(value()?)? as usize,
                "--writer-events" => c.writer_events = num(value()?)?,
                _ => return Err(format!("unknown argument {a}\n{USAGE}")),
            }
        }
        Ok(c)
    }
}

#[derive(Clone, Copy, PartialEq)]
enum Workload {
    Moo,
    Javac,
}

impl Workload {
    fn name(self) -> &'static str {
        match self {
            Workload::Moo => "moobench",
            Workload::Javac => "javac",
        }
    }
}

/// One JVM run's measurements.
#[derive(Clone, Default)]
struct Sample {
    wall: f64,
    /// The program's own timing of its measured loop (MooBench only).
    loop_s: Option<f64>,
    /// Calls the program says it made (MooBench only).
    prog_calls: Option<u64>,
    rss_kb: Option<u64>,
    /// Traced calls (sum of the trace's methodCount elements).
    entries: u64,
    trace_bytes: u64,
    /// The trace ends with `</TRACE>` (the agent closed it).
    closed: bool,
}

impl Sample {
    /// What "best of N" minimises: the program's own loop time if it has one.
    fn key(&self) -> f64 {
        self.loop_s.unwrap_or(self.wall)
    }
}

/// The best sample of one (workload, mode), or why it failed.
struct Row {
    workload: Workload,
    mode: &'static str,
    result: Result<Sample, String>,
}

struct Env {
    cfg: Config,
    java: PathBuf,
    agent: PathBuf,
    work: PathBuf,
    classes: PathBuf,
    argfile: PathBuf,
    time: bool,
    timeout: bool,
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
    let java = cfg.jdk.join("bin/java");
    let javac = cfg.jdk.join("bin/javac");
    if !java.is_file() || !javac.is_file() {
        return Err(format!("no java/javac in {}", cfg.jdk.display()));
    }
    eprintln!("bench: building the agent and writer_bench (release)");
    let built = util::cargo()
        .args(["build", "--release", "-p", "jtrace", "--lib"])
        .args(["--example", "writer_bench"])
        .status()
        .map_err(|e| format!("cannot run cargo: {e}"))?;
    if !built.success() {
        return Err("cargo build --release -p jtrace failed".into());
    }
    // Now, not at the end: others may commit while the bench runs.
    let rev = revision();
    let root = util::root();
    let work = std::env::temp_dir().join(format!("jtrace-bench-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&work);
    std::fs::create_dir_all(&work).map_err(|e| format!("{}: {e}", work.display()))?;
    // A private copy: other work may rebuild target/release while the bench runs, and
    // every mode must measure the same agent.
    let agent = work.join("libjtrace.so");
    std::fs::copy(root.join("target/release/libjtrace.so"), &agent)
        .map_err(|e| format!("copying libjtrace.so: {e}"))?;
    std::fs::copy(
        root.join("target/release/examples/writer_bench"),
        work.join("writer_bench"),
    )
    .map_err(|e| format!("copying writer_bench: {e}"))?;
    let result = bench_in(cfg, java, javac, agent, work.clone(), &rev);
    let _ = std::fs::remove_dir_all(&work);
    result
}

fn bench_in(
    cfg: Config,
    java: PathBuf,
    javac: PathBuf,
    agent: PathBuf,
    work: PathBuf,
    rev: &str,
) -> Result<bool, String> {
    let root = util::root();
    let classes = work.join("classes");
    let mut sources: Vec<PathBuf> = std::fs::read_dir(root.join("bench/moobench"))
        .map_err(|e| format!("bench/moobench: {e}"))?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "java"))
        .collect();
    sources.sort();
    let out = Command::new(&javac)
        .arg("-d")
        .arg(&classes)
        .args(&sources)
        .output()
        .map_err(|e| format!("cannot run javac: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "javac bench/moobench failed: {}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    let argfile = if cfg.families_only {
        PathBuf::new()
    } else {
        generate_sources(&work.join("gen-src"), cfg.files)?
    };

    let env = Env {
        java,
        agent,
        classes,
        argfile,
        time: Path::new(GNU_TIME).is_file(),
        timeout: Path::new(TIMEOUT).is_file(),
        work,
        cfg,
    };
    let load_before = load_average();
    let mut rows = Vec::new();
    let mut writer = Vec::new();
    if !env.cfg.families_only {
        for workload in [Workload::Moo, Workload::Javac] {
            for mode in MODES {
                rows.push(measure(&env, workload, mode));
            }
        }
        writer = writer_bench(&env);
    }
    let fam = families(&env);
    let load_after = load_average();

    let mut report = String::new();
    let _ = writeln!(report, "\n{}", machine(&env));
    let _ = writeln!(report, "agent source (when built): {rev}");
    let _ = writeln!(
        report,
        "load average before/after: {load_before} / {load_after}"
    );
    if !env.cfg.families_only {
        let _ = writeln!(
            report,
            "{}runs per cell: {} (best kept); moobench N={} (jvmti N={}), depth {DEPTH}; javac: {} generated files\n",
            if env.cfg.quick { "--quick: " } else { "" },
            env.cfg.runs,
            env.cfg.moo_n,
            env.cfg.moo_n_jvmti,
            env.cfg.files
        );
        report.push_str(&table(&rows));
        report.push('\n');
        for line in &writer {
            let _ = writeln!(report, "{line}");
        }
        report.push('\n');
    }
    report.push_str(&families_table(&env, &fam));
    println!("{report}");
    let all_ok = rows.iter().all(|r| r.result.is_ok())
        && writer.iter().all(|l| !l.contains("FAILED"))
        && fam.iter().all(|r| r.result.is_ok());
    if !all_ok {
        eprintln!("bench: some runs failed (see the table)");
    }
    Ok(all_ok)
}

/// Writes `n` small interdependent classes (fields, loops, generics, lambdas, an enum,
/// a nested interface, a call into the previous class) and an `@argfile` naming them.
fn generate_sources(dir: &Path, n: usize) -> Result<PathBuf, String> {
    let mut list = String::new();
    for i in 0..n {
        let pkg = format!("gen.p{}", i % 10);
        let pdir = dir.join(pkg.replace('.', "/"));
        std::fs::create_dir_all(&pdir).map_err(|e| format!("{}: {e}", pdir.display()))?;
        let prev = if i == 0 {
            String::from("return m0(3);")
        } else {
            format!(
                "return new gen.p{}.C{}(counter).m0(3) + m0(2);",
                (i - 1) % 10,
                i - 1
            )
        };
        let src = format!(
            r#"package {pkg};

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

public class C{i} {{
    public enum Kind {{ A, B, C }}

    public interface Shape {{ double area(); }}

    private final List<String> names = new ArrayList<>();
    private int counter;

    public C{i}(int seed) {{
        counter = seed;
        names.add("c{i}-" + seed);
    }}

    public int m0(int x) {{
        int s = 0;
        for (int k = 0; k < x; k++) {{
            s += k * {i} + counter;
        }}
        return s;
    }}

    public String m1(String a) {{
        return a + ":" + counter + "/" + names.size();
    }}

    public Map<String, Integer> m2(List<String> in) {{
        Map<String, Integer> m = new HashMap<>();
        for (String s : in) {{
            m.merge(s, 1, Integer::sum);
        }}
        return m;
    }}

    public Optional<String> m3() {{
        return names.stream().filter(s -> s.length() > 3).map(String::toUpperCase).findFirst();
    }}

    public long m4() {{
        {prev}
    }}

    public int m5(Kind k) {{
        switch (k) {{
            case A: return 1;
            case B: return counter;
            default: return m0(counter & 7);
        }}
    }}

    public Shape m6(double r) {{
        return () -> Math.PI * r * r + {i};
    }}

    @Override
    public String toString() {{
        return "C{i}[" + counter + ", " + names + "]";
    }}
}}
"#
        );
        let file = pdir.join(format!("C{i}.java"));
        std::fs::write(&file, src).map_err(|e| format!("{}: {e}", file.display()))?;
        let _ = writeln!(list, "{}", file.display());
    }
    let argfile = dir.join("sources.txt");
    std::fs::write(&argfile, list).map_err(|e| format!("{}: {e}", argfile.display()))?;
    Ok(argfile)
}

/// Runs one (workload, mode) `runs` times and keeps the best; stops at the first failure.
fn measure(env: &Env, workload: Workload, mode: Option<&'static str>) -> Row {
    let label = mode.unwrap_or("none");
    let mut best: Option<Sample> = None;
    for i in 1..=env.cfg.runs {
        eprint!(
            "bench: {:<8} {:<5} run {i}/{}: ",
            workload.name(),
            label,
            env.cfg.runs
        );
        match run_once(env, workload, mode) {
            Ok(s) => {
                eprintln!(
                    "wall {:.3} s{}, {} entries, trace {:.1} MB{}",
                    s.wall,
                    s.loop_s
                        .map(|l| format!(", loop {l:.3} s"))
                        .unwrap_or_default(),
                    s.entries,
                    s.trace_bytes as f64 / 1e6,
                    if mode.is_some() && !s.closed {
                        " (NOT CLOSED)"
                    } else {
                        ""
                    }
                );
                if best.as_ref().is_none_or(|b| s.key() < b.key()) {
                    best = Some(s);
                }
            }
            Err(e) => {
                eprintln!("FAILED\n{e}");
                return Row {
                    workload,
                    mode: label,
                    result: Err(e),
                };
            }
        }
    }
    Row {
        workload,
        mode: label,
        result: best.ok_or_else(|| "no run".to_string()),
    }
}

fn run_once(env: &Env, workload: Workload, mode: Option<&str>) -> Result<Sample, String> {
    let dir = env.work.join("run");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let trace = dir.join("trace.xml");
    let rss_file = dir.join("rss.txt");

    let mut cmd = if env.time {
        let mut c = Command::new(GNU_TIME);
        c.arg("-f").arg("%M").arg("-o").arg(&rss_file);
        c
    } else {
        Command::new(env.java.as_os_str())
    };
    if env.time {
        if env.timeout {
            cmd.arg(TIMEOUT)
                .arg("-k")
                .arg("10")
                .arg(RUN_LIMIT.as_secs().to_string());
        }
        cmd.arg(&env.java);
    }
    if let Some(m) = mode {
        let include = match workload {
            Workload::Moo => "",
            Workload::Javac => ",include=com.sun.tools.*",
        };
        cmd.arg(format!(
            "-agentpath:{}=out={},mode={m}{include}",
            env.agent.display(),
            trace.display()
        ));
    }
    match workload {
        Workload::Moo => {
            let n = if mode == Some("jvmti") {
                env.cfg.moo_n_jvmti
            } else {
                env.cfg.moo_n
            };
            cmd.arg("-cp")
                .arg(&env.classes)
                .arg("moobench.MooBench")
                .arg(n.to_string())
                .arg(DEPTH.to_string());
        }
        Workload::Javac => {
            cmd.arg("-m")
                .arg("jdk.compiler/com.sun.tools.javac.Main")
                .arg("-proc:none")
                .arg("-d")
                .arg(dir.join("out"))
                .arg(format!("@{}", env.argfile.display()));
        }
    }
    cmd.current_dir(&dir);
    let start = Instant::now();
    let out = cmd
        .output()
        .map_err(|e| format!("cannot start {}: {e}", env.java.display()))?;
    let wall = start.elapsed().as_secs_f64();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    if !out.status.success() {
        let tail: Vec<&str> = stderr.lines().rev().take(8).collect();
        let tail: Vec<&str> = tail.into_iter().rev().collect();
        let _ = std::fs::remove_dir_all(&dir);
        return Err(format!(
            "exit status {} after {wall:.1} s; stderr tail:\n    {}",
            out.status,
            tail.join("\n    ")
        ));
    }
    let field = |k: &str| {
        stdout
            .lines()
            .find_map(|l| l.strip_prefix(k))
            .and_then(|v| v.trim().parse::<u64>().ok())
    };
    let mut s = Sample {
        wall,
        loop_s: field("loop_ns=").map(|ns| ns as f64 / 1e9),
        prog_calls: field("calls="),
        rss_kb: std::fs::read_to_string(&rss_file)
            .ok()
            .and_then(|t| t.lines().last().and_then(|l| l.trim().parse().ok())),
        ..Sample::default()
    };
    if workload == Workload::Moo && (s.loop_s.is_none() || s.prog_calls.is_none()) {
        return Err(format!("MooBench printed no loop_ns/calls: {stdout}"));
    }
    if mode.is_some() {
        let scan = scan_trace(&trace);
        let _ = std::fs::remove_dir_all(&dir);
        let (calls, bytes, closed) = scan.map_err(|e| format!("trace {}: {e}", trace.display()))?;
        s.entries = calls;
        s.trace_bytes = bytes;
        s.closed = closed;
    } else {
        let _ = std::fs::remove_dir_all(&dir);
    }
    Ok(s)
}

/// Bytes read from the end of a trace to find its `methodCount` elements.
const TAIL: u64 = 64 << 20;

/// Traced calls from the trace's own `<methodCount>` elements (written after
/// `</traceEnd>`, one per method, count = its `methodEntry` elements), read from the
/// tail only: a full scan of a multi-GB trace would take longer than the run itself.
/// Returns (calls, bytes, the document ends with `</TRACE>`).
fn scan_trace(path: &Path) -> std::io::Result<(u64, u64, bool)> {
    let mut f = File::open(path)?;
    let bytes = f.metadata()?.len();
    f.seek(SeekFrom::Start(bytes.saturating_sub(TAIL)))?;
    let mut tail = Vec::new();
    f.read_to_end(&mut tail)?;
    let text = String::from_utf8_lossy(&tail);
    let closed = text.trim_end().ends_with("</TRACE>");
    let Some(at) = text.rfind("</traceEnd>") else {
        let why = if closed {
            "no </traceEnd> in the last 64 MiB"
        } else {
            "the trace was not closed"
        };
        return Err(std::io::Error::other(why));
    };
    let calls = text[at..]
        .split("<methodCount ")
        .skip(1)
        .filter_map(|el| {
            let v = el.split("count=\"").nth(1)?;
            v.split('"').next()?.parse::<u64>().ok()
        })
        .sum();
    Ok((calls, bytes, closed))
}

/// Runs the writer micro-benchmark; returns its output lines (or a FAILED line).
fn writer_bench(env: &Env) -> Vec<String> {
    eprintln!(
        "bench: writer_bench, {} events into a sink and into a file",
        env.cfg.writer_events
    );
    let exe = env.work.join("writer_bench");
    let out = Command::new(&exe)
        .arg(env.cfg.writer_events.to_string())
        .arg(env.work.join("writer-bench.xml"))
        .output();
    match out {
        Ok(o) if o.status.success() => String::from_utf8_lossy(&o.stdout)
            .lines()
            .map(str::to_string)
            .collect(),
        Ok(o) => vec![format!(
            "writer_bench FAILED ({}): {}",
            o.status,
            String::from_utf8_lossy(&o.stderr).trim()
        )],
        Err(e) => vec![format!(
            "writer_bench FAILED: cannot run {}: {e}",
            exe.display()
        )],
    }
}

fn machine(env: &Env) -> String {
    let cpus = std::thread::available_parallelism().map_or(0, |n| n.get());
    let model = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|c| {
            c.lines()
                .find_map(|l| l.strip_prefix("model name"))
                .map(|v| v.trim_start_matches([' ', '\t', ':']).to_string())
        })
        .unwrap_or_else(|| "unknown CPU".into());
    let version = Command::new(&env.java)
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
        "machine: {cpus} CPUs, {model}; JDK: {} ({version})",
        env.cfg.jdk.display()
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

fn table(rows: &[Row]) -> String {
    let mut t = String::new();
    let _ = writeln!(
        t,
        "{:<9} {:<6} {:>11} {:>8} {:>8} {:>9} {:>8} {:>12} {:>9} {:>9} {:>12} {:>9} {:>8} {:>8}  note",
        "workload",
        "mode",
        "calls",
        "wall s",
        "loop s",
        "ns/call",
        "slowdown",
        "traced",
        "+ns/call",
        "+ns(wall)",
        "events/s",
        "trace MB",
        "MB/s",
        "RSS MB"
    );
    for w in [Workload::Moo, Workload::Javac] {
        let base = rows
            .iter()
            .find(|r| r.workload == w && r.mode == "none")
            .and_then(|r| r.result.as_ref().ok());
        for r in rows.iter().filter(|r| r.workload == w) {
            let s = match &r.result {
                Ok(s) => s,
                Err(e) => {
                    let first = e.lines().next().unwrap_or("");
                    let _ = writeln!(
                        t,
                        "{:<9} {:<6} FAILED: {}",
                        w.name(),
                        r.mode,
                        util::clip(first, 120)
                    );
                    continue;
                }
            };
            let per_call = |x: &Sample| match (x.loop_s, x.prog_calls) {
                (Some(l), Some(c)) if c > 0 => Some(l * 1e9 / c as f64),
                _ => None,
            };
            let traced = r.mode != "none";
            let dash = || "-".to_string();
            // MooBench: slowdown and added cost from the program's own loop timing, per
            // program call (N may differ per mode). javac: from wall time.
            let (slowdown, added_loop) = match (w, base) {
                (Workload::Moo, Some(b)) => match (per_call(s), per_call(b)) {
                    (Some(m), Some(bc)) => (
                        Some(m / bc),
                        (traced && s.entries > 0).then(|| {
                            (s.loop_s.unwrap_or(0.0) * 1e9 - bc * s.prog_calls.unwrap_or(0) as f64)
                                / s.entries as f64
                        }),
                    ),
                    _ => (None, None),
                },
                (Workload::Javac, Some(b)) => (Some(s.wall / b.wall), None),
                _ => (None, None),
            };
            let added_wall = match base {
                Some(b) if traced && s.entries > 0 => {
                    // Scale the baseline if this mode ran a different N (MooBench jvmti).
                    let base_wall = match (s.prog_calls, b.prog_calls, b.loop_s) {
                        (Some(c), Some(bc), Some(bl)) if bc > 0 => {
                            b.wall - bl + bl * c as f64 / bc as f64
                        }
                        _ => b.wall,
                    };
                    Some((s.wall - base_wall) * 1e9 / s.entries as f64)
                }
                _ => None,
            };
            let mut note = Vec::new();
            if traced && !s.closed {
                note.push("trace not closed".to_string());
            }
            if let (true, Some(c)) = (traced, s.prog_calls) {
                if s.entries < c {
                    note.push(format!("{} calls missing", c - s.entries));
                }
            }
            let _ = writeln!(
                t,
                "{:<9} {:<6} {:>11} {:>8.3} {:>8} {:>9} {:>8} {:>12} {:>9} {:>9} {:>12} {:>9} {:>8} {:>8}  {}",
                w.name(),
                r.mode,
                s.prog_calls.map_or_else(dash, |c| c.to_string()),
                s.wall,
                s.loop_s.map_or_else(dash, |l| format!("{l:.3}")),
                per_call(s).map_or_else(dash, |p| format!("{p:.1}")),
                slowdown.map_or_else(dash, |x| format!("{x:.2}x")),
                if traced { s.entries.to_string() } else { dash() },
                added_loop.map_or_else(dash, |x| format!("{x:.1}")),
                added_wall.map_or_else(dash, |x| format!("{x:.1}")),
                if traced {
                    format!("{:.0}", 2.0 * s.entries as f64 / s.wall)
                } else {
                    dash()
                },
                if traced {
                    format!("{:.1}", s.trace_bytes as f64 / 1e6)
                } else {
                    dash()
                },
                if traced {
                    format!("{:.1}", s.trace_bytes as f64 / 1e6 / s.wall)
                } else {
                    dash()
                },
                s.rss_kb.map_or_else(|| "n/a".into(), |k| format!("{:.0}", k as f64 / 1024.0)),
                note.join("; ")
            );
        }
    }
    t
}

/// One event family's benchmark: a program in bench/families that exercises it and
/// times its own loop (`loop_ns=`, `ops=` on stdout, like MooBench).
struct Family {
    name: &'static str,
    /// Main class, `families.<class>`.
    class: &'static str,
    /// The agent option that switches the family, its "off" value and the "on"
    /// values measured; `None`: the family has no switch (virtual threads).
    key: Option<(&'static str, &'static str, &'static [&'static str])>,
    /// JVM flags for every cell (the GC family's small heap).
    jvm: &'static [&'static str],
    /// Runs on `--jdk-vthreads` instead of `--jdk`.
    vthreads: bool,
    n: u64,
    n_quick: u64,
    /// What `ops=` counts.
    unit: &'static str,
}

const FAMILIES: [Family; 6] = [
    Family {
        name: "alloc",
        class: "Alloc",
        key: Some(("alloc", "off", &["exact", "sampled:65536"])),
        jvm: &[],
        vthreads: false,
        n: 1000,
        n_quick: 200,
        unit: "allocations",
    },
    Family {
        name: "gc",
        class: "Gc",
        key: Some(("gc", "off", &["on"])),
        jvm: &["-Xmx16m"],
        vthreads: false,
        n: 2000,
        n_quick: 500,
        unit: "collections",
    },
    Family {
        name: "monitors",
        class: "Monitors",
        key: Some(("monitors", "off", &["on"])),
        jvm: &[],
        vthreads: false,
        n: 2000,
        n_quick: 500,
        unit: "lock entries + hand-overs",
    },
    Family {
        name: "exceptions",
        class: "Exceptions",
        key: Some(("exceptions", "off", &["on"])),
        jvm: &[],
        vthreads: false,
        n: 200_000,
        n_quick: 50_000,
        unit: "exceptions thrown",
    },
    Family {
        name: "lines",
        class: "Lines",
        key: Some(("lines", "off", &["on"])),
        jvm: &[],
        vthreads: false,
        n: 500,
        n_quick: 100,
        unit: "statements executed",
    },
    Family {
        name: "vthreads",
        class: "VThreads",
        key: None,
        jvm: &[],
        vthreads: true,
        n: 100,
        n_quick: 20,
        unit: "virtual threads",
    },
];

/// One JVM run of a family program.
#[derive(Clone, Default)]
struct FamSample {
    loop_s: f64,
    ops: u64,
    wall: f64,
    rss_kb: Option<u64>,
    trace_bytes: u64,
    /// Elements in the trace (lines that open an element).
    elements: u64,
}

/// The best run of one (family, configuration) cell, or why it failed.
struct FamRow {
    family: &'static str,
    /// `none` (no agent), or the family option's value.
    config: String,
    result: Result<FamSample, String>,
}

/// Compiles bench/families and runs every family's cells; returns the rows in table order.
fn families(env: &Env) -> Vec<FamRow> {
    let mut rows = Vec::new();
    let root = util::root();
    let sources: Vec<PathBuf> = match std::fs::read_dir(root.join("bench/families")) {
        Ok(d) => d
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "java"))
            .collect(),
        Err(e) => {
            rows.push(FamRow {
                family: "all",
                config: "-".into(),
                result: Err(format!("bench/families: {e}")),
            });
            return rows;
        }
    };
    let vt = |p: &PathBuf| p.file_name().is_some_and(|n| n == "VThreads.java");
    let classes = env.work.join("fam-classes");
    let classes_vt = env.work.join("fam-classes-vt");
    let mut plain: Vec<PathBuf> = sources.iter().filter(|p| !vt(p)).cloned().collect();
    plain.sort();
    let vt_src: Vec<PathBuf> = sources.iter().filter(|p| vt(p)).cloned().collect();
    let compiled = compile(&env.cfg.jdk, &classes, &plain);
    let vt_java = env.cfg.jdk_vthreads.join("bin/java");
    let compiled_vt = if env.cfg.jdk_vthreads.join("bin/javac").is_file() && vt_java.is_file() {
        compile(&env.cfg.jdk_vthreads, &classes_vt, &vt_src)
    } else {
        Err(format!(
            "skipped: no JDK 21+ at {} (--jdk-vthreads)",
            env.cfg.jdk_vthreads.display()
        ))
    };
    for f in &FAMILIES {
        let (java, cp, ok) = if f.vthreads {
            (vt_java.clone(), &classes_vt, &compiled_vt)
        } else {
            (env.java.clone(), &classes, &compiled)
        };
        let mut configs: Vec<(String, Option<String>)> = vec![("none".into(), None)];
        match f.key {
            Some((key, off, ons)) => {
                configs.push((off.to_string(), Some(format!("{key}={off}"))));
                for on in ons {
                    configs.push((on.to_string(), Some(format!("{key}={on}"))));
                }
            }
            None => configs.push(("on".into(), Some(String::new()))),
        }
        for (config, opt) in configs {
            let result = match ok {
                Err(e) => Err(e.clone()),
                Ok(()) => fam_measure(env, f, &java, cp, &config, opt.as_deref()),
            };
            rows.push(FamRow {
                family: f.name,
                config,
                result,
            });
        }
    }
    rows
}

fn compile(jdk: &Path, out: &Path, sources: &[PathBuf]) -> Result<(), String> {
    let o = Command::new(jdk.join("bin/javac"))
        .arg("-d")
        .arg(out)
        .args(sources)
        .output()
        .map_err(|e| format!("cannot run javac: {e}"))?;
    if o.status.success() {
        Ok(())
    } else {
        Err(format!(
            "javac bench/families failed: {}",
            String::from_utf8_lossy(&o.stderr)
        ))
    }
}

/// Runs one cell `runs` times; keeps the run with the lowest loop time.
fn fam_measure(
    env: &Env,
    f: &Family,
    java: &Path,
    cp: &Path,
    config: &str,
    opt: Option<&str>,
) -> Result<FamSample, String> {
    let n = if env.cfg.quick { f.n_quick } else { f.n };
    let mut best: Option<FamSample> = None;
    for i in 1..=env.cfg.runs {
        eprint!(
            "bench: family {:<10} {:<13} run {i}/{}: ",
            f.name, config, env.cfg.runs
        );
        let s = fam_once(env, f, java, cp, n, opt).inspect_err(|e| eprintln!("FAILED\n{e}"))?;
        eprintln!(
            "loop {:.3} s, {} {}, wall {:.3} s, {} elements, trace {:.1} MB",
            s.loop_s,
            s.ops,
            f.unit,
            s.wall,
            s.elements,
            s.trace_bytes as f64 / 1e6
        );
        if best.as_ref().is_none_or(|b| s.loop_s < b.loop_s) {
            best = Some(s);
        }
    }
    best.ok_or_else(|| "no run".into())
}

fn fam_once(
    env: &Env,
    f: &Family,
    java: &Path,
    cp: &Path,
    n: u64,
    opt: Option<&str>,
) -> Result<FamSample, String> {
    let dir = env.work.join("fam-run");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let trace = dir.join("trace.xml");
    let rss_file = dir.join("rss.txt");
    let mut cmd = if env.time {
        let mut c = Command::new(GNU_TIME);
        c.arg("-f").arg("%M").arg("-o").arg(&rss_file);
        if env.timeout {
            c.arg(TIMEOUT)
                .arg("-k")
                .arg("10")
                .arg(RUN_LIMIT.as_secs().to_string());
        }
        c.arg(java);
        c
    } else {
        Command::new(java)
    };
    cmd.args(f.jvm);
    if let Some(o) = opt {
        let sep = if o.is_empty() { "" } else { "," };
        cmd.arg(format!(
            "-agentpath:{}=out={}{sep}{o}",
            env.agent.display(),
            trace.display()
        ));
    }
    cmd.arg("-cp")
        .arg(cp)
        .arg(format!("families.{}", f.class))
        .arg(n.to_string())
        .current_dir(&dir);
    let start = Instant::now();
    let out = cmd.output();
    let wall = start.elapsed().as_secs_f64();
    let result = (|| {
        let out = out.map_err(|e| format!("cannot start {}: {e}", java.display()))?;
        let stdout = String::from_utf8_lossy(&out.stdout);
        if !out.status.success() {
            let stderr = String::from_utf8_lossy(&out.stderr);
            let tail: Vec<&str> = stderr.lines().rev().take(8).collect();
            let tail: Vec<&str> = tail.into_iter().rev().collect();
            return Err(format!(
                "exit status {} after {wall:.1} s; stderr tail:\n    {}",
                out.status,
                tail.join("\n    ")
            ));
        }
        let field = |k: &str| {
            stdout
                .lines()
                .find_map(|l| l.strip_prefix(k))
                .and_then(|v| v.trim().parse::<u64>().ok())
        };
        let (Some(loop_ns), Some(ops)) = (field("loop_ns="), field("ops=")) else {
            return Err(format!(
                "families.{} printed no loop_ns/ops: {stdout}",
                f.class
            ));
        };
        let mut s = FamSample {
            loop_s: loop_ns as f64 / 1e9,
            ops,
            wall,
            rss_kb: std::fs::read_to_string(&rss_file)
                .ok()
                .and_then(|t| t.lines().last().and_then(|l| l.trim().parse().ok())),
            ..FamSample::default()
        };
        if opt.is_some() {
            let (elements, bytes) =
                count_elements(&trace).map_err(|e| format!("trace {}: {e}", trace.display()))?;
            s.elements = elements;
            s.trace_bytes = bytes;
        }
        Ok(s)
    })();
    let _ = std::fs::remove_dir_all(&dir);
    result
}

/// (elements, bytes) of a trace: the agent writes one element per line, so an element
/// is a line starting with `<` that is not a closing tag. Streams the file (traces of
/// the lines family are GBs).
fn count_elements(path: &Path) -> std::io::Result<(u64, u64)> {
    let mut f = File::open(path)?;
    let mut buf = vec![0u8; 1 << 20];
    let (mut elements, mut bytes) = (0u64, 0u64);
    // State carried across reads: 0 = inside a line, 1 = at a line start, 2 = saw `<`
    // at a line start.
    let mut state = 1u8;
    loop {
        let n = f.read(&mut buf)?;
        if n == 0 {
            break;
        }
        bytes += n as u64;
        for &b in &buf[..n] {
            state = match (state, b) {
                (_, b'\n') => 1,
                (1, b'<') => 2,
                (2, b) => {
                    if b != b'/' && b != b'?' {
                        elements += 1;
                    }
                    0
                }
                _ => 0,
            };
        }
    }
    Ok((elements, bytes))
}

fn families_table(env: &Env, rows: &[FamRow]) -> String {
    let mut t = String::new();
    let _ = writeln!(
        t,
        "event families (bench/families), mode=bci, every other option at its default; runs per cell: {} (lowest loop time kept){}; JDK {} (vthreads: {})\n",
        env.cfg.runs,
        if env.cfg.quick { ", --quick sizes" } else { "" },
        env.cfg.jdk.display(),
        env.cfg.jdk_vthreads.display()
    );
    let _ = writeln!(
        t,
        "{:<10} {:<13} {:>10} {:>8} {:>9} {:>8} {:>8} {:>10} {:>11} {:>11} {:>11} {:>9} {:>7}  ops are",
        "family",
        "config",
        "ops",
        "loop s",
        "ns/op",
        "x none",
        "on/off",
        "+ns/op",
        "elements",
        "+elements",
        "+elem/s",
        "trace MB",
        "RSS MB"
    );
    for f in &FAMILIES {
        let cell = |c: &str| {
            rows.iter()
                .find(|r| r.family == f.name && r.config == c)
                .and_then(|r| r.result.as_ref().ok())
        };
        let base = cell("none");
        // The family's "off" cell; without a switch, the no-agent run stands in.
        let off = match f.key {
            Some((_, off, _)) => cell(off),
            None => base,
        };
        for r in rows.iter().filter(|r| r.family == f.name) {
            let s = match &r.result {
                Ok(s) => s,
                Err(e) => {
                    let first = e.lines().next().unwrap_or("");
                    let _ = writeln!(
                        t,
                        "{:<10} {:<13} FAILED: {}",
                        f.name,
                        r.config,
                        util::clip(first, 120)
                    );
                    continue;
                }
            };
            let dash = || "-".to_string();
            let per_op = |x: &FamSample| (x.ops > 0).then(|| x.loop_s * 1e9 / x.ops as f64);
            let is_on = r.config != "none" && f.key.is_none_or(|(_, o, _)| r.config != o);
            let traced = r.config != "none";
            let vs_off = off.filter(|_| is_on);
            let _ = writeln!(
                t,
                "{:<10} {:<13} {:>10} {:>8.3} {:>9} {:>8} {:>8} {:>10} {:>11} {:>11} {:>11} {:>9} {:>7}  {}",
                f.name,
                r.config,
                s.ops,
                s.loop_s,
                per_op(s).map_or_else(dash, |p| format!("{p:.1}")),
                base.map_or_else(dash, |b| format!("{:.2}x", s.loop_s / b.loop_s)),
                vs_off.map_or_else(dash, |o| format!("{:.2}x", s.loop_s / o.loop_s)),
                vs_off
                    .filter(|_| s.ops > 0)
                    .map_or_else(dash, |o| format!("{:.1}", (s.loop_s - o.loop_s) * 1e9 / s.ops as f64)),
                if traced { s.elements.to_string() } else { dash() },
                vs_off
                    .filter(|o| f.key.is_some() || o.elements == 0)
                    .map_or_else(dash, |o| (s.elements as i64 - o.elements as i64).to_string()),
                vs_off.filter(|_| s.loop_s > 0.0).map_or_else(dash, |o| {
                    format!(
                        "{:.0}",
                        (s.elements as f64 - o.elements as f64).max(0.0) / s.loop_s
                    )
                }),
                if traced {
                    format!("{:.1}", s.trace_bytes as f64 / 1e6)
                } else {
                    dash()
                },
                s.rss_kb
                    .map_or_else(|| "n/a".into(), |k| format!("{:.0}", k as f64 / 1024.0)),
                f.unit
            );
        }
    }
    if FAMILIES.iter().any(|f| f.key.is_none()) {
        let _ = writeln!(
            t,
            "(vthreads has no switch: its on/off and +ns/op compare with the run without the agent, and +elements is every element of the trace)"
        );
    }
    t
}
