//! `cargo xtask test`: unit tests, release build of the agent, then every Java test case
//! on every JDK >= 17 in every agent mode, two JVMs at a time.

use crate::cases::{self, Case};
use crate::compare;
use crate::java::{self, Jdk};
pub use crate::java::{compile_sources, PARALLEL};
use crate::run::{self, Job};
use crate::steps::hygiene;
use crate::util::{self, status};
use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::thread;

// The old paths of what moved to java.rs, tally.rs and util.rs, kept for steps
// written against them; the tasks here import from the new homes.
#[allow(unused_imports)]
pub use crate::{tally::Tally, util::cargo_status};

/// Agent modes every case runs in (`cargo xtask test --modes=bci` narrows it).
pub const MODES: &[&str] = &["jvmti", "bci"];

fn compile(jdk: &Jdk, out: &Path) -> Result<(), String> {
    compile_sources(jdk, out, &cases::sources()?)
}

pub fn run(args: &[String]) -> bool {
    let skip_unit = args.iter().any(|a| a == "--skip-unit");
    let modes: Vec<String> = match args.iter().find_map(|a| a.strip_prefix("--modes=")) {
        Some(list) => list.split(',').map(str::to_string).collect(),
        None => MODES.iter().map(|m| m.to_string()).collect(),
    };
    let only: Vec<&String> = args.iter().filter(|a| !a.starts_with("--")).collect();
    let root = util::root();
    let mut tally = Tally::default();
    let finish = |tally: &Tally| tally.finish();

    // (a) unit tests and the repository's rules, (b) the agent.
    if !skip_unit {
        crate::tidy::run_into(&mut tally);
        let r = status(
            util::cargo().args(["test", "--workspace", "--quiet"]),
            "cargo test --workspace",
        );
        tally.report(r, "-", "unit-tests");
        tally.lap("tidy and unit tests");
    }
    let build = util::build_release();
    let build_ok = build.is_ok();
    tally.report(build, "-", "agent-build");
    tally.lap("release build");
    let agent = root.join("target/release/libjtrace.so");
    if !build_ok || !agent.is_file() {
        return finish(&tally);
    }

    // (c) JDKs and test programs.
    let all_cases = match cases::load_all() {
        Ok(c) => c,
        Err(e) => {
            tally.report(Err(e), "-", "java-tests");
            return finish(&tally);
        }
    };
    let selected: Vec<Case> = all_cases
        .into_iter()
        .filter(|c| only.is_empty() || only.iter().any(|o| **o == c.name))
        .collect();
    let jdks = java::discover();
    if jdks.is_empty() {
        tally.report(
            Err(format!(
                "no JDK >= {} under {}",
                java::MIN_FEATURE,
                java::JVM_DIR
            )),
            "-",
            "jdks",
        );
        return finish(&tally);
    }
    let work = root.join("target/xtask");
    let mut jobs: VecDeque<(usize, &str, usize, PathBuf)> = VecDeque::new();
    let modes: Vec<&str> = modes.iter().map(String::as_str).collect();
    let mut classes: Vec<PathBuf> = Vec::new();
    for (j, jdk) in jdks.iter().enumerate() {
        let dir = work.join(&jdk.name).join("classes");
        match compile(jdk, &dir) {
            Ok(()) => {
                for mode in &modes {
                    for (c, case) in selected
                        .iter()
                        .enumerate()
                        .filter(|(_, case)| case.runs_on(jdk.feature) && case.runs_in(mode))
                    {
                        let scratch = work.join(&jdk.name).join(mode).join(&case.name);
                        jobs.push_back((j, mode, c, scratch));
                    }
                }
            }
            Err(e) => tally.report(Err(e), &jdk.name, "javac"),
        }
        classes.push(dir);
    }

    // (d)-(h) run the cases, PARALLEL at a time.
    let queue = Mutex::new(jobs);
    let tally = Mutex::new(tally);
    thread::scope(|s| {
        for _ in 0..PARALLEL {
            s.spawn(|| loop {
                let Some((j, mode, c, scratch)) = queue.lock().expect("queue").pop_front() else {
                    break;
                };
                let job = Job {
                    jdk: &jdks[j],
                    mode,
                    case: &selected[c],
                    classes: &classes[j],
                    agent: &agent,
                    dir: scratch,
                };
                let result = run::run(&job);
                let what = format!("{}[{mode}]", job.case.name);
                tally
                    .lock()
                    .expect("tally")
                    .report(result, &jdks[j].name, &what);
            });
        }
    });
    // Mode equivalence: same program, same story in jvmti and bci mode.
    let mut tally = tally.into_inner().expect("tally");
    tally.lap("java test cases");
    if modes.contains(&"jvmti") && modes.contains(&"bci") {
        for jdk in &jdks {
            for case in selected
                .iter()
                .filter(|c| c.trace && c.compare_modes && c.runs_on(jdk.feature))
            {
                let t = |m: &str| {
                    work.join(&jdk.name)
                        .join(m)
                        .join(&case.name)
                        .join("trace.xml")
                };
                let (a, b) = (t("jvmti"), t("bci"));
                if !a.is_file() || !b.is_file() {
                    continue;
                }
                let what = format!("{}[jvmti=bci]", case.name);
                tally.report(compare::same_story(&a, &b), &jdk.name, &what);
            }
        }
    }
    // Hygiene: umask, no socket, no file but `out` (xtask/src/steps/hygiene.rs).
    if only.is_empty() || only.iter().any(|o| o.as_str() == "hygiene") {
        tally.report(hygiene::check_imports(&agent), "-", "hygiene-imports");
        for (j, jdk) in jdks.iter().enumerate() {
            for mode in &modes {
                let dir = work.join(&jdk.name).join("hygiene");
                let r = hygiene::run(jdk, mode, &classes[j], &agent, &dir);
                tally.report(r, &jdk.name, &format!("hygiene[{mode}]"));
            }
        }
    }
    // Exit: no agent thread left attached to the JVM (xtask/src/steps/detach.rs).
    if only.is_empty() || only.iter().any(|o| o.as_str() == "detach") {
        for (j, jdk) in jdks.iter().enumerate() {
            let dir = work.join(&jdk.name).join("detach");
            let r = crate::steps::detach::check(jdk, &classes[j], &agent, &dir);
            tally.report(r, &jdk.name, "detach");
        }
    }
    // Controlling a running JVM: jtrace attach/start/stop/status, start=off and the
    // jtrace.Trace switch, delay/duration, filter files (xtask/src/steps/control.rs).
    if only.is_empty() || only.iter().any(|o| o.as_str() == "control") {
        crate::steps::control::run(&mut tally, &agent, &jdks);
    }
    tally.lap("modes, hygiene, detach, control");
    // The `jtrace` command over traces of programs of known structure (java-tests/cli).
    if only.is_empty() || only.iter().any(|o| o.as_str() == "cli") {
        crate::steps::cli_tests::run(&mut tally, &agent, &jdks, &work);
        tally.lap("cli");
    }
    // Traces as Parquet, queried by DuckDB and Spark (xtask/src/steps/parquet_tests.rs).
    if only.is_empty() || only.iter().any(|o| o.as_str() == "parquet") {
        crate::steps::parquet_tests::run(&mut tally, &agent, &jdks, &work);
        tally.lap("parquet");
    }
    // Test suites under jtrace record: examples/maven-junit (Maven, JUnit console launcher),
    // examples/junit4 (Ant's <junit> forked and not, the vintage engine).
    if only.is_empty() || only.iter().any(|o| o.as_str() == "testsuite") {
        crate::steps::testsuite::run(&mut tally, &agent, &work);
        tally.lap("testsuite");
    }
    // The performance gate: examples/gate's exact counts against a baseline, unchanged
    // runs idle and under load, planted regressions (xtask/src/steps/gate_tests.rs).
    if only.is_empty() || only.iter().any(|o| o.as_str() == "gate") {
        crate::steps::gate_tests::run(&mut tally, &agent, &jdks, &work);
        tally.lap("gate");
    }
    // jtrace-agent.jar as -javaagent beside -agentpath (xtask/src/steps/javaagent_tests.rs).
    if only.is_empty() || only.iter().any(|o| o.as_str() == "javaagent") {
        crate::steps::javaagent_tests::run(&mut tally, &agent, &jdks, &work);
        tally.lap("javaagent");
    }
    // The release archive from the outside: unpacked with no toolchain, its plugins in
    // Maven and Gradle (xtask/src/steps/dist_tests.rs).
    if only.is_empty() || only.iter().any(|o| o.as_str() == "dist") {
        crate::steps::dist_tests::run(&mut tally, &work);
        tally.lap("dist");
    }
    // The rewriter over a fixed sample of the JDKs' and /usr/share/java's classes.
    if only.is_empty() {
        tally.report(crate::corpus::ci_sample(), "-", "corpus-sample");
        tally.lap("corpus sample");
        // The stress suite's quick subset (`cargo xtask stress --quick`).
        crate::stress::ci(&mut tally, &agent);
        tally.lap("stress subset");
    }
    // Real programs with isolating class loaders (Ant, Felix), javac under include=*, and a
    // JVM language: same output with the agent as without (`cargo xtask realworld --subset`).
    if only.is_empty() {
        crate::realworld::run_subset(&agent, &jdks, &mut |row| {
            let what = format!("realworld/{}", row.case);
            match &row.outcome {
                crate::realworld::Outcome::Pass => tally.report(Ok(()), &row.jdk, &what),
                crate::realworld::Outcome::Fail(w) => tally.report(Err(w.clone()), &row.jdk, &what),
                // A program that fails on this JDK without the agent too (Debian's Ant
                // launcher on JDK >= 24) tests nothing of the agent: said, not counted.
                crate::realworld::Outcome::Skip(w) => println!("SKIP {} {what} ({w})", row.jdk),
            }
        });
        tally.lap("realworld subset");
    }
    finish(&tally)
}
