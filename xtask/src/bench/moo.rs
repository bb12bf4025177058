//! MooBench on each JDK, side by side: no agent, jtrace `mode=jvmti`, `mode=bci` into `.jtr`, `.xml` and `.xml.zst`, and on JDK 25+ JFR's `jdk.MethodTrace`; the table and issue 10's MooBench targets.

use super::jvm::{self, Sample, Tracer};
use super::{fmt_opt, Env, DEPTH};
use std::fmt::Write as _;
use std::path::PathBuf;

/// The cells of one JDK, in table order.
const CELLS: [Tracer; 6] = [
    Tracer::None,
    Tracer::Jvmti,
    Tracer::Jtr,
    Tracer::Xml,
    Tracer::XmlZst,
    Tracer::Jfr,
];

/// Added ns per traced call allowed for `.jtr` (issue 10).
const TARGET_JTR_NS: f64 = 60.0;
/// How much faster per traced call than JFR `.jtr` must be.
const TARGET_VS_JFR: f64 = 1.5;
/// `.xml` loop time ÷ `.jtr` loop time.
const TARGET_XML_LOOP: f64 = 1.25;
/// `.xml` wall time ÷ (plain wall + XML bytes ÷ disk bandwidth).
pub const TARGET_XML_WALL: f64 = 1.2;

/// One cell: its best run, why it failed, or why it was skipped.
pub struct Cell {
    pub tracer: Tracer,
    pub result: Result<Sample, String>,
}

/// The cells of one JDK, or why the JDK was skipped.
pub struct Jdk {
    pub home: PathBuf,
    pub version: Option<u32>,
    pub cells: Result<Vec<Cell>, String>,
}

impl Jdk {
    pub fn cell(&self, t: Tracer) -> Option<&Sample> {
        self.cells
            .as_ref()
            .ok()?
            .iter()
            .find(|c| c.tracer == t)?
            .result
            .as_ref()
            .ok()
    }
}

/// Runs every cell on every JDK of the configuration.
pub fn run(env: &Env) -> Vec<Jdk> {
    let mut out = Vec::new();
    for home in &env.cfg.moo_jdks {
        let version = jvm::feature_version(home);
        let cells = if !crate::java::java_in(home).is_file() {
            Err(format!(
                "skipped: no {}",
                crate::java::java_in(home).display()
            ))
        } else if version.is_none_or(|v| v < 17) {
            Err(format!(
                "skipped: not a JDK 17+ (version {:?} in its release file)",
                version
            ))
        } else {
            Ok(run_jdk(env, home, version.unwrap_or(0)))
        };
        if let Err(e) = &cells {
            eprintln!("bench: moobench on {}: {e}", home.display());
        }
        out.push(Jdk {
            home: home.clone(),
            version,
            cells,
        });
    }
    out
}

fn run_jdk(env: &Env, home: &std::path::Path, version: u32) -> Vec<Cell> {
    let mut cells = Vec::new();
    let what = format!("moobench JDK {version}");
    for tracer in CELLS {
        if tracer == Tracer::Jfr && version < 25 {
            cells.push(Cell {
                tracer,
                result: Err(format!(
                    "skipped: jdk.MethodTrace needs JDK 25+ (this is JDK {version})"
                )),
            });
            continue;
        }
        let n = if tracer == Tracer::Jvmti {
            env.cfg.moo_n_jvmti
        } else {
            env.cfg.moo_n
        };
        let spec = jvm::Spec {
            jdk: home,
            tracer,
            include: None,
            program: vec![
                "-cp".into(),
                env.classes.clone().into(),
                "moobench.MooBench".into(),
                n.to_string().into(),
                DEPTH.to_string().into(),
            ],
        };
        let mut result = jvm::best(env, &what, &spec, env.cfg.runs);
        if let Ok(s) = &result {
            if s.loop_s.is_none() || s.calls.is_none() {
                result = Err("MooBench printed no loop_ns/calls".into());
            }
        }
        cells.push(Cell { tracer, result });
    }
    cells
}

/// ns added per call: this cell's loop ns per call minus the no-agent loop's.
fn added(s: &Sample, base: Option<&Sample>) -> Option<f64> {
    Some(s.ns_per_call()? - base?.ns_per_call()?)
}

/// CPU time (all threads, user + system) added per call against the no-agent run, ns;
/// only for cells that ran the same N (not jvmti).
fn added_cpu(s: &Sample, base: Option<&Sample>) -> Option<f64> {
    let b = base?;
    let calls = s.calls.filter(|&c| c > 0 && Some(c) == b.calls)?;
    Some((s.cpu_s? - b.cpu_s?) * 1e9 / calls as f64)
}

/// The MooBench table, all JDKs.
pub fn table(jdks: &[Jdk]) -> String {
    let mut t = String::new();
    let _ = writeln!(
        t,
        "{:<7} {:<13} {:>10} {:>8} {:>8} {:>8} {:>9} {:>8} {:>7} {:>8} {:>10} {:>11} {:>8} {:>8} {:>9} {:>7}  note",
        "JDK",
        "tracer",
        "calls",
        "wall s",
        "loop s",
        "ns/call",
        "+ns/call",
        "JFR/this",
        "CPU s",
        "+CPU/c",
        "traced",
        "events",
        "B/event",
        "B/call",
        "trace MB",
        "RSS MB"
    );
    for jdk in jdks {
        let name = jdk
            .version
            .map_or_else(|| jdk.home.display().to_string(), |v| format!("JDK {v}"));
        let cells = match &jdk.cells {
            Ok(c) => c,
            Err(e) => {
                let _ = writeln!(t, "{name:<7} {e}");
                continue;
            }
        };
        let base = jdk.cell(Tracer::None);
        let jfr = jdk.cell(Tracer::Jfr).and_then(|j| added(j, base));
        for c in cells {
            let s = match &c.result {
                Ok(s) => s,
                Err(e) => {
                    let first = e.lines().next().unwrap_or("");
                    let word = if e.starts_with("skipped") {
                        ""
                    } else {
                        "FAILED: "
                    };
                    let _ = writeln!(
                        t,
                        "{name:<7} {:<13} {word}{}",
                        c.tracer.label(),
                        crate::util::clip(first, 120)
                    );
                    continue;
                }
            };
            let traced = c.tracer != Tracer::None;
            let add = added(s, base).filter(|_| traced);
            let mut notes = s.notes.clone();
            if let (Some(tc), Some(calls)) = (s.traced_calls, s.calls) {
                if tc < calls {
                    notes.push(format!("{} calls missing", calls - tc));
                }
            }
            let _ = writeln!(
                t,
                "{name:<7} {:<13} {:>10} {:>8.3} {:>8} {:>8} {:>9} {:>8} {:>7} {:>8} {:>10} {:>11} {:>8} {:>8} {:>9} {:>7}  {}",
                c.tracer.label(),
                fmt_opt(s.calls, |c| c.to_string()),
                s.wall,
                fmt_opt(s.loop_s, |l| format!("{l:.3}")),
                fmt_opt(s.ns_per_call(), |p| format!("{p:.1}")),
                fmt_opt(add, |a| format!("{a:.1}")),
                fmt_opt(
                    jfr.zip(add).filter(|&(_, a)| a > 0.0),
                    |(j, a)| format!("{:.2}x", j / a)
                ),
                fmt_opt(s.cpu_s, |c| format!("{c:.2}")),
                fmt_opt(added_cpu(s, base).filter(|_| traced), |a| format!("{a:.0}")),
                fmt_opt(s.traced_calls, |c| c.to_string()),
                fmt_opt(s.events, |e| e.to_string()),
                fmt_opt(s.bytes_per_event(), |b| format!("{b:.1}")),
                fmt_opt(
                    s.calls.filter(|&c| traced && c > 0),
                    |c| format!("{:.1}", s.trace_bytes as f64 / c as f64)
                ),
                if traced {
                    format!("{:.1}", s.trace_bytes as f64 / 1e6)
                } else {
                    "-".into()
                },
                fmt_opt(s.rss_kb, |k| format!("{:.0}", k as f64 / 1024.0)),
                notes.join("; ")
            );
        }
    }
    t
}

/// The largest `.xml` trace of any JDK (the disk is measured at this size).
pub fn largest_xml(jdks: &[Jdk]) -> u64 {
    jdks.iter()
        .filter_map(|j| j.cell(Tracer::Xml))
        .map(|s| s.trace_bytes)
        .max()
        .unwrap_or(0)
}

/// Issue 10's MooBench targets per JDK; `disk_bps`: the measured disk bandwidth
/// (write + fdatasync) at the XML's size, bytes per second.
pub fn targets(jdks: &[Jdk], disk_bps: Option<f64>) -> String {
    let mut t = String::new();
    let met = |ok: bool| if ok { "met" } else { "MISSED" };
    for jdk in jdks {
        let Some(v) = jdk.version.filter(|_| jdk.cells.is_ok()) else {
            continue;
        };
        let base = jdk.cell(Tracer::None);
        let jtr = jdk.cell(Tracer::Jtr);
        let xml = jdk.cell(Tracer::Xml);
        let _ = writeln!(t, "MooBench targets, JDK {v}:");
        match jtr.and_then(|j| added(j, base)) {
            Some(a) => {
                let _ = writeln!(
                    t,
                    "  .jtr adds {a:.1} ns per traced call (target <= {TARGET_JTR_NS:.0}): {}",
                    met(a <= TARGET_JTR_NS)
                );
                if let Some(j) = jdk.cell(Tracer::Jfr).and_then(|j| added(j, base)) {
                    let r = j / a;
                    let _ = writeln!(
                        t,
                        "  JFR jdk.MethodTrace adds {j:.1} ns per traced call: .jtr is {r:.2}x faster (target >= {TARGET_VS_JFR}x): {}",
                        met(a > 0.0 && r >= TARGET_VS_JFR)
                    );
                } else if v >= 25 {
                    let _ = writeln!(t, "  .jtr vs JFR: no JFR figure (the cell failed)");
                }
            }
            None => {
                let _ = writeln!(t, "  .jtr: no figure (a cell failed)");
            }
        }
        let (Some(x), Some(j)) = (xml, jtr) else {
            let _ = writeln!(t, "  .xml vs .jtr: no figure (a cell failed)");
            continue;
        };
        if let (Some(xl), Some(jl)) = (x.loop_s, j.loop_s) {
            let r = xl / jl;
            let _ = writeln!(
                t,
                "  .xml loop {xl:.3} s / .jtr loop {jl:.3} s = {r:.2} (target <= {TARGET_XML_LOOP}): {}",
                met(r <= TARGET_XML_LOOP)
            );
        }
        match (base, disk_bps) {
            (Some(b), Some(bps)) => {
                let limit = b.wall + x.trace_bytes as f64 / bps;
                let r = x.wall / limit;
                let _ = writeln!(
                    t,
                    "  .xml wall {:.3} s vs physical limit {:.3} s (plain wall {:.3} s + {:.2} GB / {:.2} GB/s) = {r:.2} (target <= {TARGET_XML_WALL}): {}",
                    x.wall,
                    limit,
                    b.wall,
                    x.trace_bytes as f64 / 1e9,
                    bps / 1e9,
                    met(r <= TARGET_XML_WALL)
                );
            }
            _ => {
                let _ = writeln!(
                    t,
                    "  .xml wall vs physical limit: no figure (no plain run or no disk bandwidth)"
                );
            }
        }
    }
    t
}
