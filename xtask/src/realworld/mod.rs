//! `cargo xtask realworld [--subset] [--jdk PATH] [--keep] [CASE...]`:
//! real programs nobody on the project wrote (Debian's Ant, Felix, Tomcat, Clojure, Groovy,
//! Scala, Kotlin, Gradle, and the JDK's own javac, javadoc, jshell and jar), each run without
//! and with the agent.
//!
//! The ground truth is the run without the agent: the run with it must give the same exit
//! code, the same stdout (after the masks a case declares for times and ports a tool prints)
//! and byte-identical files in its working directory (but for paths a case names, each with
//! the reason), and every trace it wrote must pass xmllint against docs/trace.dtd and
//! tracecheck, and `jtrace`'s answers on it must agree (its Parquet export, read by DuckDB,
//! with `jtrace report`: `exec::answers_agree`; at the end, Spark over those exports at
//! once, the row `fleet-spark`, in the subset those of up to 2 M calls). Each case
//! reports both wall times, their
//! ratio, trace size and number of elements ("events"). A program that fails without the
//! agent on some JDK is skipped there, said so. Runs one program at a time (a 2-core
//! machine, and timing is part of the report).
//!
//! The fixtures (build files, bundles, web application, programs) live in `realworld/`; work
//! directories in `target/realworld/JDK/CASE/{input,plain,agent,traces}`.

pub(crate) mod apt;
mod build;
mod exec;
mod felix;
mod jdktools;
mod langs;
mod tomcat;

use crate::java::{self, Jdk};
use crate::util;
use exec::Captured;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

/// How long one run of a program may take before it is killed and failed.
pub const TIMEOUT: Duration = Duration::from_secs(600);

/// What every case function gets.
pub struct Ctx<'a> {
    pub jdk: &'a Jdk,
    /// `realworld/` in the workspace: the fixtures.
    pub fixtures: PathBuf,
}

impl Ctx<'_> {
    pub fn java(&self) -> PathBuf {
        self.jdk.java()
    }

    pub fn tool(&self, name: &str) -> PathBuf {
        self.jdk.home.join("bin").join(name)
    }

    /// A command for a Debian launcher script, pointed at this JDK through `JAVA_HOME`
    /// (and `JAVACMD`, which some scripts prefer when it is set in the environment).
    pub fn launcher(&self, script: &str) -> Command {
        let mut c = Command::new(script);
        c.env("JAVA_HOME", &self.jdk.home)
            .env("JAVACMD", self.java())
            .env_remove("JAVA_OPTS")
            .env_remove("ANT_OPTS")
            .env_remove("GRADLE_OPTS")
            .env_remove("CLASSPATH");
        c
    }
}

/// The agent for one run: where it is, its options, and where its traces go.
pub struct Traced<'a> {
    pub agent: &'a Path,
    pub options: &'a str,
    pub traces: &'a Path,
}

impl Traced<'_> {
    /// `-agentpath:…/libjtrace.so=out=TRACES/NAME.xml[,options]`.
    pub fn arg(&self, name: &str) -> String {
        let mut s = java::agent_arg(
            self.agent,
            &format!("out={}", self.traces.join(format!("{name}.xml")).display()),
        );
        if !self.options.is_empty() {
            s.push(',');
            s.push_str(self.options);
        }
        s
    }

    /// The option string alone (for `jcmd JVMTI.agent_load`).
    pub fn options_for(&self, name: &str) -> String {
        let mut s = format!("out={}", self.traces.join(format!("{name}.xml")).display());
        if !self.options.is_empty() {
            s.push(',');
            s.push_str(self.options);
        }
        s
    }
}

/// How a case's program is run.
pub enum Runner {
    /// One command in the run directory; with `Some`, the agent goes in (however the
    /// program's launcher takes JVM options).
    Command(fn(&Ctx, &Path, Option<&Traced>) -> Result<Command, String>),
    /// A server driven by the harness over loopback (see `tomcat.rs`).
    Server(fn(&Ctx, &Path, Option<&Traced>) -> Result<Captured, String>),
}

pub struct Case {
    pub name: &'static str,
    /// The program, for the report.
    pub program: &'static str,
    /// Debian packages it needs; the first one's version is reported (none: the JDK's tool).
    pub packages: &'static [&'static str],
    /// Part of the subset `cargo xtask test` runs.
    pub subset: bool,
    /// Agent options besides `out=` (`include=*` for the JDK's own tools).
    pub options: &'static str,
    /// Paths under the run directory left out of the file comparison, each because the
    /// program writes times or ports there (the reason is in the case's definition).
    pub ignore: &'static [&'static str],
    /// Normalises one stdout line (times, ports); most cases keep lines as they are.
    pub mask: fn(&str) -> String,
    /// Builds the input directory (untraced: compiling launchers, bundles, sources).
    pub prepare: fn(&Ctx, &Path) -> Result<(), String>,
    pub run: Runner,
}

/// A stdout mask that keeps lines as they are.
pub fn keep(line: &str) -> String {
    line.to_string()
}

/// Every case, in the order they run.
pub fn cases() -> Vec<Case> {
    let mut v = Vec::new();
    v.extend(build::cases());
    v.extend(felix::cases());
    v.extend(tomcat::cases());
    v.extend(langs::cases());
    v.extend(jdktools::cases());
    v
}

/// How one case went on one JDK.
pub enum Outcome {
    Pass,
    Fail(String),
    Skip(String),
}

/// One row of the report.
pub struct Row {
    pub case: &'static str,
    pub program: &'static str,
    pub version: String,
    pub jdk: String,
    pub outcome: Outcome,
    pub plain_secs: Option<f64>,
    pub agent_secs: Option<f64>,
    pub trace_bytes: u64,
    pub events: u64,
    /// Things worth a look that do not fail the case (the agent's repair counts, notes).
    pub warnings: Vec<String>,
}

impl Row {
    fn ratio(&self) -> Option<f64> {
        Some(self.agent_secs? / self.plain_secs?.max(1e-3))
    }

    /// One report line: `PASS jdk case (…)`.
    pub fn line(&self) -> String {
        let (word, why) = match &self.outcome {
            Outcome::Pass => ("PASS", String::new()),
            Outcome::Fail(w) => ("FAIL", format!(" ({})", w.replace('\n', " "))),
            Outcome::Skip(w) => ("SKIP", format!(" ({w})")),
        };
        let mut s = format!("{word} {} realworld/{}", self.jdk, self.case);
        if let (Some(p), Some(a), Some(r)) = (self.plain_secs, self.agent_secs, self.ratio()) {
            s.push_str(&format!(
                ": {p:.2} s without, {a:.2} s with agent, ratio {r:.2}"
            ));
            if self.trace_bytes > 0 {
                s.push_str(&format!(
                    ", trace {}, {} events",
                    human_bytes(self.trace_bytes),
                    self.events
                ));
            }
        }
        s.push_str(&why);
        s
    }
}

impl Row {
    /// The agent's stderr lines (repairs fail the case through the trace's own counts).
    pub fn print_notes(&self) {
        for w in &self.warnings {
            println!("NOTE {} realworld/{}: {w}", self.jdk, self.case);
        }
    }
}

pub fn human_bytes(b: u64) -> String {
    if b >= 1 << 30 {
        format!("{:.2} GB", b as f64 / (1u64 << 30) as f64)
    } else if b >= 1 << 20 {
        format!("{:.1} MB", b as f64 / (1u64 << 20) as f64)
    } else {
        format!("{:.1} kB", b as f64 / 1024.0)
    }
}

/// Options of one realworld run.
pub struct Settings {
    /// Install missing Debian packages (`cargo xtask realworld`) or only report them
    /// (`cargo xtask test`, whose packages `.ci/run` installs).
    pub install: bool,
    /// Keep traces of passing cases (they can be gigabytes; failing ones are always kept).
    pub keep: bool,
}

/// The agent's own stderr lines (`jtrace: …`): what it could not instrument, events it
/// lost or repaired. Reported with the case; repairs fail it through the trace's counts.
fn agent_notes(stderr: &str) -> Vec<String> {
    stderr
        .lines()
        // The closing line (where the trace went) is no news; the rest is.
        .filter(|l| l.starts_with("jtrace:") && !l.starts_with("jtrace: trace written to "))
        .map(|l| util::clip(l.trim(), 200))
        .collect()
}

/// Runs one case on one JDK.
pub fn run_case(
    case: &Case,
    jdk: &Jdk,
    agent: &Path,
    settings: &Settings,
    missing: &[String],
    answers: &Path,
) -> Row {
    let version = case
        .packages
        .first()
        .and_then(|p| apt::version(p).map(|v| format!("{p} {v}")))
        .unwrap_or_else(|| format!("JDK {}", jdk.name));
    let mut row = Row {
        case: case.name,
        program: case.program,
        version,
        jdk: jdk.name.clone(),
        outcome: Outcome::Pass,
        plain_secs: None,
        agent_secs: None,
        trace_bytes: 0,
        events: 0,
        warnings: Vec::new(),
    };
    if !missing.is_empty() {
        row.outcome = Outcome::Skip(format!("Debian package(s) missing: {}", missing.join("; ")));
        return row;
    }
    let ctx = Ctx {
        jdk,
        fixtures: util::root().join("realworld"),
    };
    let work = util::root()
        .join("target/realworld")
        .join(&jdk.name)
        .join(case.name);
    let (input, plain, traced_dir, traces) = (
        work.join("input"),
        work.join("plain"),
        work.join("agent"),
        work.join("traces"),
    );
    let _ = std::fs::remove_dir_all(&work);
    for d in [&input, &traces] {
        if let Err(e) = std::fs::create_dir_all(d) {
            row.outcome = Outcome::Fail(format!("{}: {e}", d.display()));
            return row;
        }
    }
    // Preparing runs the program's own tools without the agent (scalac before the scala
    // runner, say): if they fail, the program does not run on this JDK.
    if let Err(e) = (case.prepare)(&ctx, &input) {
        row.outcome = Outcome::Skip(format!(
            "preparing it without the agent failed on this JDK: {}",
            util::clip(&e, 300)
        ));
        return row;
    }
    let go = |dir: &Path, traced: Option<&Traced>| -> Result<Captured, String> {
        exec::copy_tree(&input, dir)?;
        match &case.run {
            Runner::Command(f) => {
                let mut cmd = f(&ctx, dir, traced)?;
                cmd.current_dir(dir);
                Ok(exec::run_watched(
                    &mut cmd,
                    TIMEOUT,
                    traced.map(|t| t.traces),
                ))
            }
            Runner::Server(f) => f(&ctx, dir, traced),
        }
    };

    // Without the agent: the ground truth.
    let base = match go(&plain, None) {
        Ok(c) => c,
        Err(e) => {
            row.outcome = Outcome::Fail(format!("run without agent: {e}"));
            return row;
        }
    };
    std::fs::write(work.join("plain.stdout"), &base.stdout).ok();
    std::fs::write(work.join("plain.stderr"), &base.stderr).ok();
    if base.code != Some(0) || base.problem.is_some() {
        let errors: Vec<&str> = base
            .stdout
            .lines()
            .chain(base.stderr.lines())
            .filter(|l| l.contains("Error") || l.contains("Exception") || l.contains("FAIL"))
            .map(str::trim)
            .take(2)
            .collect();
        let first_error = if errors.is_empty() {
            base.stderr_tail()
        } else {
            util::clip(&errors.join(" | "), 300)
        };
        row.outcome = Outcome::Skip(format!(
            "fails without the agent on this JDK (exit {:?}{}): {first_error}",
            base.code,
            base.problem
                .as_ref()
                .map(|p| format!(", {p}"))
                .unwrap_or_default(),
        ));
        return row;
    }
    row.plain_secs = Some(base.secs);

    // With the agent.
    let traced = Traced {
        agent,
        options: case.options,
        traces: &traces,
    };
    let with = match go(&traced_dir, Some(&traced)) {
        Ok(c) => c,
        Err(e) => {
            row.outcome = Outcome::Fail(format!("run with agent: {e}"));
            return row;
        }
    };
    std::fs::write(work.join("agent.stdout"), &with.stdout).ok();
    std::fs::write(work.join("agent.stderr"), &with.stderr).ok();
    row.agent_secs = Some(with.secs);
    row.warnings = agent_notes(&with.stderr);
    row.outcome = match judge(
        case,
        &base,
        &with,
        (&plain, &traced_dir),
        (&traces, answers),
        &mut row,
    ) {
        Ok(()) => Outcome::Pass,
        Err(e) => Outcome::Fail(e),
    };
    if matches!(row.outcome, Outcome::Pass) && !settings.keep {
        let _ = std::fs::remove_dir_all(&work);
    }
    row
}

/// The run with the agent against the run without it (their working directories
/// `plain_dir` and `agent_dir`), then its traces (in `traces`; their exports and reports
/// go to `answers`, see `exec::answers_agree`).
fn judge(
    case: &Case,
    base: &Captured,
    with: &Captured,
    (plain_dir, agent_dir): (&Path, &Path),
    (traces, answers): (&Path, &Path),
    row: &mut Row,
) -> Result<(), String> {
    let cause = || first_new_error(base, with, plain_dir, agent_dir);
    let also = with
        .problem
        .as_ref()
        .map(|p| format!(" ({p})"))
        .unwrap_or_default();
    if with.code != base.code {
        return Err(format!(
            "exit code {:?} with the agent{also}, {:?} without; {}",
            with.code,
            base.code,
            cause()
        ));
    }
    if let Some(p) = &with.problem {
        return Err(format!("with agent: {p}; {}", cause()));
    }
    exec::same_stdout(
        &exec::normalise(&base.stdout, plain_dir, case.mask),
        &exec::normalise(&with.stdout, agent_dir, case.mask),
    )
    .map_err(|e| format!("{e}; {}", cause()))?;
    exec::same_files(plain_dir, agent_dir, case.ignore)?;
    let mut files: Vec<PathBuf> = std::fs::read_dir(traces)
        .map_err(|e| e.to_string())?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "xml"))
        .collect();
    files.sort();
    if files.is_empty() {
        return Err(format!("no trace written; stderr: {}", with.stderr_tail()));
    }
    for (k, f) in files.iter().enumerate() {
        let facts = exec::validate(f, &tracecheck_bin())?;
        row.trace_bytes += facts.bytes;
        row.events += facts.events;
        // An exact trace repairs nothing (issue 14): a call that happened is missing.
        if let Some(r) = facts.repairs {
            return Err(format!("the agent repaired or dropped records: {r}"));
        }
        // A program nobody here wrote: its truth is the report's, which the Parquet
        // export read by DuckDB must give too, and Spark over the run's whole fleet
        // ([`fleet_row`]; issue 20).
        // A trace id takes letters, digits, `.`, `-` and `_` (a JDK's directory may
        // have a `+`).
        let id: String = format!("{}-{}-{k}", case.name, row.jdk)
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_') {
                    c
                } else {
                    '-'
                }
            })
            .collect();
        exec::answers_agree(f, &jtrace_bin(), answers, &id)?;
    }
    Ok(())
}

/// The first line of the run with the agent (stdout, then stderr) that names an error, an
/// exception or a failure and that the run without it did not print: usually the reason it
/// failed (the agent's own lines are reported apart).
fn first_new_error(base: &Captured, with: &Captured, plain: &Path, agent: &Path) -> String {
    let keep = |l: &str| l.to_string();
    let seen: std::collections::HashSet<String> = exec::normalise(&base.stdout, plain, keep)
        .into_iter()
        .chain(exec::normalise(&base.stderr, plain, keep))
        .collect();
    let new: Vec<String> = exec::normalise(&with.stdout, agent, keep)
        .into_iter()
        .chain(exec::normalise(&with.stderr, agent, keep))
        .filter(|l| !l.starts_with("jtrace:") && !seen.contains(l))
        .collect();
    // A thrown error's own line ("…Error: …") says more than a summary ("Tests run: …").
    let thrown = new
        .iter()
        .find(|l| l.contains("Error:") || l.contains("Exception:"));
    thrown
        .or_else(|| {
            new.iter()
                .find(|l| l.contains("Error") || l.contains("Exception") || l.contains(" failed"))
        })
        .map(|l| format!("first new error: {}", util::clip(l.trim(), 200)))
        .unwrap_or_else(|| format!("stderr: {}", with.stderr_tail()))
}

/// Where a run's exports and reports go (`exec::answers_agree`), emptied.
fn fresh_answers() -> PathBuf {
    let answers = util::root().join("target/realworld/answers");
    let _ = std::fs::remove_dir_all(&answers);
    answers
}

/// Spark over the Parquet exports of the traces the run's cases wrote, at once (a fleet
/// of programs nobody here wrote), against each trace's report (`exec::fleet_agrees`),
/// on JDK 17 when there is one (else the first JDK); none when no trace's export agreed
/// with DuckDB. With `max_calls`, the traces of more calls are left out.
fn fleet_row(answers: &Path, jdks: &[Jdk], max_calls: Option<u64>) -> Option<Row> {
    let jdk = jdks.iter().find(|j| j.feature == 17).or(jdks.first())?;
    let outcome = match exec::fleet_agrees(answers, &jdk.home, max_calls) {
        Ok(None) => return None,
        Ok(Some(said)) => {
            println!("realworld/fleet-spark: {said}");
            Outcome::Pass
        }
        Err(e) => Outcome::Fail(e),
    };
    Some(Row {
        case: "fleet-spark",
        program: "Spark over every trace's Parquet export at once",
        version: "pyspark".into(),
        jdk: jdk.name.clone(),
        outcome,
        plain_secs: None,
        agent_secs: None,
        trace_bytes: 0,
        events: 0,
        warnings: Vec::new(),
    })
}

/// The release build of the `jtrace` command (see `exec::answers_agree`).
fn jtrace_bin() -> PathBuf {
    util::root().join("target/release/jtrace")
}

/// The release build of the tracecheck binary (see `exec::validate`).
fn tracecheck_bin() -> PathBuf {
    util::root().join("target/release/tracecheck")
}

/// Whether the release build ([`util::build_release`]) succeeded and made tracecheck's
/// binary, which the cases validate with.
fn built_with_tracecheck() -> bool {
    util::build_release().is_ok() && tracecheck_bin().is_file()
}

/// The packages of `cases`, made present (if `install`); per case, what is still missing.
fn packages(cases: &[&Case], install: bool) -> Vec<Vec<String>> {
    let mut all: Vec<&str> = cases
        .iter()
        .flat_map(|c| c.packages.iter().copied())
        .collect();
    all.sort_unstable();
    all.dedup();
    let missing = apt::ensure(&all, install);
    cases
        .iter()
        .map(|c| {
            c.packages
                .iter()
                .filter_map(|p| missing.get(*p).map(|why| format!("{p}: {why}")))
                .collect()
        })
        .collect()
}

/// The largest trace, in calls, of the subset's Spark fleet: javac's under `include=*`
/// (10 M calls each) would take Spark 1.5 minutes of the suite on two cores; `cargo
/// xtask realworld` puts every trace in.
const SUBSET_FLEET_CALLS: u64 = 2_000_000;

/// The subset for `cargo xtask test`, on every JDK; each row reported as it completes.
pub fn run_subset(agent: &Path, jdks: &[Jdk], report: &mut dyn FnMut(&Row)) {
    let settings = Settings {
        install: false,
        keep: false,
    };
    let all = cases();
    let subset: Vec<&Case> = all.iter().filter(|c| c.subset).collect();
    // Reported before the PASS/FAIL line, which the tally prints.
    let built = built_with_tracecheck();
    let mut missing = packages(&subset, false);
    if !built {
        for m in &mut missing {
            m.push("(not a package) cargo build --release -p tracecheck failed".to_string());
        }
    }
    let answers = fresh_answers();
    for jdk in jdks {
        for (case, missing) in subset.iter().zip(&missing) {
            let mut row = run_case(case, jdk, agent, &settings, missing, &answers);
            // `.ci/run` installs the subset's packages: here a missing one is a failure.
            if !missing.is_empty() {
                row.outcome = Outcome::Fail(format!("missing: {}", missing.join("; ")));
            }
            row.print_notes();
            report(&row);
        }
    }
    if let Some(row) = fleet_row(&answers, jdks, Some(SUBSET_FLEET_CALLS)) {
        report(&row);
    }
    let _ = std::fs::remove_dir_all(&answers);
}

const USAGE: &str = "usage: cargo xtask realworld [--subset] [--jdk PATH] [--keep] [CASE...]";

/// `cargo xtask realworld …`.
pub fn run(args: &[String]) -> bool {
    let mut settings = Settings {
        install: true,
        keep: false,
    };
    let mut subset = false;
    let mut jdk_paths: Vec<PathBuf> = Vec::new();
    let mut names: Vec<String> = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--subset" => subset = true,
            "--keep" => settings.keep = true,
            "--jdk" => match it.next() {
                Some(p) => jdk_paths.push(PathBuf::from(p)),
                None => {
                    eprintln!("{USAGE}");
                    return false;
                }
            },
            s if s.starts_with("--jdk=") => jdk_paths.push(PathBuf::from(&s[6..])),
            s if s.starts_with("--") => {
                eprintln!("{USAGE}");
                return false;
            }
            s => names.push(s.to_string()),
        }
    }
    let all = cases();
    if let Some(bad) = names
        .iter()
        .find(|n| !all.iter().any(|c| c.name == n.as_str()))
    {
        let known: Vec<&str> = all.iter().map(|c| c.name).collect();
        eprintln!("realworld: no case {bad}; cases: {}", known.join(" "));
        return false;
    }
    let selected: Vec<&Case> = all
        .iter()
        .filter(|c| {
            (!subset || c.subset) && (names.is_empty() || names.iter().any(|n| n == c.name))
        })
        .collect();
    let jdks: Vec<Jdk> = if jdk_paths.is_empty() {
        java::discover()
    } else {
        let found = java::discover();
        let mut v = Vec::new();
        for p in &jdk_paths {
            let canon = p.canonicalize().unwrap_or_else(|_| p.clone());
            match found.iter().find(|j| j.home == canon) {
                Some(j) => v.push(j.clone()),
                None => {
                    eprintln!(
                        "realworld: {} is not a JDK >= {} under {}",
                        p.display(),
                        java::MIN_FEATURE,
                        java::JVM_DIR
                    );
                    return false;
                }
            }
        }
        v
    };
    if jdks.is_empty() {
        eprintln!(
            "realworld: no JDK >= {} under {}",
            java::MIN_FEATURE,
            java::JVM_DIR
        );
        return false;
    }
    let built = built_with_tracecheck();
    let agent = util::root().join("target/release/libjtrace.so");
    if !built || !agent.is_file() {
        eprintln!("realworld: cargo build --release -p jtrace -p tracecheck failed");
        return false;
    }
    let missing = packages(&selected, settings.install);
    let mut skipped_pkgs: Vec<String> = missing.iter().flatten().cloned().collect();
    skipped_pkgs.sort();
    skipped_pkgs.dedup();
    for s in &skipped_pkgs {
        println!("realworld: skipping what needs {s}");
    }
    let mut rows = Vec::new();
    let answers = fresh_answers();
    for jdk in &jdks {
        for (case, missing) in selected.iter().zip(&missing) {
            let row = run_case(case, jdk, &agent, &settings, missing, &answers);
            println!("{}", row.line());
            row.print_notes();
            rows.push(row);
        }
    }
    if let Some(row) = fleet_row(&answers, &jdks, None) {
        println!("{}", row.line());
        rows.push(row);
    }
    if !settings.keep {
        let _ = std::fs::remove_dir_all(&answers);
    }
    let table = markdown(&rows);
    let out = util::root().join("target/realworld/report.md");
    let _ = std::fs::create_dir_all(out.parent().expect("has a parent"));
    let _ = std::fs::write(&out, &table);
    println!("\n{table}");
    let count = |f: fn(&Outcome) -> bool| rows.iter().filter(|r| f(&r.outcome)).count();
    let (passed, failed, skipped) = (
        count(|o| matches!(o, Outcome::Pass)),
        count(|o| matches!(o, Outcome::Fail(_))),
        count(|o| matches!(o, Outcome::Skip(_))),
    );
    println!("report: {}", out.display());
    println!("{passed} passed, {failed} failed, {skipped} skipped");
    failed == 0
}

/// The report as a markdown table (docs/RELIABILITY.md is filled from one).
pub fn markdown(rows: &[Row]) -> String {
    let mut s = String::from(
        "| case | program | version | JDK | outcome | without agent | with agent | ratio | trace | events |\n\
         |---|---|---|---|---|---:|---:|---:|---:|---:|\n",
    );
    for r in rows {
        let outcome = match &r.outcome {
            Outcome::Pass if r.warnings.is_empty() => "pass".to_string(),
            Outcome::Pass => format!("pass; warning: {}", r.warnings.join(" / ")),
            Outcome::Fail(w) => format!("**FAIL**: {}", util::clip(w, 160)),
            Outcome::Skip(w) => format!("skipped: {}", util::clip(w, 160)),
        };
        let secs = |s: Option<f64>| s.map(|s| format!("{s:.2} s")).unwrap_or_default();
        s.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n",
            r.case,
            r.program,
            r.version,
            r.jdk,
            outcome.replace('|', "\\|"),
            secs(r.plain_secs),
            secs(r.agent_secs),
            r.ratio().map(|x| format!("{x:.2}")).unwrap_or_default(),
            if r.trace_bytes > 0 {
                human_bytes(r.trace_bytes)
            } else {
                String::new()
            },
            if r.events > 0 {
                r.events.to_string()
            } else {
                String::new()
            },
        ));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn case_names_are_unique_and_subset_is_small() {
        let all = cases();
        let mut names: Vec<&str> = all.iter().map(|c| c.name).collect();
        names.sort_unstable();
        let n = names.len();
        names.dedup();
        assert_eq!(n, names.len());
        assert!(all.iter().filter(|c| c.subset).count() <= 5);
    }

    #[test]
    fn agent_lines_are_found() {
        let e = "x\njtrace: 3 exits that matched no open frame\njtrace: 2 classes could not be instrumented\n";
        assert_eq!(agent_notes(e).len(), 2);
    }
}
