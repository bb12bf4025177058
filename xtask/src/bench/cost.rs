//! Issue 18's cells, side by side in one run: start to exit, an idle agent, MooBench in the steady state and over the whole loop at two sizes (JFR beside it), H2's TCP server under a JDBC client (JFR beside it), and `jtrace attach` to a serving Jetty; each figure with the physical floor (two `rdtsc` reads per traced call) beside it.

use super::{Env, DEPTH};
use crate::proc::Proc;
use std::fmt::Write as _;
use std::io::{Read, Write as _};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Debian packages the H2 and attach cells run on (installed by the bench if missing).
const PACKAGES: [&str; 2] = ["libh2-java", "libjetty9-java"];
const H2_JAR: &str = "/usr/share/java/h2.jar";
/// Jetty 9 and the servlet API, for `bench/cost/JettyServe.java`.
const JETTY_JARS: [&str; 7] = [
    "/usr/share/java/jetty9-server.jar",
    "/usr/share/java/jetty9-servlet.jar",
    "/usr/share/java/jetty9-security.jar",
    "/usr/share/java/jetty9-http.jar",
    "/usr/share/java/jetty9-io.jar",
    "/usr/share/java/jetty9-util.jar",
    "/usr/share/java/servlet-api.jar",
];

/// Issue 18's targets.
const TARGET_EXIT_MS: f64 = 20.0;
const TARGET_IDLE_NS: f64 = 3.0;
const TARGET_JTR_NS: f64 = 40.0;
const TARGET_VS_JFR: f64 = 1.5;
const TARGET_XML_VS_JTR: f64 = 1.25;
const TARGET_H2_SLOWDOWN: f64 = 2.5;
const TARGET_ATTACH_S: f64 = 1.0;
const TARGET_ATTACH_WAIT_S: f64 = 0.2;

/// Sizes of the cells (full run / `--quick`).
struct Sizes {
    exit_runs: usize,
    idle_calls: u64,
    moo: [u64; 2],
    /// H2's (inserts, queries): the range workload, then the scan workload.
    h2: [(u32, u32); 2],
}

fn sizes(quick: bool) -> Sizes {
    if quick {
        Sizes {
            exit_runs: 3,
            idle_calls: 50_000_000,
            moo: [200_000, 800_000],
            h2: [(2_000, 300), (2_000, 30)],
        }
    } else {
        Sizes {
            exit_runs: 10,
            idle_calls: 200_000_000,
            moo: [1_000_000, 4_000_000],
            h2: [(10_000, 1_000), (10_000, 100)],
        }
    }
}

/// One finished JVM run.
struct Run {
    wall: f64,
    stdout: String,
    stderr: String,
}

impl Run {
    fn field(&self, key: &str) -> Option<u64> {
        super::stdout_field(&self.stdout, key)
    }
}

/// The whole cost report (its lines) and whether every cell ran.
pub struct Report {
    pub text: String,
    pub ok: bool,
}

/// Runs every cell and returns the report.
pub fn run(env: &Env) -> Report {
    let mut r = Report {
        text: String::new(),
        ok: true,
    };
    let s = sizes(env.cfg.quick);
    let floor = rdtsc_ns() * 2.0;
    let _ = writeln!(
        r.text,
        "Issue 18: what tracing costs (floor: two rdtsc reads = {floor:.1} ns per traced call, measured here)"
    );
    let classes = match compile(env) {
        Ok(c) => c,
        Err(e) => {
            let _ = writeln!(r.text, "  FAILED: {e}");
            r.ok = false;
            return r;
        }
    };
    let load = || super::load_average();
    for jdk in &env.cfg.moo_jdks {
        if !crate::java::java_in(jdk).is_file() {
            let _ = writeln!(r.text, "  skipped {}: no bin/java", jdk.display());
            continue;
        }
        let v = super::jvm::feature_version(jdk).unwrap_or(0);
        let _ = writeln!(r.text, "\nJDK {v} ({})", jdk.display());
        for (short, (what, cell)) in CELLS.iter().zip([
            ("start to exit", exit_cell as CellFn),
            ("idle", idle_cell),
            ("MooBench", moo_cell),
            ("H2", h2_cell),
            ("attach", attach_cell),
        ]) {
            if !env.cfg.cells.is_empty() && !env.cfg.cells.iter().any(|c| c == short) {
                continue;
            }
            eprintln!("bench: cost, JDK {v}: {what}");
            let ctx = Ctx {
                env,
                jdk,
                version: v,
                classes: &classes,
                sizes: &s,
                floor,
            };
            match cell(&ctx) {
                Ok(lines) => {
                    // Also at once on stderr: the whole report comes at the end.
                    eprint!("{lines}");
                    r.text.push_str(&lines);
                }
                Err(e) => {
                    r.ok = false;
                    let _ = writeln!(r.text, "  {what}: FAILED: {e}");
                }
            }
            let _ = writeln!(r.text, "    (load average after: {})", load());
        }
    }
    r
}

/// The cells' names for `--cells`, in the order they run.
pub const CELLS: [&str; 5] = ["exit", "idle", "moo", "h2", "attach"];

type CellFn = fn(&Ctx) -> Result<String, String>;

struct Ctx<'a> {
    env: &'a Env,
    jdk: &'a Path,
    version: u32,
    classes: &'a Path,
    sizes: &'a Sizes,
    floor: f64,
}

impl Ctx<'_> {
    /// `-agentpath:` with `opts` (none: the agent's defaults).
    fn agent(&self, opts: &str) -> String {
        crate::java::agent_arg(&self.env.agent, opts)
    }

    fn java(&self) -> crate::java::Run {
        crate::java::Run::home(self.jdk)
    }

    /// A fresh scratch directory for one run.
    fn scratch(&self) -> Result<PathBuf, String> {
        let d = self.env.work.join("cost-run");
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).map_err(|e| format!("{}: {e}", d.display()))?;
        Ok(d)
    }

    /// Runs `java JVM_ARGS -cp CP MAIN ARGS` in a scratch directory to its end.
    fn run(&self, jvm: &[String], cp: &str, main: &[&str]) -> Result<Run, String> {
        let dir = self.scratch()?;
        let start = Instant::now();
        let o = self
            .java()
            .args(jvm)
            .class_path(cp)
            .args(main)
            .dir(&dir)
            .output()?;
        let wall = start.elapsed().as_secs_f64();
        let _ = std::fs::remove_dir_all(&dir);
        let run = Run {
            wall,
            stdout: String::from_utf8_lossy(&o.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
        };
        if !o.status.success() {
            return Err(super::failed_run(o.status, wall, &run.stderr));
        }
        Ok(run)
    }

    fn cp(&self) -> String {
        self.classes.display().to_string()
    }

    /// JFR's method tracing on `filter` (JDK 25+), as JVM options.
    fn jfr(&self, filter: &str, name: &str) -> Result<Vec<String>, String> {
        let jfc = self.env.work.join(format!("{name}.jfc"));
        std::fs::write(&jfc, jfc_text(filter)).map_err(|e| format!("{}: {e}", jfc.display()))?;
        Ok(vec![format!(
            "-XX:StartFlightRecording:filename=rec.jfr,maxsize=0,settings={}",
            jfc.display()
        )])
    }
}

/// JFR settings enabling only `jdk.MethodTrace` on `filter`, every call, no stack traces.
fn jfc_text(filter: &str) -> String {
    format!(
        r#"<?xml version="1.0" encoding="UTF-8"?>
<configuration version="2.0" label="jtrace bench" description="jdk.MethodTrace only">
  <event name="jdk.MethodTrace">
    <setting name="enabled">true</setting>
    <setting name="filter">{filter}</setting>
    <setting name="stackTrace">false</setting>
    <setting name="threshold">0 ms</setting>
  </event>
</configuration>
"#
    )
}

/// ns per `rdtsc` read on this machine, through the agent's own tick read: the fastest
/// of 200 batches of 100,000 reads (the one no other process interrupted).
fn rdtsc_ns() -> f64 {
    let n = 100_000u64;
    let mut best = f64::INFINITY;
    for _ in 0..200 {
        let start = Instant::now();
        let mut acc = 0u64;
        for _ in 0..n {
            acc = acc.wrapping_add(jtrace::rdtsc());
        }
        std::hint::black_box(acc);
        best = best.min(start.elapsed().as_nanos() as f64 / n as f64);
    }
    best
}

/// Compiles `bench/cost` and MooBench (`--release 17`) against H2 and Jetty,
/// installing their Debian packages first if they are missing.
fn compile(env: &Env) -> Result<PathBuf, String> {
    let missing = crate::realworld::apt::ensure(&PACKAGES, true);
    if !missing.is_empty() {
        return Err(format!("packages missing: {missing:?}"));
    }
    let root = crate::util::root();
    let out = env.work.join("cost-classes");
    let mut sources = Vec::new();
    for dir in ["bench/cost", "bench/moobench"] {
        for e in std::fs::read_dir(root.join(dir))
            .map_err(|e| format!("{dir}: {e}"))?
            .flatten()
        {
            if e.path().extension().is_some_and(|x| x == "java") {
                sources.push(e.path());
            }
        }
    }
    let mut cp = vec![H2_JAR];
    cp.extend(JETTY_JARS);
    let cp = cp.join(":");
    let jdk = crate::java::Jdk::at(&env.cfg.jdk);
    crate::java::javac(&jdk, &out, &["--release", "17", "-cp", &cp], &sources)
        .map_err(|e| format!("javac bench/cost failed: {e}"))?;
    Ok(out)
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v.get(v.len() / 2).copied().unwrap_or(f64::NAN)
}

fn met(ok: bool) -> &'static str {
    if ok {
        "met"
    } else {
        "MISSED"
    }
}

/// Start to exit of `cost.Hello`: no agent, the agent with default options (`.jtr`),
/// `start=off`, XML; the runs of the configurations interleaved so that load
/// changes hit them alike.
fn exit_cell(c: &Ctx) -> Result<String, String> {
    let configs: [(&str, Option<&str>); 4] = [
        ("none", None),
        ("default (.jtr)", Some("")),
        ("start=off", Some("start=off")),
        (".xml", Some("out=trace.xml")),
    ];
    let mut walls: Vec<Vec<f64>> = vec![Vec::new(); configs.len()];
    for _ in 0..c.sizes.exit_runs {
        for (i, (_, opts)) in configs.iter().enumerate() {
            let jvm: Vec<String> = opts.iter().map(|o| c.agent(o)).collect();
            let r = c.run(&jvm, &c.cp(), &["cost.Hello"])?;
            walls[i].push(r.wall * 1e3);
        }
    }
    let mut out = format!(
        "  start to exit (cost.Hello, {} runs each, interleaved): ms min / median, + over none (target +{TARGET_EXIT_MS} ms)\n",
        c.sizes.exit_runs
    );
    let mins: Vec<f64> = walls
        .iter()
        .map(|w| w.iter().copied().fold(f64::INFINITY, f64::min))
        .collect();
    let meds: Vec<f64> = walls.iter_mut().map(|w| median(w)).collect();
    for (i, (label, _)) in configs.iter().enumerate() {
        let add_min = mins[i] - mins[0];
        let add_med = meds[i] - meds[0];
        let _ = writeln!(
            out,
            "    {label:<16} {:>7.1} / {:>7.1} ms{}",
            mins[i],
            meds[i],
            if i == 0 {
                String::new()
            } else {
                format!(
                    "   +{add_min:.1} / +{add_med:.1} ms  {}",
                    met(add_med <= TARGET_EXIT_MS)
                )
            }
        );
    }
    Ok(out)
}

/// For each JVM configuration and each (time, calls) pair of stdout keys, the best
/// (lowest) ns per call over `runs` runs (a pair without calls key: the lowest value), made in rounds (each round runs every
/// configuration once), so that a change of the machine's load falls on all of them.
fn best_interleaved<const K: usize>(
    c: &Ctx,
    configs: &[Vec<String>],
    main: &[&str],
    keys: [(&str, &str); K],
    runs: usize,
) -> Result<Vec<[f64; K]>, String> {
    let mut best = vec![[f64::INFINITY; K]; configs.len()];
    for _ in 0..runs {
        for (jvm, best) in configs.iter().zip(best.iter_mut()) {
            let r = c.run(jvm, &c.cp(), main)?;
            for (b, (loop_key, calls_key)) in best.iter_mut().zip(keys) {
                let calls = if calls_key.is_empty() {
                    Some(1)
                } else {
                    r.field(calls_key)
                };
                let (Some(ns), Some(calls)) = (r.field(loop_key), calls) else {
                    return Err(format!("no {loop_key}/{calls_key} in: {}", r.stdout));
                };
                *b = b.min(ns as f64 / calls.max(1) as f64);
            }
        }
    }
    Ok(best)
}

const LOOP: (&str, &str) = ("loop_ns=", "calls=");
const STEADY: (&str, &str) = ("steady_ns=", "steady_calls=");
/// MooBench's peak resident memory, in kB.
const PEAK: (&str, &str) = ("hwm_kb=", "");
/// The ring MooBench is traced into beside `.jtr` (issue 39).
const MOO_RING_MB: u64 = 64;

/// A small static method called N times after a warm-up: no agent; agent idle
/// (`start=off`) with the default `counts=traced`, and with `counts=all`.
fn idle_cell(c: &Ctx) -> Result<String, String> {
    let n = c.sizes.idle_calls.to_string();
    let runs = c.env.cfg.runs;
    let mut out = format!(
        "  idle (cost.Idle {n}, best of {runs}): ns per call, + over none (target +{TARGET_IDLE_NS} ns)\n"
    );
    let labels = [
        ("start=off (counts=traced)", "start=off"),
        ("start=off,counts=all", "start=off,counts=all"),
        // Tracing, with every call outside windows (issue 39: what a server pays between
        // the windows it keeps).
        ("window= (outside windows)", "window=cost.Idle.handle"),
    ];
    let mut configs = vec![vec![]];
    configs.extend(labels.iter().map(|(_, opts)| vec![c.agent(opts)]));
    let best = best_interleaved(c, &configs, &["cost.Idle", &n], [LOOP], runs)?;
    let none = best[0][0];
    let _ = writeln!(out, "    {:<26} {none:>6.2} ns", "none");
    for ((label, _), [ns]) in labels.iter().zip(&best[1..]) {
        let ns = *ns;
        let add = ns - none;
        let _ = writeln!(
            out,
            "    {label:<26} {ns:>6.2} ns   +{add:.2} ns  {}",
            met(add <= TARGET_IDLE_NS)
        );
    }
    Ok(out)
}

/// MooBench at two sizes: no agent, `.jtr`, `.xml`, JFR (25+): ns added per traced
/// call over the whole loop and in its second half (the steady state).
fn moo_cell(c: &Ctx) -> Result<String, String> {
    let runs = c.env.cfg.runs;
    let mut out = format!(
        "  MooBench (depth {DEPTH}, best of {runs}): ns added per traced call, whole loop / steady state (second half); floor {:.1} ns\n",
        c.floor
    );
    let jfr_opts = c.jfr("moobench.MonitoredClass", "moo")?;
    for n in c.sizes.moo {
        let ns = n.to_string();
        let main = ["moobench.MooBench", ns.as_str(), "10"];
        let mut cells: Vec<(&str, Vec<String>)> = vec![
            ("none", vec![]),
            (".jtr", vec![c.agent("out=trace.jtr")]),
            ("ring=64m", vec![c.agent(&format!("ring={MOO_RING_MB}m"))]),
            (".xml", vec![c.agent("out=trace.xml")]),
        ];
        if c.version >= 25 {
            cells.push(("JFR MethodTrace", jfr_opts.clone()));
        }
        let configs: Vec<Vec<String>> = cells.iter().map(|(_, jvm)| jvm.clone()).collect();
        let best = best_interleaved(c, &configs, &main, [LOOP, STEADY, PEAK], runs)?;
        let peaks: Vec<(&str, f64)> = cells
            .iter()
            .zip(&best)
            .map(|((label, _), [_, _, kb])| (*label, *kb / 1024.0))
            .collect();
        let figures: Vec<(&str, f64, f64)> = cells
            .iter()
            .zip(best)
            .map(|((label, _), [whole, steady, _])| (*label, whole, steady))
            .collect();
        let (_, w0, s0) = figures[0];
        let add = |label: &str| {
            figures
                .iter()
                .find(|f| f.0 == label)
                .map(|f| (f.1 - w0, f.2 - s0))
        };
        let _ = writeln!(out, "    N = {n} ({} calls)", n * DEPTH);
        let _ = writeln!(
            out,
            "      {:<16} {w0:>7.1} / {s0:>7.1} ns per call",
            "none"
        );
        for (label, _, _) in figures.iter().skip(1) {
            let (w, s) = add(label).unwrap_or_default();
            let _ = writeln!(
                out,
                "      {label:<16} +{w:>6.1} / +{s:>6.1} ns   {:.2}x / {:.2}x the floor",
                w / c.floor,
                s / c.floor
            );
        }
        if let (Some((jw, js)), Some((rw, rs))) = (add(".jtr"), add("ring=64m")) {
            let _ = writeln!(
                out,
                "      ring=64m/.jtr per call {:.2} / {:.2} (target <= 1, steady, within 5% noise): {}",
                rw / jw,
                rs / js,
                met(rs <= js * 1.05)
            );
        }
        let none_mb = peaks[0].1;
        let _ = write!(out, "      peak resident: none {none_mb:.0} MB");
        for (label, mb) in &peaks[1..] {
            let _ = write!(out, ", {label} {:+.0} MB", mb - none_mb);
        }
        let ring_extra = peaks
            .iter()
            .find(|p| p.0 == "ring=64m")
            .map_or(0.0, |p| p.1 - none_mb);
        let jtr_extra = peaks
            .iter()
            .find(|p| p.0 == ".jtr")
            .map_or(0.0, |p| p.1 - none_mb);
        let _ = writeln!(
            out,
            " (ring within its {MOO_RING_MB} MB + what .jtr's agent takes: {})",
            met(ring_extra <= MOO_RING_MB as f64 + jtr_extra.max(0.0) + 16.0)
        );
        if let (Some((jw, js)), Some((xw, xs))) = (add(".jtr"), add(".xml")) {
            let _ = writeln!(
                out,
                "      .jtr +ns <= {TARGET_JTR_NS} (steady): {}; .xml/.jtr {:.2} / {:.2} (target <= {TARGET_XML_VS_JTR}): {}",
                met(js <= TARGET_JTR_NS),
                xw / jw,
                xs / js,
                met(xs / js <= TARGET_XML_VS_JTR)
            );
            if let Some((fw, fs)) = add("JFR MethodTrace") {
                let _ = writeln!(
                    out,
                    "      JFR/.jtr per call {:.2}x / {:.2}x (target >= {TARGET_VS_JFR}): {}",
                    fw / jw,
                    fs / js,
                    met(fw / jw >= TARGET_VS_JFR && fs / js >= TARGET_VS_JFR)
                );
            }
        }
    }
    Ok(out)
}

/// A free TCP port on localhost.
fn free_port() -> Result<u16, String> {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .map_err(|e| format!("no free port: {e}"))
}

/// Waits until something accepts connections on `port`.
fn wait_for_port(port: u16, server: &mut Proc, limit: Duration) -> Result<(), String> {
    let start = Instant::now();
    while start.elapsed() < limit {
        if TcpStream::connect(("127.0.0.1", port)).is_ok() {
            return Ok(());
        }
        if let Some(st) = server.exited() {
            return Err(format!("the server exited: {st}"));
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    Err(format!("nothing listens on port {port} after {limit:?}"))
}

/// Stops a server JVM with SIGTERM (the agent closes its trace; killed after 60 s) and
/// returns its stderr.
fn stop_server(server: Proc) -> String {
    server.signal("TERM");
    server.finish(Duration::from_secs(60)).stderr
}

/// H2's TCP server handles one command of a client in `TcpServerThread.process`.
const H2_WINDOW: &str = "window=org.h2.server.TcpServerThread.process";

/// The classes of H2's jar, `;`-separated (JFR's filter has no wildcards).
fn h2_classes(jdk: &Path) -> Result<String, String> {
    let o = Command::new(jdk.join("bin/jar"))
        .args(["tf", H2_JAR])
        .output()
        .map_err(|e| format!("cannot run jar: {e}"))?;
    let list: Vec<String> = String::from_utf8_lossy(&o.stdout)
        .lines()
        .filter(|l| l.ends_with(".class") && l.starts_with("org/h2/"))
        .map(|l| l.trim_end_matches(".class").replace('/', "."))
        .collect();
    if list.is_empty() {
        return Err(format!("no classes in {H2_JAR}"));
    }
    Ok(list.join(";"))
}

/// H2's TCP server (the measured JVM) under a JDBC client (another JVM, no agent), for
/// both of `cost.H2Client`'s workloads: queries and inserts per second without the
/// agent, traced to `.jtr` with default options (and `inline=on`), loaded idle with
/// `counts=all`, and with JFR's method tracing on every class of H2 (25+); beside
/// each, where the server's CPU went.
fn h2_cell(c: &Ctx) -> Result<String, String> {
    let mut cells: Vec<(&str, Vec<String>)> = vec![
        ("none", vec![]),
        (".jtr (defaults)", vec![c.agent("out=trace.jtr")]),
        // The JIT inlining traced methods as before `inline=auto`: what the padding saves.
        (".jtr, inline=on", vec![c.agent("out=trace.jtr,inline=on")]),
        // Loaded idle and counting every call (issue 18: "idle is free").
        (
            "idle, counts=all",
            vec![c.agent("start=off,counts=all,out=trace.jtr")],
        ),
        // Issue 39: windows on the server's per-command method, the slow commands kept;
        // and one command in a hundred.
        (
            "window=, over:5ms",
            vec![c.agent(&format!("{H2_WINDOW},keep=over:5ms,out=trace.jtr"))],
        ),
        (
            "window=, sample",
            vec![c.agent(&format!("{H2_WINDOW},keep=sample:1/100,out=trace.jtr"))],
        ),
    ];
    if c.version >= 25 {
        cells.push(("JFR on all of H2", c.jfr(&h2_classes(c.jdk)?, "h2")?));
    }
    let mut out = String::new();
    for (kind, (rows, queries)) in ["range", "scan"].into_iter().zip(c.sizes.h2) {
        out.push_str(&h2_workload(c, &cells, kind, rows, queries)?);
    }
    Ok(out)
}

/// One H2 run's figures (the client's clock, the server's CPU).
struct H2Run {
    qps: f64,
    ips: f64,
    /// The agent's events (its closing stderr line), if traced.
    events: Option<u64>,
    /// The trace's bytes (its closing line), if traced.
    bytes: Option<u64>,
    /// Inserts and queries, seconds (the client's clock).
    total: f64,
    cpu: Option<ServerCpu>,
}

/// The rows of one H2 workload (`range` or `scan`), best of `runs` per configuration.
fn h2_workload(
    c: &Ctx,
    cells: &[(&str, Vec<String>)],
    kind: &str,
    rows: u32,
    queries: u32,
) -> Result<String, String> {
    let what = match kind {
        "range" => "range queries of 150 rows by primary key (issue 18's workload)",
        _ => "full-scan queries",
    };
    let mut out = format!(
        "  H2 2.1 TCP server under a JDBC client, {what}: {rows} inserts, then {queries} queries; per second, best of {}\n",
        c.env.cfg.runs
    );
    // Interleaved (one run of each configuration per round), so that a change of load
    // during the cell falls on all of them alike.
    let mut bests: Vec<Option<H2Run>> = cells.iter().map(|_| None).collect();
    for _ in 0..c.env.cfg.runs {
        for ((_, jvm), best) in cells.iter().zip(bests.iter_mut()) {
            let run = h2_run(c, jvm, kind, rows, queries)?;
            if best.as_ref().is_none_or(|b| run.total < b.total) {
                *best = Some(run);
            }
        }
    }
    let mut base: Option<H2Run> = None;
    for ((label, _), best) in cells.iter().zip(bests) {
        let Some(r) = best else {
            continue;
        };
        let cpu = r.cpu.as_ref().map_or(String::new(), |u| u.describe());
        let Some(b) = &base else {
            let _ = writeln!(
                out,
                "    {label:<18} {:>8.0} queries/s  {:>8.0} inserts/s; server CPU {cpu}",
                r.qps, r.ips
            );
            base = Some(r);
            continue;
        };
        let slow = b.qps / r.qps;
        let mut line = format!(
            "    {label:<18} {:>8.0} queries/s  {:>8.0} inserts/s   {slow:.2}x fewer queries/s, {:.2}x fewer inserts/s, whole client run {:.2}x longer (target <= {TARGET_H2_SLOWDOWN}x fewer queries/s: {})",
            r.qps,
            r.ips,
            b.ips / r.ips,
            r.total / b.total,
            met(slow <= TARGET_H2_SLOWDOWN)
        );
        if let Some(ev) = r.events {
            // Traced calls (two records each) over the whole server run, the slowdown
            // of the client run the two-timestamp floor alone would give, and the
            // server's CPU per traced call beyond the run without the agent.
            let calls = ev as f64 / 2.0;
            let _ = write!(
                line,
                "; {:.0} traced calls per query (the whole run's), floor {:.2}x",
                calls / queries as f64,
                (b.total + calls * c.floor / 1e9) / b.total
            );
            if let (Some(u), Some(u0)) = (&r.cpu, &b.cpu) {
                let _ = write!(
                    line,
                    ", server CPU +{:.0} ns per traced call",
                    (u.total - u0.total) * 1e9 / calls
                );
            }
        }
        if let Some(n) = r.bytes {
            let _ = write!(line, "; trace {:.2} MB", n as f64 / 1e6);
        }
        let _ = write!(line, "\n      server CPU {cpu}");
        out.push_str(&line);
        out.push('\n');
    }
    Ok(out)
}

/// One H2 server run under the client.
fn h2_run(c: &Ctx, jvm: &[String], kind: &str, rows: u32, queries: u32) -> Result<H2Run, String> {
    let dir = c.scratch()?;
    let port = free_port()?;
    let mut server = c
        .java()
        .args(jvm)
        .args(["-cp", H2_JAR, "org.h2.tools.Server", "-tcp", "-tcpPort"])
        .arg(port.to_string())
        .args(["-ifNotExists", "-baseDir"])
        .arg(&dir)
        .spawn(&dir)
        .map_err(|e| format!("the H2 server: {e}"))?;
    if let Err(e) = wait_for_port(port, &mut server, Duration::from_secs(60)) {
        let err = stop_server(server);
        return Err(format!("{e}: {err}"));
    }
    let url = format!("jdbc:h2:tcp://127.0.0.1:{port}/mem:bench");
    let client = crate::java::Run::home(&c.env.cfg.jdk)
        .class_path(format!("{H2_JAR}:{}", c.cp()))
        .args([
            "cost.H2Client",
            &url,
            &rows.to_string(),
            &queries.to_string(),
            kind,
        ])
        .output()
        .map_err(|e| format!("the client: {e}"));
    // Read before the server stops (its threads are gone after).
    let cpu = ServerCpu::read(server.pid());
    let err = stop_server(server);
    let _ = std::fs::remove_dir_all(&dir);
    let client = client?;
    let stdout = String::from_utf8_lossy(&client.stdout);
    let f = |k: &str| super::stdout_field(&stdout, k);
    let (Some(ins), Some(q)) = (f("insert_ns="), f("query_ns=")) else {
        return Err(format!(
            "client: {} {}",
            stdout,
            String::from_utf8_lossy(&client.stderr)
        ));
    };
    let events = crate::util::closing_events(&err);
    // The trace's size, from the closing line ("...: N bytes, ...").
    let bytes = crate::util::closing_line(&err).and_then(|(body, _)| {
        let (before, _) = body.split_once(" bytes, ")?;
        before.rsplit(' ').next()?.parse().ok()
    });
    Ok(H2Run {
        bytes,
        qps: queries as f64 / (q as f64 / 1e9),
        ips: rows as f64 / (ins as f64 / 1e9),
        events,
        total: (ins + q) as f64 / 1e9,
        cpu,
    })
}

/// Where a server JVM's CPU went (user + system, seconds), from `/proc`: its whole
/// life (the process's figure counts ended threads too), the JIT compiler threads,
/// and the threads of the tracer (the agent's `jtrace-*`, JFR's `JFR *`); the rest
/// is the application's threads, GC and the VM's.
struct ServerCpu {
    total: f64,
    jit: f64,
    tracer: f64,
}

impl ServerCpu {
    fn read(pid: u32) -> Option<ServerCpu> {
        let total = proc_cpu(&format!("/proc/{pid}/stat"))?;
        let (mut jit, mut tracer) = (0.0, 0.0);
        for t in std::fs::read_dir(format!("/proc/{pid}/task"))
            .ok()?
            .flatten()
        {
            let p = t.path();
            let name = std::fs::read_to_string(p.join("comm")).unwrap_or_default();
            let secs = proc_cpu(&p.join("stat").display().to_string()).unwrap_or(0.0);
            if name.starts_with("C1 Compiler") || name.starts_with("C2 Compiler") {
                jit += secs;
            } else if name.starts_with("jtrace-") || name.starts_with("JFR ") {
                tracer += secs;
            }
        }
        Some(ServerCpu { total, jit, tracer })
    }

    fn describe(&self) -> String {
        format!(
            "{:.2} s: JIT {:.2}, tracer's threads {:.2}, application and VM {:.2}",
            self.total,
            self.jit,
            self.tracer,
            self.total - self.jit - self.tracer
        )
    }
}

/// utime + stime of a `/proc/.../stat` file, in seconds (the kernel reports them in
/// USER_HZ, 100 per second on Linux).
fn proc_cpu(path: &str) -> Option<f64> {
    let text = std::fs::read_to_string(path).ok()?;
    // Fields after the command name (which may hold spaces and parentheses); the
    // first of them is field 3 (state), utime and stime are fields 14 and 15.
    let rest = &text[text.rfind(')')? + 1..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    let ticks = f.get(11)?.parse::<u64>().ok()? + f.get(12)?.parse::<u64>().ok()?;
    Some(ticks as f64 / 100.0)
}

/// One request's (start, latency) as seen by the client.
type Latency = (Instant, Duration);

/// Sends `GET /` requests to `port` one after the other until `stop`, recording each.
fn http_load(port: u16, stop: Arc<AtomicBool>, seen: Arc<Mutex<Vec<Latency>>>) {
    while !stop.load(Ordering::Relaxed) {
        let t = Instant::now();
        let ok = (|| -> std::io::Result<()> {
            let mut s = TcpStream::connect(("127.0.0.1", port))?;
            s.set_read_timeout(Some(Duration::from_secs(10)))?;
            s.write_all(b"GET /x HTTP/1.0\r\nHost: localhost\r\n\r\n")?;
            let mut buf = Vec::new();
            s.read_to_end(&mut buf)?;
            Ok(())
        })();
        if ok.is_ok() {
            if let Ok(mut v) = seen.lock() {
                v.push((t, t.elapsed()));
            }
        }
    }
}

/// `jtrace attach` to Jetty 9 while a client keeps it busy: how long attach takes, and
/// the longest request meanwhile.
fn attach_cell(c: &Ctx) -> Result<String, String> {
    let dir = c.scratch()?;
    let port = free_port()?;
    let mut cp = vec![c.cp()];
    cp.extend(JETTY_JARS.iter().map(|s| s.to_string()));
    let server = c
        .java()
        .class_path(cp.join(":"))
        .args(["cost.JettyServe", &port.to_string()])
        .spawn(&dir)
        .map_err(|e| format!("Jetty: {e}"))?;
    if !server.wait_line("ready", Duration::from_secs(60)) {
        let err = stop_server(server);
        return Err(format!("Jetty did not start: {err}"));
    }
    let stop = Arc::new(AtomicBool::new(false));
    let seen = Arc::new(Mutex::new(Vec::new()));
    let load = {
        let (stop, seen) = (stop.clone(), seen.clone());
        std::thread::spawn(move || http_load(port, stop, seen))
    };
    // Warm up: the JIT has compiled the request path before the agent comes.
    std::thread::sleep(Duration::from_secs(3));
    let t0 = Instant::now();
    let o = Command::new(&c.env.jtrace)
        .args(["attach", &server.pid().to_string()])
        .arg(format!("out={}/attach.jtr", dir.display()))
        .output();
    let attach_s = t0.elapsed().as_secs_f64();
    let t1 = Instant::now();
    std::thread::sleep(Duration::from_secs(1));
    stop.store(true, Ordering::Relaxed);
    let _ = load.join();
    let err = stop_server(server);
    let _ = std::fs::remove_dir_all(&dir);
    let o = o.map_err(|e| format!("cannot run jtrace attach: {e}"))?;
    let reply = String::from_utf8_lossy(&o.stdout).trim().to_string()
        + String::from_utf8_lossy(&o.stderr).trim();
    if !o.status.success() {
        return Err(format!("jtrace attach failed: {reply}; JVM: {err}"));
    }
    let seen = seen.lock().map(|v| v.clone()).unwrap_or_default();
    let before: Vec<Duration> = seen.iter().filter(|(t, _)| *t < t0).map(|l| l.1).collect();
    // Requests that started before attach returned and ended after it began.
    let during: Vec<Duration> = seen
        .iter()
        .filter(|(t, l)| *t < t1 && *t + *l > t0)
        .map(|l| l.1)
        .collect();
    let worst = during.iter().max().copied().unwrap_or_default();
    let worst_before = before.iter().max().copied().unwrap_or_default();
    Ok(format!(
        "  attach to Jetty 9 serving ({} requests before, {} during): jtrace attach {attach_s:.2} s (target < {TARGET_ATTACH_S} s: {}); worst request during {:.3} s (before: {:.3} s; target < {TARGET_ATTACH_WAIT_S} s: {})\n    reply: {}\n",
        before.len(),
        during.len(),
        met(attach_s < TARGET_ATTACH_S),
        worst.as_secs_f64(),
        worst_before.as_secs_f64(),
        met(worst.as_secs_f64() < TARGET_ATTACH_WAIT_S),
        reply.lines().last().unwrap_or("")
    ))
}
