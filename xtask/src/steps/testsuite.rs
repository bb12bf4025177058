//! `cargo xtask test`, step testsuite: examples/maven-junit under `jtrace record -- mvn -o test` and the JUnit console launcher, examples/junit4 (JUnit 4) under `jtrace record -- ant` (Ant's classic `<junit>`, forked and in Ant's JVM), through the console launcher's vintage engine, under `jtrace record -- mvn -o test` (surefire's junit4 provider) and `jtrace record -- gradle test` (Debian's Gradle 4.4.1, its JUnit 4 runner); each test's outcome, calls and line counts against what the tests print, lcov through genhtml and Chromium, JaCoCo XML against report.dtd and through diff-cover.
//!
//! The tests print `TRUTH|method|display name|outcome|fib calls|classify calls|` then the
//! executions of the source lines marked `// L:classify-test`, `classify-even`,
//! `classify-odd`, `classify-return` and `never` in Calc.java (examples/maven-junit).

use crate::tally::Tally;
use crate::util;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The marked lines of Calc.java, in TRUTH order after the two call counts.
const MARKERS: [&str; 5] = [
    "classify-test",
    "classify-even",
    "classify-odd",
    "classify-return",
    "never",
];

/// Debian's packages the step needs (`.ci/run` installs them).
const NEEDS: [(&str, &str); 10] = [
    ("/usr/bin/mvn", "maven"),
    (
        "/usr/share/maven-repo/org/apache/maven/plugins/maven-surefire-plugin/2.22.3",
        "libsurefire-java",
    ),
    (
        "/usr/share/maven-repo/org/apache/maven/plugins/maven-compiler-plugin/3.10.1",
        "libmaven-compiler-plugin-java",
    ),
    (
        "/usr/share/java/junit-platform-console-standalone.jar",
        "junit5",
    ),
    ("/usr/bin/genhtml", "lcov"),
    ("/usr/share/java/org.jacoco.report.jar", "libjacoco-java"),
    ("/usr/bin/ant", "ant"),
    ("/usr/share/ant/lib/ant-junit.jar", "ant-optional"),
    ("/usr/share/java/junit4.jar", "junit4"),
    ("/usr/bin/gradle", "gradle"),
];

struct Truth {
    method: String,
    name: String,
    outcome: String,
    fib: u64,
    classify: u64,
    lines: [u64; 5],
}

fn truths(stdout: &str) -> Result<Vec<Truth>, String> {
    let mut out = Vec::new();
    // Ant prints the tests' output as `    [junit] TRUTH|...`.
    for l in stdout
        .lines()
        .filter_map(|l| l.split_once("TRUTH|").map(|(_, t)| t))
    {
        let f: Vec<&str> = l.split('|').collect();
        let num = |i: usize| -> Result<u64, String> {
            f.get(i)
                .and_then(|v| v.trim().parse().ok())
                .ok_or_else(|| format!("bad TRUTH line {l:?}"))
        };
        out.push(Truth {
            method: f[0].to_string(),
            name: f.get(1).unwrap_or(&"").to_string(),
            outcome: f.get(2).unwrap_or(&"").to_string(),
            fib: num(3)?,
            classify: num(4)?,
            lines: [num(5)?, num(6)?, num(7)?, num(8)?, num(9)?],
        });
    }
    if out.len() != 6 {
        return Err(format!("{} TRUTH lines, expected 6", out.len()));
    }
    Ok(out)
}

/// `jtrace tests`' label of a test, as an lcov test name.
fn tn(t: &Truth) -> String {
    let plain = t.name == t.method || t.name.starts_with(&format!("{}(", t.method));
    let label = if plain {
        format!("CalcTest.{}", t.method)
    } else {
        format!("CalcTest.{} {}", t.method, t.name)
    };
    label
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect()
}

/// Per lcov test name, Calc.java's FNDA and DA counts.
type Sheet = (HashMap<String, u64>, HashMap<u32, u64>);

fn parse_lcov(text: &str) -> HashMap<String, Sheet> {
    let mut out: HashMap<String, Sheet> = HashMap::new();
    let (mut tn, mut calc) = (String::new(), false);
    for l in text.lines() {
        if let Some(t) = l.strip_prefix("TN:") {
            tn = t.to_string();
        } else if let Some(sf) = l.strip_prefix("SF:") {
            calc = sf.ends_with("example/Calc.java");
        } else if calc {
            let e = out.entry(tn.clone()).or_default();
            if let Some(v) = l.strip_prefix("FNDA:") {
                if let Some((n, name)) = v.split_once(',') {
                    e.0.insert(name.to_string(), n.parse().unwrap_or(u64::MAX));
                }
            } else if let Some(v) = l.strip_prefix("DA:") {
                if let Some((line, n)) = v.split_once(',') {
                    e.1.insert(line.parse().unwrap_or(0), n.parse().unwrap_or(u64::MAX));
                }
            }
        }
    }
    out
}

/// Line numbers of the markers in Calc.java.
fn marker_lines(src: &Path) -> Result<[u32; 5], String> {
    let text = std::fs::read_to_string(src).map_err(|e| format!("{}: {e}", src.display()))?;
    let mut out = [0u32; 5];
    for (i, m) in MARKERS.iter().enumerate() {
        out[i] = text
            .lines()
            .position(|l| l.trim_end().ends_with(&format!("// L:{m}")))
            .map(|p| p as u32 + 1)
            .ok_or_else(|| format!("Calc.java has no // L:{m}"))?;
    }
    Ok(out)
}

fn run_out(cmd: &mut Command, what: &str) -> Result<Output, String> {
    cmd.output().map_err(|e| format!("cannot run {what}: {e}"))
}

fn ok(o: &Output, what: &str) -> Result<String, String> {
    util::stdout_of(o, what)
}

pub struct Ctx {
    jtrace: PathBuf,
    dir: PathBuf,
    project: PathBuf,
    /// examples/junit4 beside `project` (it builds `project`'s Calc.java).
    ant: PathBuf,
}

impl Ctx {
    /// Checks made with `jtrace` (another build's, as the release archive's) on a copy of
    /// examples/maven-junit at `project`, their files under `dir`.
    pub fn new(jtrace: &Path, dir: &Path, project: &Path) -> Ctx {
        Ctx {
            jtrace: jtrace.to_path_buf(),
            dir: dir.to_path_buf(),
            project: project.to_path_buf(),
            ant: dir.to_path_buf(),
        }
    }

    fn jtrace(&self, args: &[&str]) -> Result<String, String> {
        let o = run_out(Command::new(&self.jtrace).args(args), "jtrace")?;
        ok(&o, &format!("jtrace {}", args.join(" ")))
    }

    /// Runs `command` in `cwd` under `jtrace record` (lines=on); returns the one trace, stdout.
    fn record(
        &self,
        cwd: &Path,
        name: &str,
        extra: &[&str],
        command: &[&str],
    ) -> Result<(PathBuf, String), String> {
        let pattern = self.dir.join(format!("{name}-%p.jtr"));
        let mut args = vec!["record", "-o", pattern.to_str().unwrap_or_default()];
        args.extend_from_slice(extra);
        args.push("lines=on");
        args.push("--");
        args.extend_from_slice(command);
        let o = run_out(
            Command::new(&self.jtrace).args(&args).current_dir(cwd),
            "jtrace record",
        )?;
        let stdout = String::from_utf8_lossy(&o.stdout).into_owned();
        let stderr = String::from_utf8_lossy(&o.stderr);
        // One test fails on purpose: the command's exit code is 1, and so is jtrace's.
        if o.status.code() != Some(1) {
            return Err(format!(
                "jtrace record -- {}: exit code {:?}, expected the command's 1: {}",
                command.join(" "),
                o.status.code(),
                util::clip(stderr.trim(), 400)
            ));
        }
        // (Ant relays a forked JVM's stderr as `    [junit] Picked up ...`.)
        if stdout
            .lines()
            .any(|l| l.starts_with("Picked up JAVA_TOOL_OPTIONS"))
        {
            return Err("a JVM wrote \"Picked up JAVA_TOOL_OPTIONS\" on stdout".into());
        }
        let traces = util::traces_named(&self.dir, name)?;
        let [trace] = traces.as_slice() else {
            return Err(format!(
                "{} traces of {name}, expected one: {}",
                traces.len(),
                stderr.trim()
            ));
        };
        if !stderr.contains(&format!("{}:", trace.display())) || !stderr.contains("nothing dropped")
        {
            return Err(format!(
                "jtrace record's summary does not name {}: {}",
                trace.display(),
                util::clip(stderr.trim(), 400)
            ));
        }
        Ok((trace.clone(), stdout))
    }

    /// example.CalcTest of `classes` through the JUnit console launcher's `engine`, under
    /// `jtrace record` in `cwd`, checked.
    fn console(
        &self,
        cwd: &Path,
        name: &str,
        classes: &str,
        engine: &str,
    ) -> Result<PathBuf, String> {
        let engine = format!("--include-engine={engine}");
        let (t, out) = self.record(
            cwd,
            name,
            &[],
            &[
                "java",
                "-jar",
                "/usr/share/java/junit-platform-console-standalone.jar",
                "--disable-banner",
                "--details=none",
                &engine,
                "-cp",
                classes,
                "--select-class",
                "example.CalcTest",
            ],
        )?;
        self.check(name, &t, &out).map(|()| t)
    }

    /// The trace valid (xmllint against docs/trace.dtd, tracecheck); each test's outcome,
    /// calls and line counts as its TRUTH line says; totals outside tests 0.
    pub fn check(&self, name: &str, trace: &Path, stdout: &str) -> Result<(), String> {
        let truth = truths(stdout)?;
        let t = trace.to_str().unwrap_or_default();
        let xml = self.dir.join(format!("{name}.xml"));
        util::validate_jtr(&self.jtrace, trace, &xml)?;
        let tests: serde_json::Value = serde_json::from_str(&self.jtrace(&["tests", "--json", t])?)
            .map_err(|e| format!("jtrace tests --json: {e}"))?;
        let tests = tests.as_array().cloned().unwrap_or_default();
        if tests.len() != truth.len() {
            return Err(format!(
                "jtrace tests lists {} tests, the run printed {}",
                tests.len(),
                truth.len()
            ));
        }
        let lcov = self.dir.join(format!("{name}.info"));
        let main = self.project.join("src/main/java");
        self.jtrace(&[
            "coverage",
            t,
            "--source-root",
            main.to_str().unwrap_or_default(),
            "-o",
            lcov.to_str().unwrap_or_default(),
        ])?;
        let sheets = parse_lcov(&std::fs::read_to_string(&lcov).map_err(|e| e.to_string())?);
        let lines = marker_lines(&main.join("example/Calc.java"))?;
        let mut errs = Vec::new();
        for tr in &truth {
            let who = format!("{} {:?}", tr.method, tr.name);
            let Some(j) = tests
                .iter()
                .find(|j| j["method"] == tr.method.as_str() && j["name"] == tr.name.as_str())
            else {
                errs.push(format!("{who}: not in jtrace tests"));
                continue;
            };
            if j["outcome"] != tr.outcome.as_str() {
                errs.push(format!("{who}: outcome {} != {}", j["outcome"], tr.outcome));
            }
            let Some((fnda, da)) = sheets.get(&tn(tr)) else {
                errs.push(format!("{who}: no lcov record TN:{}", tn(tr)));
                continue;
            };
            let get = |m: &HashMap<String, u64>, k: &str| m.get(k).copied().unwrap_or(0);
            for (k, want) in [
                ("Calc.fib(I)I", tr.fib),
                ("Calc.classify(I)Z", tr.classify),
                ("Calc.<init>()V", 1),
            ] {
                if get(fnda, k) != want {
                    errs.push(format!(
                        "{who}: {k} called {} times, the test says {want}",
                        get(fnda, k)
                    ));
                }
            }
            for (i, m) in MARKERS.iter().enumerate() {
                let got = da.get(&lines[i]).copied().unwrap_or(0);
                if got != tr.lines[i] {
                    errs.push(format!(
                        "{who}: line {} ({m}) ran {got} times, the test says {}",
                        lines[i], tr.lines[i]
                    ));
                }
            }
        }
        // Nothing of Calc ran outside the tests; the file lists every line, `never` at 0.
        if let Some((_, da)) = sheets.get("jtrace_outside_tests") {
            for (i, m) in MARKERS.iter().enumerate() {
                match da.get(&lines[i]) {
                    Some(0) => {}
                    other => errs.push(format!(
                        "outside tests: line {} ({m}) {other:?}, expected 0",
                        lines[i]
                    )),
                }
            }
        } else {
            errs.push("no jtrace_outside_tests record".into());
        }
        // The CI outputs: the step summary, JUnit XML, and a trace against itself.
        let failed = truth.iter().filter(|t| t.outcome == "FAILED").count();
        let md = self.jtrace(&["tests", "--markdown", t])?;
        if md.len() >= 1 << 20
            || !md.contains(&format!(
                "## jtrace: {} tests, {failed} failed",
                truth.len()
            ))
        {
            errs.push(format!("tests --markdown: {}", util::clip(&md, 200)));
        }
        let junit = self.jtrace(&["tests", "--junit-xml", t])?;
        if junit.matches("<testcase ").count() != truth.len()
            || junit.matches("<failure").count() != failed
        {
            errs.push(format!("tests --junit-xml: {}", util::clip(&junit, 200)));
        }
        let diff = self.jtrace(&["diff", "--by-test", t, t])?;
        if !diff.starts_with(&format!("0 of {} tests changed", truth.len())) {
            errs.push(format!(
                "diff --by-test of a trace with itself: {}",
                util::clip(&diff, 200)
            ));
        }
        // --test narrows report: fib's calls in the fibonacci test alone.
        let fib = truth
            .iter()
            .find(|t| t.method == "fibonacci")
            .map_or(0, |t| t.fib);
        let rep: serde_json::Value =
            serde_json::from_str(&self.jtrace(&["report", "--json", "--test", "fibonacci", t])?)
                .map_err(|e| format!("report --json: {e}"))?;
        let calls = rep["methods"]
            .as_array()
            .and_then(|ms| {
                ms.iter()
                    .find(|m| m["class"] == "example.Calc" && m["name"] == "fib")
            })
            .and_then(|m| m["calls"].as_u64());
        if calls != Some(fib) {
            errs.push(format!(
                "report --test fibonacci: Calc.fib calls {calls:?}, the test says {fib}"
            ));
        }
        // --test through the .jtr's index (read from the test's start) answers as the
        // XML twin's whole read.
        let x = xml.to_str().unwrap_or_default();
        for tr in &truth {
            for answer in [&["report", "--json"][..], &["collapsed"]] {
                let run = |trace: &str| -> Result<String, String> {
                    let mut args = answer.to_vec();
                    args.extend(["--test", tr.method.as_str(), trace]);
                    let out = self.jtrace(&args)?;
                    // The report names its file: the same name for both.
                    Ok(out.replace(trace, "TRACE"))
                };
                let (got, want) = (run(t)?, run(x)?);
                if got != want {
                    errs.push(format!(
                        "{} --test {}: the .jtr's answer differs from the XML's",
                        answer.join(" "),
                        tr.method
                    ));
                }
            }
        }
        if errs.is_empty() {
            Ok(())
        } else {
            Err(errs.join("; "))
        }
    }

    /// `diff --by-test` of an Ant run against a vintage-engine run of the same classes:
    /// every test paired (none new), the tests' own methods called as often in both.
    fn paired(&self, ant: &Path, vintage: &Path) -> Result<(), String> {
        let (a, v) = (
            ant.to_str().unwrap_or_default(),
            vintage.to_str().unwrap_or_default(),
        );
        let diff: serde_json::Value =
            serde_json::from_str(&self.jtrace(&["diff", "--by-test", "--json", a, v])?)
                .map_err(|e| format!("diff --by-test --json: {e}"))?;
        let new_tests = diff["new_tests"].as_array().map_or(usize::MAX, Vec::len);
        if new_tests != 0 {
            return Err(format!(
                "diff --by-test Ant vs vintage: {} tests not paired: {}",
                new_tests, diff["new_tests"]
            ));
        }
        let mut errs = Vec::new();
        for t in diff["changed"].as_array().into_iter().flatten() {
            for m in t["methods"].as_array().into_iter().flatten() {
                let ours = m["method"]
                    .as_str()
                    .unwrap_or_default()
                    .starts_with("example.");
                if ours && m["calls_before"] != m["calls_after"] {
                    errs.push(format!("{}: {}", t["test"], m));
                }
            }
        }
        if errs.is_empty() {
            Ok(())
        } else {
            Err(format!("Ant vs vintage, calls differ: {}", errs.join("; ")))
        }
    }

    /// genhtml reads the lcov file; its page opens in headless Chromium and shows Calc.java.
    fn genhtml(&self, lcov: &Path) -> Result<(), String> {
        let html = self.dir.join("genhtml");
        let _ = std::fs::remove_dir_all(&html);
        let o = run_out(
            Command::new("genhtml")
                .arg(lcov)
                .arg("-o")
                .arg(&html)
                .arg("--quiet"),
            "genhtml (apt-get install lcov)",
        )?;
        ok(&o, "genhtml")?;
        let page = html.join("example/Calc.java.gcov.html");
        if !page.is_file() {
            return Err(format!("genhtml wrote no {}", page.display()));
        }
        let o = util::chromium_dump_dom(
            &format!("file://{}", page.display()),
            &self.dir.join("chromium-profile"),
        )?;
        let dom = ok(&o, "chromium")?;
        // The source view shows each line's hit count: classify ran 20 times in the threads test alone.
        if !dom.contains("classify") || !dom.contains("neverCalled") {
            return Err("genhtml's page in Chromium does not show Calc.java's source".into());
        }
        Ok(())
    }

    /// JaCoCo XML valid against JaCoCo's report.dtd (from Debian's libjacoco-java), read by
    /// diff-cover: the lines it reports uncovered are those lcov counts 0 times.
    fn jacoco(&self, trace: &Path, lcov: &Path) -> Result<(), String> {
        let xml = self.dir.join("jacoco.xml");
        let main = self.project.join("src/main/java");
        self.jtrace(&[
            "coverage",
            trace.to_str().unwrap_or_default(),
            "--source-root",
            main.to_str().unwrap_or_default(),
            "-o",
            xml.to_str().unwrap_or_default(),
        ])?;
        let dtd = self.dir.join("report.dtd");
        let o = run_out(
            Command::new("unzip").args([
                "-p",
                "/usr/share/java/org.jacoco.report.jar",
                "org/jacoco/report/xml/report.dtd",
            ]),
            "unzip",
        )?;
        std::fs::write(&dtd, ok(&o, "unzip report.dtd")?).map_err(|e| e.to_string())?;
        let o = run_out(
            Command::new("xmllint")
                .arg("--noout")
                .arg("--dtdvalid")
                .arg(&dtd)
                .arg(&xml),
            "xmllint",
        )?;
        ok(&o, "xmllint --dtdvalid report.dtd")?;
        // diff-cover needs a git change: the sources added on a branch.
        let repo = self.dir.join("diffcover");
        let _ = std::fs::remove_dir_all(&repo);
        std::fs::create_dir_all(&repo).map_err(|e| e.to_string())?;
        let git = |args: &[&str]| -> Result<String, String> {
            let o = run_out(
                Command::new("git")
                    .args([
                        "-c",
                        "user.name=t",
                        "-c",
                        "user.email=t@t",
                        "-c",
                        "init.defaultBranch=base",
                    ])
                    .args(args)
                    .current_dir(&repo),
                "git",
            )?;
            ok(&o, &format!("git {}", args.join(" ")))
        };
        git(&["init", "-q"])?;
        std::fs::write(repo.join("README"), "base\n").map_err(|e| e.to_string())?;
        git(&["add", "."])?;
        git(&["commit", "-qm", "base"])?;
        git(&["checkout", "-qb", "change"])?;
        let src = repo.join("src/main/java/example");
        std::fs::create_dir_all(&src).map_err(|e| e.to_string())?;
        std::fs::copy(main.join("example/Calc.java"), src.join("Calc.java"))
            .map_err(|e| e.to_string())?;
        git(&["add", "."])?;
        git(&["commit", "-qm", "change"])?;
        let report = self.dir.join("diffcover.json");
        let o = run_out(
            Command::new("diff-cover")
                .arg(&xml)
                .args([
                    "--compare-branch=base",
                    "--src-roots",
                    "src/main/java",
                    "--json-report",
                ])
                .arg(&report)
                .current_dir(&repo),
            "diff-cover (pip install diff-cover)",
        )?;
        ok(&o, "diff-cover")?;
        let j: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&report).map_err(|e| e.to_string())?)
                .map_err(|e| format!("diff-cover JSON: {e}"))?;
        let stats = &j["src_stats"]["src/main/java/example/Calc.java"];
        let mut violations: Vec<u64> = stats["violation_lines"]
            .as_array()
            .ok_or_else(|| format!("diff-cover has no Calc.java: {j}"))?
            .iter()
            .filter_map(serde_json::Value::as_u64)
            .collect();
        violations.sort_unstable();
        let sheets = parse_lcov(&std::fs::read_to_string(lcov).map_err(|e| e.to_string())?);
        let mut total: HashMap<u32, u64> = HashMap::new();
        for (_, da) in sheets.values() {
            for (&l, &n) in da {
                *total.entry(l).or_default() += n;
            }
        }
        let mut zero: Vec<u64> = total
            .iter()
            .filter(|(_, &n)| n == 0)
            .map(|(&l, _)| l as u64)
            .collect();
        zero.sort_unstable();
        if violations != zero {
            return Err(format!(
                "diff-cover's uncovered lines {violations:?} != lines lcov counts 0 times {zero:?}"
            ));
        }
        Ok(())
    }
}

fn prepare(work: &Path, agent: &Path) -> Result<Ctx, String> {
    util::needs(&NEEDS)?;
    crate::package::build_jar()?;
    let jtrace = agent.with_file_name("jtrace");
    let dir = work.join("testsuite");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let project = dir.join("maven-junit");
    let ant = dir.join("junit4");
    for (from, to) in [("maven-junit", &project), ("junit4", &ant)] {
        let o = run_out(
            Command::new("cp")
                .arg("-r")
                .arg(util::root().join("examples").join(from))
                .arg(to),
            "cp",
        )?;
        ok(&o, &format!("cp examples/{from}"))?;
    }
    let _ = std::fs::remove_dir_all(project.join("target"));
    let _ = std::fs::remove_dir_all(ant.join("build"));
    let _ = std::fs::remove_dir_all(ant.join("target"));
    Ok(Ctx {
        jtrace,
        dir,
        project,
        ant,
    })
}

/// The step: Maven (forked surefire) and the JUnit console launcher, then the readers.
pub fn run(tally: &mut Tally, agent: &Path, work: &Path) {
    let ctx = match prepare(work, agent) {
        Ok(c) => c,
        Err(e) => return tally.report(Err(e), "-", "testsuite"),
    };
    let maven = ctx.record(
        &ctx.project,
        "maven",
        &["--tests-only"],
        &["mvn", "-o", "-q", "-s", "settings.xml", "test"],
    );
    let maven = maven.and_then(|(t, out)| ctx.check("maven", &t, &out).map(|()| t));
    let trace = maven.as_ref().ok().cloned();
    tally.report(maven.map(|_| ()), "-", "testsuite/mvn-test");
    let classes = format!(
        "{}:{}",
        ctx.project.join("target/classes").display(),
        ctx.project.join("target/test-classes").display()
    );
    let console = ctx.console(&ctx.project, "console", &classes, "junit-jupiter");
    tally.report(console.map(|_| ()), "-", "testsuite/junit-console");
    junit4(tally, &ctx);
    let Some(trace) = trace else { return };
    let lcov = ctx.dir.join("maven.info");
    tally.report(ctx.genhtml(&lcov), "-", "testsuite/genhtml-chromium");
    tally.report(
        ctx.jacoco(&trace, &lcov),
        "-",
        "testsuite/jacoco-diff-cover",
    );
}

/// JUnit 4 tests (examples/junit4): Ant's classic `<junit>` forked (the trace starts in
/// the test JVM) and in Ant's own JVM (the trace starts at the first test), both through
/// `junit.framework.TestResult`, then the same classes through the vintage engine, Maven
/// surefire's junit4 provider and Gradle (`RunNotifier`).
fn junit4(tally: &mut Tally, ctx: &Ctx) {
    let mut ant_trace = None;
    for fork in ["yes", "no"] {
        let name = format!("ant-fork-{fork}");
        let r = ctx
            .record(
                &ctx.ant,
                &name,
                &["--tests-only"],
                &["ant", &format!("-Dfork={fork}"), "test"],
            )
            .and_then(|(t, out)| ctx.check(&name, &t, &out).map(|()| t));
        if fork == "yes" {
            ant_trace = r.as_ref().ok().cloned();
        }
        tally.report(
            r.map(|_| ()),
            "-",
            &format!("testsuite/ant-junit-fork-{fork}"),
        );
    }
    let build = ctx.ant.join("build");
    let classes = format!(
        "{}:{}:/usr/share/java/junit4.jar:/usr/share/java/hamcrest-core.jar",
        build.join("classes").display(),
        build.join("test-classes").display()
    );
    let vintage = ctx.console(&ctx.ant, "vintage", &classes, "junit-vintage");
    if let (Some(a), Ok(v)) = (&ant_trace, &vintage) {
        tally.report(ctx.paired(a, v), "-", "testsuite/ant-vs-vintage");
    }
    tally.report(vintage.map(|_| ()), "-", "testsuite/junit4-vintage");
    // Maven surefire's junit4 provider (RunNotifier).
    let maven = ctx
        .record(
            &ctx.ant,
            "mvn-junit4",
            &["--tests-only"],
            &[
                "mvn",
                "-o",
                "-q",
                "-s",
                "../maven-junit/settings.xml",
                "test",
            ],
        )
        .and_then(|(t, out)| ctx.check("mvn-junit4", &t, &out));
    tally.report(maven, "-", "testsuite/mvn-junit4");
    // Gradle's own JUnit 4 runner (RunNotifier); the trace starts at the first test.
    let gradle = ctx
        .record(
            &ctx.ant,
            "gradle",
            &["--tests-only"],
            &["gradle", "--offline", "--no-daemon", "test"],
        )
        .and_then(|(t, out)| ctx.check("gradle", &t, &out));
    tally.report(gradle, "-", "testsuite/gradle-junit4");
}
