//! `cargo xtask stress [--quick] [CASE...]`: the stress suite. Each case drives the agent
//! into a corner (1,000 threads, 10,000 virtual threads, every way out of a JVM, stack
//! overflow, out of memory, 1,000 class loaders, a full disk, SIGKILL, repeated attaches,
//! fuzzed options and class files), computes its own ground truth and reports a figure.
//!
//! Java programs live in `stress/` (same directives and EXPECT lines as java-tests/);
//! one module here per concern. At most two JVMs run at a time: cases that start two
//! themselves (attach: the target plus `jcmd`) run alone. `--quick` is the subset (and
//! the smaller sizes) that `cargo xtask test` runs, see [`ci`].

mod attach;
mod classfuzz;
mod disk;
mod harness;
mod kill;
mod oom;
mod optfuzz;

use crate::java::{self, Jdk};
use crate::tally::Tally;
use crate::util;
use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, RwLock};
use std::thread;
use std::time::Instant;

/// Everything a case needs on one JDK.
pub struct Ctx<'a> {
    pub jdk: &'a Jdk,
    /// The compiled `stress/` programs for this JDK.
    pub classes: &'a Path,
    pub agent: &'a Path,
    /// Scratch directory of this case on this JDK (emptied first).
    pub dir: PathBuf,
    /// The smaller sizes `cargo xtask test` uses.
    pub quick: bool,
}

/// How a case ended.
pub enum Verdict {
    /// Passed; the figure (threads, calls, seconds...) it measured.
    Pass(String),
    Fail(String),
    /// Could not run here (e.g. no permission to mount); the text says why.
    Skip(String),
}

enum Runner {
    /// A `stress/NAME.java` program through the test harness (`run::run`).
    Java,
    Custom(fn(&Ctx) -> Verdict),
}

struct Entry {
    name: &'static str,
    runner: Runner,
    /// Part of `cargo xtask test`.
    ci: bool,
    /// Starts more than one JVM itself: runs alone.
    exclusive: bool,
    min_jdk: u32,
}

const fn java(name: &'static str, ci: bool, min_jdk: u32) -> Entry {
    Entry {
        name,
        runner: Runner::Java,
        ci,
        exclusive: false,
        min_jdk,
    }
}

const fn custom(name: &'static str, f: fn(&Ctx) -> Verdict, ci: bool, exclusive: bool) -> Entry {
    Entry {
        name,
        runner: Runner::Custom(f),
        ci,
        exclusive,
        min_jdk: 0,
    }
}

/// The suite, longest first (the queue starts them in this order).
const CASES: &[Entry] = &[
    custom("OptionFuzz", optfuzz::run, true, false),
    java("StressLoaders", true, 0),
    java("StressThreads", true, 0),
    java("StressVirtual", true, 21),
    custom("Attach20", attach::run, true, true),
    java("StressStackOverflow", true, 0),
    custom("ClassFileFuzz", classfuzz::run, true, false),
    custom("StressOom", oom::run, true, false),
    custom("FullDisk", disk::run, true, false),
    custom("Sigkill", kill::run, true, false),
    java("StressSigterm", true, 0),
    java("StressExitDeep", true, 0),
    java("StressUncaught", true, 0),
];

fn compile(jdk: &Jdk, out: &Path) -> Result<(), String> {
    let _ = std::fs::remove_dir_all(out);
    std::fs::create_dir_all(out).map_err(|e| e.to_string())?;
    let dir = util::root().join("stress");
    let mut sources: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "java"))
        .collect();
    sources.sort();
    java::compile_sources(jdk, out, &sources)
}

/// Runs the selected cases on every JDK, two at a time, reporting into `tally`.
fn suite(tally: &mut Tally, agent: &Path, quick: bool, only: &[String]) {
    let jdks = java::discover();
    if jdks.is_empty() {
        tally.report(
            Err(format!("no JDK under {}", java::JVM_DIR)),
            "-",
            "stress",
        );
        return;
    }
    let work = util::root().join(if quick {
        "target/stress-quick"
    } else {
        "target/stress"
    });
    let mut classes = Vec::new();
    let mut jobs = VecDeque::new();
    for jdk in &jdks {
        let dir = work.join(&jdk.name).join("classes");
        if let Err(e) = compile(jdk, &dir) {
            tally.report(Err(e), &jdk.name, "stress-javac");
        }
        classes.push(dir);
    }
    // Longest cases first across JDKs, so the two workers finish together.
    for (c, e) in CASES.iter().enumerate() {
        let wanted = if only.is_empty() {
            !quick || e.ci
        } else {
            only.iter().any(|o| o == e.name)
        };
        for (j, jdk) in jdks.iter().enumerate() {
            if wanted && jdk.feature >= e.min_jdk && classes[j].is_dir() {
                jobs.push_back((c, j));
            }
        }
    }
    let queue = Mutex::new(jobs);
    let shared = Mutex::new(&mut *tally);
    // Exclusive cases hold the write side: nothing else runs beside them.
    let gate = RwLock::new(());
    thread::scope(|s| {
        for _ in 0..crate::java::PARALLEL {
            s.spawn(|| loop {
                let Some((c, j)) = queue.lock().expect("queue").pop_front() else {
                    break;
                };
                let e = &CASES[c];
                let jdk = &jdks[j];
                let ctx = Ctx {
                    jdk,
                    classes: &classes[j],
                    agent,
                    dir: work.join(&jdk.name).join(e.name),
                    quick,
                };
                let _ = std::fs::remove_dir_all(&ctx.dir);
                if let Err(err) = std::fs::create_dir_all(&ctx.dir) {
                    let v = Verdict::Fail(format!("{}: {err}", ctx.dir.display()));
                    shared
                        .lock()
                        .expect("tally")
                        .stress(v, &jdk.name, e.name, 0.0);
                    continue;
                }
                let (verdict, secs) = {
                    let _g = if e.exclusive {
                        (None, Some(gate.write().expect("gate")))
                    } else {
                        (Some(gate.read().expect("gate")), None)
                    };
                    // Timed from here: waiting for an exclusive case is not this case's time.
                    let t = Instant::now();
                    let v = match e.runner {
                        Runner::Java => harness::run(&ctx, e.name),
                        Runner::Custom(f) => f(&ctx),
                    };
                    (v, t.elapsed().as_secs_f64())
                };
                shared
                    .lock()
                    .expect("tally")
                    .stress(verdict, &jdk.name, e.name, secs);
            });
        }
    });
}

/// `cargo xtask stress [--quick] [CASE...]`.
pub fn run(args: &[String]) -> bool {
    let quick = args.iter().any(|a| a == "--quick");
    let only: Vec<String> = args
        .iter()
        .filter(|a| !a.starts_with("--"))
        .cloned()
        .collect();
    if let Some(bad) = only.iter().find(|o| !CASES.iter().any(|e| e.name == *o)) {
        let names: Vec<&str> = CASES.iter().map(|e| e.name).collect();
        eprintln!("unknown stress case {bad:?}; cases: {}", names.join(", "));
        return false;
    }
    let mut tally = Tally::default();
    let built = util::build_release();
    let ok = built.is_ok();
    tally.report(built, "-", "agent-build");
    let agent = util::root().join("target/release/libjtrace.so");
    if ok {
        let t = Instant::now();
        suite(&mut tally, &agent, quick, &only);
        println!("stress suite: {:.0} s", t.elapsed().as_secs_f64());
    }
    tally.finish()
}

/// The quick subset, for `cargo xtask test` (the agent is already built).
pub fn ci(tally: &mut Tally, agent: &Path) {
    let t = Instant::now();
    suite(tally, agent, true, &[]);
    println!("stress subset: {:.0} s", t.elapsed().as_secs_f64());
}

/// The `FIGURE ...` line a stress program printed, without the prefix.
pub fn figure(stdout: &str) -> Option<String> {
    stdout
        .lines()
        .find_map(|l| l.strip_prefix("FIGURE "))
        .map(str::to_string)
}

/// xmllint against docs/trace.dtd, then tracecheck: the harness's validation.
pub fn validate(trace: &Path) -> Result<tracecheck::Summary, String> {
    util::xmllint(trace).map_err(|e| format!("xmllint: {}", util::clip(&e, 300)))?;
    tracecheck::check(trace).map_err(|v| {
        format!(
            "tracecheck: {} violation(s): {}",
            v.len(),
            util::first_three(&v, 300)
        )
    })
}

impl Tally {
    /// One stress case: its figure on success, its time either way.
    pub fn stress(&mut self, v: Verdict, jdk: &str, name: &str, secs: f64) {
        match v {
            Verdict::Pass(figure) => {
                self.report(Ok(()), jdk, &format!("stress:{name} [{figure}] {secs:.1}s"))
            }
            Verdict::Fail(why) => self.report(Err(why), jdk, &format!("stress:{name} {secs:.1}s")),
            Verdict::Skip(why) => println!("SKIP {jdk} stress:{name} ({why})"),
        }
    }
}
