//! `cargo xtask test`, step dist: the release archive proved from the outside. Built twice (the same bytes), unpacked into an empty directory and used with no Rust toolchain and no `target/` on `PATH`, a fresh `HOME` and an empty local Maven repository fed only by Debian's: binaries within the glibc the docs name, `-javaagent:` and `-agentpath:` giving the same answers, `bin/jtrace record -- mvn test`, the Maven plugin on a project that declares only it, the Gradle plugin likewise, the bash completion.

use crate::java;
use crate::package;
use crate::steps::testsuite;
use crate::tally::Tally;
use crate::util;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

// The newest glibc symbol version the binaries may need: the one they are built for, as
// docs/INSTALL.md says.
use crate::package::GLIBC;

/// What the step needs from Debian beyond the testsuite step's.
const NEEDS: [(&str, &str); 4] = [
    ("/usr/bin/mvn", "maven"),
    (
        "/usr/share/maven-repo/org/apache/maven/plugins/maven-plugin-plugin/3.7.1",
        "libmaven-plugin-tools-java",
    ),
    ("/usr/bin/gradle", "gradle"),
    ("/usr/bin/objdump", "binutils"),
];

struct Ctx {
    /// The unpacked archive.
    top: PathBuf,
    /// The fresh HOME.
    home: PathBuf,
    dir: PathBuf,
}

impl Ctx {
    /// A command with nothing of the build's environment: `PATH` of the system's
    /// directories only, a fresh `HOME`, temporary files under the step's directory.
    fn clean(&self, program: &str) -> Command {
        self.cleaned(Command::new(program))
    }

    /// `c` with the environment of [`Ctx::clean`] (a `java` command of [`java::Run`]).
    fn cleaned(&self, mut c: Command) -> Command {
        c.env_clear()
            .env("PATH", "/usr/bin:/bin")
            .env("HOME", &self.home)
            .env("LANG", "C.UTF-8")
            .env("TMPDIR", self.dir.join("tmp"))
            // Java takes its home from the password file, not HOME.
            .env(
                "MAVEN_OPTS",
                format!(
                    "-Duser.home={} -Djava.io.tmpdir={}",
                    self.home.display(),
                    self.dir.join("tmp").display()
                ),
            )
            .env(
                "GRADLE_OPTS",
                format!("-Duser.home={}", self.home.display()),
            );
        c
    }

    fn jtrace(&self) -> PathBuf {
        self.top.join("bin/jtrace")
    }
}

fn output(c: &mut Command, what: &str) -> Result<Output, String> {
    c.output().map_err(|e| format!("cannot run {what}: {e}"))
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// `cp -r from to`.
fn copy_dir(from: &Path, to: &Path) -> Result<(), String> {
    util::run_tool(Command::new("cp").arg("-r").arg(from).arg(to), "cp -r")
}

/// Builds the archive twice; both the same bytes.
fn build() -> Result<package::Dist, String> {
    let first = package::dist()?;
    let a = util::sha256(&first.archive)?;
    let second = package::dist()?;
    let b = util::sha256(&second.archive)?;
    if a != b {
        return Err(format!(
            "two builds of {} differ: {a} then {b}",
            first.archive.display()
        ));
    }
    let sums = std::fs::read_to_string(first.archive.with_file_name("SHA256SUMS"))
        .map_err(|e| e.to_string())?;
    if !sums.starts_with(&a) {
        return Err(format!("SHA256SUMS does not list {a}: {sums}"));
    }
    Ok(second)
}

fn unpack(d: &package::Dist, dir: &Path) -> Result<Ctx, String> {
    let _ = std::fs::remove_dir_all(dir);
    let into = dir.join("unpacked");
    for p in [&into, &dir.join("home"), &dir.join("tmp")] {
        std::fs::create_dir_all(p).map_err(|e| format!("{}: {e}", p.display()))?;
    }
    util::run_tool(
        Command::new("tar")
            .arg("-xzf")
            .arg(&d.archive)
            .arg("-C")
            .arg(&into),
        "tar -xzf",
    )?;
    let names: Vec<String> = std::fs::read_dir(&into)
        .map_err(|e| e.to_string())?
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    if names != [d.top.clone()] {
        return Err(format!(
            "the archive unpacks to {names:?}, not one {}",
            d.top
        ));
    }
    Ok(Ctx {
        top: into.join(&d.top),
        home: dir.join("home"),
        dir: dir.to_path_buf(),
    })
}

/// The highest `GLIBC_x.y` each binary needs is at most [`GLIBC`].
fn glibc(ctx: &Ctx) -> Result<String, String> {
    let mut said = Vec::new();
    for bin in ["bin/jtrace", "lib/libjtrace.so"] {
        let o = output(
            Command::new("objdump").arg("-T").arg(ctx.top.join(bin)),
            "objdump",
        )?;
        let dump = String::from_utf8_lossy(&o.stdout);
        let max = dump
            .split(|c: char| c.is_whitespace() || c == '(' || c == ')')
            .filter_map(|w| w.strip_prefix("GLIBC_"))
            .filter_map(|v| {
                let (a, b) = v.split_once('.')?;
                Some((
                    a.parse::<u32>().ok()?,
                    b.split('.').next()?.parse::<u32>().ok()?,
                ))
            })
            .max()
            .ok_or_else(|| format!("objdump -T {bin}: no GLIBC_ version"))?;
        if max > GLIBC {
            return Err(format!(
                "{bin} needs GLIBC_{}.{}, newer than the {}.{} the docs promise",
                max.0, max.1, GLIBC.0, GLIBC.1
            ));
        }
        said.push(format!("{bin} GLIBC_{}.{}", max.0, max.1));
    }
    Ok(said.join(", "))
}

/// `v` in a fixed order (the report lists methods and callers by time).
fn sorted(mut v: Vec<serde_json::Value>) -> Vec<serde_json::Value> {
    v.sort_by_key(|x| x.to_string());
    v
}

/// The answers on a trace that do not depend on time or scheduling: calls per method and
/// per caller, exits by exception, exceptions thrown and caught where.
fn exact_answers(report: &serde_json::Value) -> serde_json::Value {
    let methods: Vec<serde_json::Value> = report["methods"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|m| {
            let callers: Vec<serde_json::Value> = m["callers"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|c| serde_json::json!([c["jvm"], c["calls"]]))
                .collect();
            let callers = sorted(callers);
            serde_json::json!([
                m["jvm"],
                m["calls"],
                m["exception_exits"],
                m["open"],
                callers
            ])
        })
        .collect();
    let exceptions: Vec<serde_json::Value> = report["exceptions"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|e| {
            serde_json::json!([
                e["class"],
                e["thrown"],
                e["caught"],
                e["thrown_in"],
                e["caught_in"]
            ])
        })
        .collect();
    serde_json::json!({
        "calls": report["trace"]["calls"],
        "methods": sorted(methods),
        "exceptions": sorted(exceptions),
    })
}

/// examples/Demo.java with the archive's `-javaagent:` jar and with its `-agentpath:`
/// library: both traces valid, the same output, the same exact answers; and with the jar
/// alone, the default trace.
fn same_answers(ctx: &Ctx) -> Result<String, String> {
    let jdk = java::discover()
        .into_iter()
        .next()
        .ok_or("no JDK under /usr/lib/jvm")?;
    let classes = ctx.dir.join("demo");
    java::compile_sources(&jdk, &classes, &[util::root().join("examples/Demo.java")])?;
    let mut answers = Vec::new();
    let mut stdout = Vec::new();
    for (name, arg) in [
        (
            "javaagent",
            format!(
                "-javaagent:{}",
                ctx.top.join("lib/jtrace-agent.jar").display()
            ),
        ),
        (
            "agentpath",
            format!("-agentpath:{}", ctx.top.join("lib/libjtrace.so").display()),
        ),
    ] {
        let trace = ctx.dir.join(format!("{name}.jtr"));
        let o = output(
            &mut ctx.cleaned(
                java::Run::new(&jdk)
                    .arg(format!("{arg}=out={}", trace.display()))
                    .arg(format!(
                        "-Djava.io.tmpdir={}",
                        ctx.dir.join("tmp").display()
                    ))
                    .class_path(&classes)
                    .main("Demo")
                    .command(),
            ),
            "java Demo",
        )?;
        if !o.status.success() {
            return Err(format!("java {arg} Demo: {}", util::clip(&text(&o), 400)));
        }
        util::validate_jtr(&ctx.jtrace(), &trace, &trace.with_extension("xml"))?;
        let r = output(
            Command::new(ctx.jtrace())
                .arg("report")
                .arg("--json")
                .arg(&trace),
            "jtrace report",
        )?;
        let v: serde_json::Value = serde_json::from_slice(&r.stdout)
            .map_err(|e| format!("jtrace report --json {name}: {e}"))?;
        if v["trace"]["calls"].as_u64().unwrap_or(0) == 0 {
            return Err(format!("{name}: no calls traced"));
        }
        answers.push(exact_answers(&v));
        stdout.push(o.stdout);
    }
    if stdout[0] != stdout[1] {
        return Err("Demo printed differently under -javaagent and -agentpath".into());
    }
    default_out(ctx, &jdk, &classes)?;
    if answers[0] != answers[1] {
        return Err(format!(
            "jtrace report --json differs: -javaagent {} vs -agentpath {}",
            util::clip(&answers[0].to_string(), 300),
            util::clip(&answers[1].to_string(), 300)
        ));
    }
    Ok(format!("{} calls alike", answers[0]["calls"]))
}

/// `-javaagent:lib/jtrace-agent.jar` with no options: one valid `jtrace-PID.jtr` in the
/// working directory (compact records by default), and nothing else.
fn default_out(ctx: &Ctx, jdk: &java::Jdk, classes: &Path) -> Result<(), String> {
    let cwd = ctx.dir.join("default-out");
    std::fs::create_dir_all(&cwd).map_err(|e| e.to_string())?;
    let o = output(
        &mut ctx.cleaned(
            java::Run::new(jdk)
                .javaagent(&ctx.top.join("lib/jtrace-agent.jar"), "")
                .arg(format!(
                    "-Djava.io.tmpdir={}",
                    ctx.dir.join("tmp").display()
                ))
                .class_path(classes)
                .main("Demo")
                .dir(&cwd)
                .command(),
        ),
        "java Demo",
    )?;
    if !o.status.success() {
        return Err(format!(
            "java -javaagent Demo: {}",
            util::clip(&text(&o), 400)
        ));
    }
    let files: Vec<PathBuf> = util::files_under(&cwd);
    let [trace] = files.as_slice() else {
        return Err(format!(
            "the working directory holds {files:?}, wanted one trace"
        ));
    };
    let name = trace.file_name().unwrap_or_default().to_string_lossy();
    if !name.starts_with("jtrace-") || !name.ends_with(".jtr") {
        return Err(format!(
            "the default trace is {name}, wanted jtrace-PID.jtr"
        ));
    }
    util::validate_jtr(&ctx.jtrace(), trace, &ctx.dir.join("default-out.xml"))
}

/// `bin/jtrace record -- mvn test` on examples/maven-junit: the record jars found in the
/// archive's lib/, each test's counts as the test computed them.
fn record_mvn(ctx: &Ctx) -> Result<String, String> {
    let project = ctx.dir.join("maven-junit");
    copy_dir(&util::root().join("examples/maven-junit"), &project)?;
    let _ = std::fs::remove_dir_all(project.join("target"));
    let pattern = ctx.dir.join("record-%p.jtr");
    let o = output(
        ctx.clean(&ctx.jtrace().to_string_lossy())
            .args(["record", "--tests-only", "-o"])
            .arg(&pattern)
            .args([
                "lines=on",
                "--",
                "mvn",
                "-o",
                "-q",
                "-s",
                "settings.xml",
                "test",
            ])
            .current_dir(&project),
        "jtrace record",
    )?;
    // One test fails on purpose.
    if o.status.code() != Some(1) {
        return Err(format!(
            "jtrace record -- mvn test: exit {:?}, expected the tests' 1: {}",
            o.status.code(),
            util::clip(&text(&o), 600)
        ));
    }
    let traces = util::traces_named(&ctx.dir, "record")?;
    let [trace] = traces.as_slice() else {
        return Err(format!("{} traces, expected one", traces.len()));
    };
    testsuite::Ctx::new(&ctx.jtrace(), &ctx.dir, &project).check(
        "record",
        trace,
        &String::from_utf8_lossy(&o.stdout),
    )?;
    Ok("6 tests as they counted themselves".into())
}

/// A settings.xml whose local repository is the fresh HOME's and whose only source is
/// Debian's repository (a file URL: no network).
fn settings(ctx: &Ctx) -> Result<PathBuf, String> {
    let p = ctx.dir.join("settings.xml");
    std::fs::write(
        &p,
        format!(
            "<settings>\n  <localRepository>{}</localRepository>\n  <mirrors>\n    <mirror>\n      \
             <id>debian</id>\n      <mirrorOf>*</mirrorOf>\n      <url>file:///usr/share/maven-repo</url>\n    \
             </mirror>\n  </mirrors>\n</settings>\n",
            ctx.home.join(".m2/repository").display()
        ),
    )
    .map_err(|e| e.to_string())?;
    Ok(p)
}

/// install-maven-plugin.sh into the fresh HOME's empty repository.
fn install(ctx: &Ctx) -> Result<(), String> {
    let o = output(
        &mut ctx.clean(&ctx.top.join("install-maven-plugin.sh").to_string_lossy()),
        "install-maven-plugin.sh",
    )?;
    let said = text(&o);
    if !o.status.success() || !said.contains("installed io.jtrace:jtrace-maven-plugin") {
        return Err(format!(
            "install-maven-plugin.sh: {}",
            util::clip(&said, 400)
        ));
    }
    let bad = output(
        ctx.clean(&ctx.top.join("install-maven-plugin.sh").to_string_lossy())
            .args(["a", "b"]),
        "install-maven-plugin.sh a b",
    )?;
    if bad.status.code() != Some(2) {
        return Err("install-maven-plugin.sh with two arguments did not refuse".into());
    }
    Ok(())
}

/// examples/maven-plugin (a pom that adds only the plugin to examples/maven-junit's
/// project): `mvn verify` leaves one trace per test JVM under target/jtrace/, and beside it
/// the summary, coverage and HTML the plugin's report goal made; the trace's tests and
/// counts as the tests computed them, the plugin's lcov the same as `jtrace coverage`'s.
fn maven_plugin(ctx: &Ctx, settings: &Path) -> Result<String, String> {
    let project = ctx.dir.join("maven-plugin");
    std::fs::create_dir_all(&project).map_err(|e| e.to_string())?;
    copy_dir(
        &util::root().join("examples/maven-junit/src"),
        &project.join("src"),
    )?;
    std::fs::copy(
        util::root().join("examples/maven-plugin/pom.xml"),
        project.join("pom.xml"),
    )
    .map_err(|e| e.to_string())?;
    let o = output(
        ctx.clean("mvn")
            .arg("-B")
            .arg("-s")
            .arg(settings)
            .args(["verify", "-Dmaven.test.failure.ignore=true"])
            .current_dir(&project),
        "mvn verify",
    )?;
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    if !o.status.success() {
        let tail: Vec<&str> = out
            .lines()
            .filter(|l| l.contains("ERROR"))
            .take(8)
            .collect();
        return Err(format!("mvn verify failed: {}", tail.join(" | ")));
    }
    plugin_report(
        ctx,
        "maven-plugin",
        &project,
        &project.join("target/jtrace"),
        &out,
    )
}

/// What a plugin left in `dir`: one trace (one test JVM) whose tests and counts are as the
/// tests computed them (`stdout` has their TRUTH lines; `sources` holds
/// examples/maven-junit's src/main/java); beside it the report's files, its lcov the same
/// as `jtrace coverage`'s of that trace, its JaCoCo XML well-formed.
fn plugin_report(
    ctx: &Ctx,
    name: &str,
    sources: &Path,
    dir: &Path,
    stdout: &str,
) -> Result<String, String> {
    let traces: Vec<PathBuf> = util::files_under(dir)
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "jtr"))
        .collect();
    let [trace] = traces.as_slice() else {
        return Err(format!(
            "{} traces under {}, expected one",
            traces.len(),
            dir.display()
        ));
    };
    for f in [
        "tests.txt",
        "tests.md",
        "tests.json",
        "coverage.info",
        "jacoco.xml",
    ] {
        if std::fs::metadata(dir.join(f)).map_or(0, |m| m.len()) == 0 {
            return Err(format!("the plugin's report wrote no {f}"));
        }
    }
    let html = trace.with_extension("html");
    if !html.is_file() {
        return Err(format!("no {}", html.display()));
    }
    testsuite::Ctx::new(&ctx.jtrace(), &ctx.dir, sources).check(name, trace, stdout)?;
    // The plugin's lcov is jtrace coverage's of the same trace (check wrote NAME.info).
    let ours = std::fs::read_to_string(dir.join("coverage.info")).map_err(|e| e.to_string())?;
    let theirs =
        std::fs::read_to_string(ctx.dir.join(format!("{name}.info"))).map_err(|e| e.to_string())?;
    if ours != theirs {
        return Err("the plugin's coverage.info differs from jtrace coverage's".into());
    }
    util::run_tool(
        Command::new("xmllint")
            .arg("--noout")
            .arg(dir.join("jacoco.xml")),
        "xmllint jacoco.xml",
    )?;
    Ok(format!("{}: tests, coverage and report", dir.display()))
}

/// examples/gradle-plugin (examples/junit4's tests with the plugin as the only addition,
/// `plugins { id 'io.jtrace' version '0.1.0' }` from mavenLocal()): `gradle --offline test`
/// leaves the trace and jtraceTestReport's files under build/jtrace/test/. One test fails
/// on purpose, so Gradle exits 1, after the report (which finalizes the test task).
fn gradle_plugin(ctx: &Ctx) -> Result<String, String> {
    let root = util::root().join("examples");
    let base = ctx.dir.join("gradle");
    std::fs::create_dir_all(&base).map_err(|e| e.to_string())?;
    for e in ["gradle-plugin", "junit4", "maven-junit"] {
        copy_dir(&root.join(e), &base.join(e))?;
    }
    let project = base.join("gradle-plugin");
    let o = output(
        ctx.clean("gradle")
            .args(["--offline", "--no-daemon", "test"])
            .env("GRADLE_USER_HOME", ctx.home.join(".gradle"))
            .current_dir(&project),
        "gradle test",
    )?;
    let out = text(&o);
    if o.status.code() != Some(1) || !out.contains("There were failing tests") {
        return Err(format!(
            "gradle test: exit {:?}, expected 1 (one test fails on purpose): {}",
            o.status.code(),
            util::clip(&out, 800)
        ));
    }
    plugin_report(
        ctx,
        "gradle-plugin",
        &base.join("maven-junit"),
        &project.join("build/jtrace/test"),
        &out,
    )
}

/// The Maven plugin's gate goal on the traces `maven_plugin` left: `-Djtrace.gate.update`
/// learns a baseline, the same traces then pass, and with one count of the baseline
/// lowered (`Calc.fib`'s calls in one test) the build fails naming the rise.
fn maven_gate(ctx: &Ctx, settings: &Path) -> Result<String, String> {
    let project = ctx.dir.join("maven-plugin");
    let goal = format!(
        "io.jtrace:jtrace-maven-plugin:{}:gate",
        env!("CARGO_PKG_VERSION")
    );
    let mvn = |extra: &[&str]| {
        output(
            ctx.clean("mvn")
                .arg("-B")
                .arg("-s")
                .arg(settings)
                .arg(&goal)
                .args(extra)
                .current_dir(&project),
            "mvn jtrace:gate",
        )
    };
    let learn = mvn(&["-Djtrace.gate.update=true"])?;
    let baseline = project.join("jtrace-baseline.json");
    if !learn.status.success() || !baseline.is_file() {
        return Err(format!(
            "gate -Djtrace.gate.update=true: {}",
            util::clip(&text(&learn), 600)
        ));
    }
    let pass = mvn(&[])?;
    if !pass.status.success() {
        return Err(format!(
            "gate on the traces it learned from failed: {}",
            util::clip(&text(&pass), 600)
        ));
    }
    let json = std::fs::read_to_string(&baseline).map_err(|e| e.to_string())?;
    let key = "\"example.Calc.fib(I)I\": ";
    let at = json
        .find(key)
        .ok_or("the baseline counts no calls of Calc.fib")?
        + key.len();
    let end = at + json[at..].find(|c: char| !c.is_ascii_digit()).unwrap_or(0);
    let n: u64 = json[at..end]
        .parse()
        .map_err(|_| "no count after Calc.fib")?;
    if n == 0 {
        return Err("Calc.fib's first count is 0".into());
    }
    let lowered = format!("{}{}{}", &json[..at], n - 1, &json[end..]);
    std::fs::write(&baseline, lowered).map_err(|e| e.to_string())?;
    let fail = mvn(&[])?;
    let said = text(&fail);
    if fail.status.success() || !said.contains("counts rose") || !said.contains("Calc.fib") {
        return Err(format!(
            "a baseline with Calc.fib lowered to {} did not fail the build naming it: {}",
            n - 1,
            util::clip(&said, 800)
        ));
    }
    Ok(format!(
        "learned, passed, failed on Calc.fib {} > {}",
        n,
        n - 1
    ))
}

/// The bash completion the archive carries loads and completes a subcommand.
fn completion(ctx: &Ctx) -> Result<(), String> {
    let script = ctx.top.join("share/bash-completion/completions/jtrace");
    let o = output(
        ctx.clean("bash").arg("-c").arg(format!(
            "source {}; COMP_WORDS=(jtrace rep); COMP_CWORD=1; _jtrace jtrace rep jtrace; \
             echo \"${{COMPREPLY[@]}}\"",
            script.display()
        )),
        "bash",
    )?;
    let said = String::from_utf8_lossy(&o.stdout);
    if said.trim() != "report replay" {
        return Err(format!(
            "bash completed `jtrace rep` as {said:?}: {}",
            text(&o)
        ));
    }
    for page in ["jtrace.1", "jtrace-record.1", "jtrace-gate.1"] {
        if !ctx.top.join("share/man/man1").join(page).is_file() {
            return Err(format!("no man page {page}"));
        }
    }
    Ok(())
}

pub fn run(tally: &mut Tally, work: &Path) {
    if let Err(e) = util::needs(&NEEDS) {
        return tally.report(Err(e), "-", "dist");
    }
    let d = match build() {
        Ok(d) => d,
        Err(e) => return tally.report(Err(e), "-", "dist/build-twice-same-bytes"),
    };
    tally.report(Ok(()), "-", "dist/build-twice-same-bytes");
    let ctx = match unpack(&d, &work.join("dist")) {
        Ok(c) => c,
        Err(e) => return tally.report(Err(e), "-", "dist/unpack"),
    };
    tally.report(glibc(&ctx).map(|_| ()), "-", "dist/glibc");
    tally.report(
        same_answers(&ctx).map(|_| ()),
        "-",
        "dist/javaagent-same-as-agentpath",
    );
    tally.report(record_mvn(&ctx).map(|_| ()), "-", "dist/record-mvn-test");
    tally.report(completion(&ctx), "-", "dist/bash-completion-man");
    let plugins = install(&ctx).and_then(|()| settings(&ctx));
    let settings = match plugins {
        Ok(s) => s,
        Err(e) => return tally.report(Err(e), "-", "dist/install-maven-plugin"),
    };
    tally.report(Ok(()), "-", "dist/install-maven-plugin");
    let maven = maven_plugin(&ctx, &settings);
    let ran = maven.is_ok();
    tally.report(maven.map(|_| ()), "-", "dist/maven-plugin");
    if ran {
        tally.report(
            maven_gate(&ctx, &settings).map(|_| ()),
            "-",
            "dist/maven-plugin-gate",
        );
    }
    tally.report(gradle_plugin(&ctx).map(|_| ()), "-", "dist/gradle-plugin");
}
