//! Event families: one small program per family (bench/families) without the agent, with the family off and with it on, each timing its own loop; and their table.

use super::Env;
use crate::util;
use std::fmt::Write as _;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::time::Instant;

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
pub struct FamSample {
    loop_s: f64,
    ops: u64,
    wall: f64,
    rss_kb: Option<u64>,
    trace_bytes: u64,
    /// Elements in the trace (lines that open an element).
    elements: u64,
}

/// The best run of one (family, configuration) cell, or why it failed.
pub struct FamRow {
    family: &'static str,
    /// `none` (no agent), or the family option's value.
    config: String,
    pub result: Result<FamSample, String>,
}

/// Compiles bench/families and runs every family's cells; returns the rows in table order.
pub fn run(env: &Env) -> Vec<FamRow> {
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
    let vt_java = crate::java::java_in(&env.cfg.jdk_vthreads);
    let compiled_vt = if env.cfg.jdk_vthreads.join("bin/javac").is_file() && vt_java.is_file() {
        compile(&env.cfg.jdk_vthreads, &classes_vt, &vt_src)
    } else {
        Err(format!(
            "skipped: no JDK 21+ at {} (--jdk-vthreads)",
            env.cfg.jdk_vthreads.display()
        ))
    };
    for f in &FAMILIES {
        let (jdk, cp, ok) = if f.vthreads {
            (&env.cfg.jdk_vthreads, &classes_vt, &compiled_vt)
        } else {
            (&env.cfg.jdk, &classes, &compiled)
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
                Ok(()) => fam_measure(env, f, jdk, cp, &config, opt.as_deref()),
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
    crate::java::javac(&crate::java::Jdk::at(jdk), out, &[], sources)
        .map_err(|e| format!("javac bench/families failed: {e}"))
}

/// Runs one cell `runs` times; keeps the run with the lowest loop time.
fn fam_measure(
    env: &Env,
    f: &Family,
    jdk: &Path,
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
        let s = fam_once(env, f, jdk, cp, n, opt).inspect_err(|e| eprintln!("FAILED\n{e}"))?;
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
    jdk: &Path,
    cp: &Path,
    n: u64,
    opt: Option<&str>,
) -> Result<FamSample, String> {
    let dir = env.work.join("fam-run");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let trace = dir.join("trace.xml");
    let rss_file = dir.join("rss.txt");
    let options = opt.map(|o| {
        let sep = if o.is_empty() { "" } else { "," };
        format!("out={}{sep}{o}", trace.display())
    });
    let mut cmd = env.command(
        crate::java::Run::home(jdk)
            .args(f.jvm)
            .agent_if(&env.agent, options.as_deref())
            .class_path(cp)
            .main(format!("families.{}", f.class))
            .arg(n.to_string())
            .dir(&dir),
        &rss_file,
    );
    let start = Instant::now();
    let out = cmd.output();
    let wall = start.elapsed().as_secs_f64();
    let result = (|| {
        let out =
            out.map_err(|e| format!("cannot start {}: {e}", crate::java::java_in(jdk).display()))?;
        let stdout = String::from_utf8_lossy(&out.stdout);
        if !out.status.success() {
            let stderr = String::from_utf8_lossy(&out.stderr);
            return Err(super::failed_run(out.status, wall, &stderr));
        }
        let field = |k: &str| super::stdout_field(&stdout, k);
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
            rss_kb: super::read_time(&rss_file).0,
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

/// (elements, bytes) of a trace, by `tracecheck::census` (streamed: traces of the lines
/// family are GBs).
fn count_elements(path: &Path) -> Result<(u64, u64), String> {
    let f = File::open(path).map_err(|e| e.to_string())?;
    let c = tracecheck::census(std::io::BufReader::with_capacity(1 << 20, f))?;
    Ok((c.elements, c.bytes))
}

pub fn table(env: &Env, rows: &[FamRow]) -> String {
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
