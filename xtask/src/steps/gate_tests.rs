//! `cargo xtask test`, step gate: examples/gate (four JUnit 5 tests, four planted regressions) under `jtrace record`: a baseline from one run, five more runs (two idle, three beside a CPU load) that `jtrace gate` passes, and each regression switched on alone, which it fails, naming exactly the test, the item and the count the tests print, with the path through the test; every trace valid; the gate's JUnit XML and Markdown read back; what a 10% wall-time threshold would have said of the same runs, printed (docs/CI.md).
//!
//! The tests print `TRUTH|test|regression|metric|item|extra`: switching `regression` on
//! adds `extra` to `item`'s `metric` (a method's calls, a class's allocations or
//! exceptions) in `test`.

use crate::java::{self, Jdk};
use crate::tally::Tally;
use crate::util;
use std::path::{Path, PathBuf};
use std::process::{Child, Command};

pub(crate) const CONSOLE: &str = "/usr/share/java/junit-platform-console-standalone.jar";
pub(crate) const H2: &str = "/usr/share/java/h2.jar";
/// Debian's packages the step needs (`.ci/run` installs them).
pub(crate) const NEEDS: [(&str, &str); 2] = [(CONSOLE, "junit5"), (H2, "libh2-java")];
/// The planted regressions (`static final boolean NAME = false; // gate: NAME`).
const REGRESSIONS: [&str; 4] = ["extra-call", "extra-alloc", "exceptions", "n-plus-one"];
/// Runs judged without a change: idle, then beside a CPU load.
const IDLE_RUNS: usize = 2;
const LOADED_RUNS: usize = 3;
/// The wall-time threshold the counts are compared with.
const TIME_RISE: f64 = 0.10;

struct Truth {
    test: String,
    regression: String,
    metric: String,
    item: String,
    extra: u64,
}

fn truths(stdout: &str) -> Result<Vec<Truth>, String> {
    let mut out = Vec::new();
    for l in stdout.lines().filter_map(|l| l.strip_prefix("TRUTH|")) {
        let f: Vec<&str> = l.split('|').collect();
        let [test, regression, metric, item, extra] = f.as_slice() else {
            return Err(format!("bad TRUTH line {l:?}"));
        };
        out.push(Truth {
            test: test.to_string(),
            regression: regression.to_string(),
            metric: metric.to_string(),
            item: item.to_string(),
            extra: extra
                .trim()
                .parse()
                .map_err(|_| format!("bad TRUTH line {l:?}"))?,
        });
    }
    if out.len() != REGRESSIONS.len() {
        return Err(format!(
            "{} TRUTH lines, expected {}",
            out.len(),
            REGRESSIONS.len()
        ));
    }
    Ok(out)
}

/// Two busy processes, one per core, for as long as it lives.
struct Load(Vec<Child>);

impl Load {
    fn start() -> Result<Load, String> {
        (0..2)
            .map(|_| {
                Command::new("sh")
                    .args(["-c", "while :; do :; done"])
                    .spawn()
                    .map_err(|e| format!("cannot start the load: {e}"))
            })
            .collect::<Result<Vec<_>, _>>()
            .map(Load)
    }
}

impl Drop for Load {
    fn drop(&mut self) {
        for c in &mut self.0 {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

struct Ctx {
    jtrace: PathBuf,
    jdk: Jdk,
    dir: PathBuf,
}

/// What one run of the gate said.
struct Gated {
    code: Option<i32>,
    json: serde_json::Value,
    stdout: String,
}

impl Ctx {
    /// The example's sources with `regression` switched on (none: as committed), compiled.
    fn build(&self, regression: Option<&str>) -> Result<PathBuf, String> {
        let name = regression.unwrap_or("plain");
        let src = self.dir.join(format!("src-{name}"));
        let _ = std::fs::remove_dir_all(&src);
        let mut sources = Vec::new();
        let from = util::root().join("examples/gate/src");
        for (rel, text) in java_files(&from)? {
            let text = match regression {
                Some(r) => {
                    let (off, on) = (
                        format!("= false; // gate: {r}"),
                        format!("= true; // gate: {r}"),
                    );
                    text.replace(&off, &on)
                }
                None => text,
            };
            let to = src.join(&rel);
            std::fs::create_dir_all(to.parent().unwrap_or(&src)).map_err(|e| e.to_string())?;
            std::fs::write(&to, text).map_err(|e| e.to_string())?;
            sources.push(to);
        }
        if let Some(r) = regression {
            let switched = sources
                .iter()
                .filter_map(|s| std::fs::read_to_string(s).ok())
                .any(|t| t.contains(&format!("= true; // gate: {r}")));
            if !switched {
                return Err(format!("no `= false; // gate: {r}` in examples/gate"));
            }
        }
        let classes = self.dir.join(format!("classes-{name}"));
        java::javac(&self.jdk, &classes, &["-cp", CONSOLE], &sources)?;
        Ok(classes)
    }

    /// The suite under `jtrace record`; the run's one trace (checked) and stdout.
    fn record(&self, classes: &Path, name: &str) -> Result<(PathBuf, String), String> {
        let pattern = self.dir.join(format!("{name}-%p.jtr"));
        let cp = format!("{}:{H2}", classes.display());
        let o = java::Run::new(&self.jdk)
            .jar(CONSOLE)
            .args(["--disable-banner", "--details=none", "-cp", &cp])
            .args(["--select-class", "shop.ShopTest"])
            .dir(&self.dir)
            .under(
                Command::new(&self.jtrace)
                    .args(["record", "-o"])
                    .arg(&pattern)
                    // With alloc=exact, jtrace record turns C2's escape analysis off, so
                    // that allocation counts do not depend on when the JIT compiled what.
                    .args(["include=shop.*", "alloc=exact", "lines=on", "--"]),
            )
            .output()
            .map_err(|e| format!("cannot run jtrace record: {e}"))?;
        let stdout = String::from_utf8_lossy(&o.stdout).into_owned();
        if !o.status.success() {
            return Err(format!(
                "jtrace record ({name}): {}: {}",
                o.status,
                util::clip(String::from_utf8_lossy(&o.stderr).trim(), 400)
            ));
        }
        let traces = util::traces_named(&self.dir, name)?;
        let [trace] = traces.as_slice() else {
            return Err(format!("{} traces of {name}, expected one", traces.len()));
        };
        util::validate_jtr(&self.jtrace, trace, &self.dir.join(format!("{name}.xml")))?;
        Ok((trace.clone(), stdout))
    }

    /// `jtrace gate` with `extra`, as text and again with `--json` (the two must agree
    /// on the exit code).
    fn gate(&self, base: &Path, trace: &Path, extra: &[&str]) -> Result<Gated, String> {
        let o = Command::new(&self.jtrace)
            .arg("gate")
            .arg("--baseline")
            .arg(base)
            .arg(trace)
            .args(extra)
            .output()
            .map_err(|e| format!("cannot run jtrace gate: {e}"))?;
        let stdout = String::from_utf8_lossy(&o.stdout).into_owned();
        let text = Command::new(&self.jtrace)
            .arg("gate")
            .arg("--baseline")
            .arg(base)
            .arg(trace)
            .args(extra)
            .arg("--json")
            .output()
            .map_err(|e| format!("cannot run jtrace gate --json: {e}"))?;
        let json = serde_json::from_slice(&text.stdout).map_err(|e| {
            format!(
                "jtrace gate --json: {e}: {}",
                util::clip(String::from_utf8_lossy(&text.stderr).trim(), 300)
            )
        })?;
        if text.status.code() != o.status.code() {
            return Err(format!(
                "jtrace gate exits {:?} with --json, {:?} without",
                text.status.code(),
                o.status.code()
            ));
        }
        Ok(Gated {
            code: o.status.code(),
            json,
            stdout,
        })
    }
}

/// Every `.java` under `dir`, as (path relative to `dir`, text).
fn java_files(dir: &Path) -> Result<Vec<(PathBuf, String)>, String> {
    util::files_under(dir)
        .into_iter()
        .filter(|p| p.extension().is_some_and(|x| x == "java"))
        .map(|p| {
            let text = std::fs::read_to_string(&p).map_err(|e| format!("{}: {e}", p.display()))?;
            let rel = p
                .strip_prefix(dir)
                .map_err(|e| e.to_string())?
                .to_path_buf();
            Ok((rel, text))
        })
        .collect()
}

/// The highest value of a baseline count in the gate's JSON (`5` or `[3, 5]`).
fn count_max(v: &serde_json::Value) -> Option<u64> {
    v.as_u64()
        .or_else(|| v.get(1).and_then(serde_json::Value::as_u64))
}

/// Per gated test in the gate's JSON: (label, time before (highest), time now).
fn times(j: &serde_json::Value) -> Vec<(String, u64, u64)> {
    let tests = j["tests"].as_array().cloned().unwrap_or_default();
    tests
        .iter()
        .filter_map(|t| {
            let b = count_max(&t["time_before"])?;
            Some((t["label"].as_str()?.to_string(), b, t["time_now"].as_u64()?))
        })
        .collect()
}

/// Tests whose wall time rose more than [`TIME_RISE`].
fn slower(j: &serde_json::Value) -> Vec<String> {
    times(j)
        .into_iter()
        .filter(|(_, b, n)| *n as f64 > *b as f64 * (1.0 + TIME_RISE))
        .map(|(l, b, n)| format!("{l} +{:.0}%", (n as f64 / b as f64 - 1.0) * 100.0))
        .collect()
}

/// A run without a change: the gate passes and names nothing.
fn unchanged(g: &Gated) -> Result<(), String> {
    if g.code != Some(0) || g.json["passed"] != true {
        return Err(format!(
            "the gate failed an unchanged run (exit {:?}): {}",
            g.code,
            util::clip(&g.stdout, 600)
        ));
    }
    let judged = g.json["tests"].as_array().map_or(0, Vec::len);
    // Four tests and what ran outside them.
    if judged != REGRESSIONS.len() + 1 {
        return Err(format!("the gate judged {judged} tests, expected 5"));
    }
    Ok(())
}

/// A run with `t.regression` on: the gate fails, only `t.test`, with `t.item` risen by
/// exactly `t.extra` and a path through the test.
fn regressed(g: &Gated, t: &Truth) -> Result<(), String> {
    if g.code != Some(1) || g.json["passed"] != false {
        return Err(format!(
            "{}: the gate did not fail (exit {:?}): {}",
            t.regression,
            g.code,
            util::clip(&g.stdout, 600)
        ));
    }
    let tests = g.json["tests"].as_array().cloned().unwrap_or_default();
    let failed: Vec<&serde_json::Value> = tests
        .iter()
        .filter(|v| v["rises"].as_array().is_some_and(|r| !r.is_empty()))
        .collect();
    let label = format!("ShopTest.{}", t.test);
    let names: Vec<&str> = failed.iter().filter_map(|v| v["label"].as_str()).collect();
    if names != [label.as_str()] {
        return Err(format!(
            "{}: the gate failed {names:?}, expected only {label}",
            t.regression
        ));
    }
    let rises = failed[0]["rises"].as_array().cloned().unwrap_or_default();
    let Some(r) = rises
        .iter()
        .find(|r| r["item"] == t.item.as_str() && r["metric"] == t.metric.as_str())
    else {
        return Err(format!(
            "{}: {label}'s rises do not name {} {}: {}",
            t.regression,
            t.metric,
            t.item,
            util::clip(&g.stdout, 600)
        ));
    };
    let before = count_max(&r["before"]).unwrap_or(u64::MAX);
    let now = r["now"].as_u64().unwrap_or(0);
    if now.checked_sub(before) != Some(t.extra) {
        return Err(format!(
            "{}: {} {} rose {before} -> {now}, the test says by {}",
            t.regression, t.metric, t.item, t.extra
        ));
    }
    let paths = r["paths"].as_array().cloned().unwrap_or_default();
    let through = format!("ShopTest.{} > ", t.test);
    if !paths
        .iter()
        .any(|p| p[0].as_str().is_some_and(|s| s.contains(&through)))
        && !t.item.contains("Exception")
    {
        return Err(format!(
            "{}: no path of {} through {through}: {paths:?}",
            t.regression, t.item
        ));
    }
    if !g.stdout.contains(&label) || !g.stdout.contains(&t.item) {
        return Err(format!(
            "{}: the gate's text does not name {label} and {}",
            t.regression, t.item
        ));
    }
    Ok(())
}

/// The gate's JUnit XML and Markdown for a failing run: well-formed, one test case per
/// gated test, the failing one named, the summary under GitHub's limit.
fn outputs(ctx: &Ctx, base: &Path, trace: &Path, t: &Truth) -> Result<(), String> {
    let xml = ctx.dir.join("gate.xml");
    let md = ctx.dir.join("gate.md");
    let g = ctx.gate(
        base,
        trace,
        &[
            "--junit-xml",
            xml.to_str().unwrap_or_default(),
            "--markdown",
            md.to_str().unwrap_or_default(),
        ],
    )?;
    if g.code != Some(1) {
        return Err(format!("gate with --junit-xml: exit {:?}", g.code));
    }
    util::run_tool(
        Command::new("xmllint").arg("--noout").arg(&xml),
        "xmllint (the gate's JUnit XML)",
    )?;
    let x = std::fs::read_to_string(&xml).map_err(|e| e.to_string())?;
    let cases = x.matches("<testcase ").count();
    let failures = x.matches("<failure ").count();
    let label = format!("ShopTest.{}", t.test);
    if cases != REGRESSIONS.len() + 1 || failures != 1 || !x.contains(&format!("name=\"{label}\""))
    {
        return Err(format!(
            "JUnit XML: {cases} test cases, {failures} failures, expected 5 and 1 naming {label}"
        ));
    }
    let m = std::fs::read_to_string(&md).map_err(|e| e.to_string())?;
    if m.len() > 1 << 20 || !m.contains(&label) || !m.contains("failed") {
        return Err(format!(
            "Markdown summary ({} bytes) does not name {label}",
            m.len()
        ));
    }
    Ok(())
}

/// `--only` narrows the judgement to the tests it names; `--update` takes the run as the
/// new baseline, which the same run then passes.
fn only_and_update(ctx: &Ctx, base: &Path, trace: &Path, t: &Truth) -> Result<(), String> {
    let other = if t.test == "totals" {
        "parses"
    } else {
        "totals"
    };
    let g = ctx.gate(base, trace, &["--only", other])?;
    if g.code != Some(0) || g.json["tests"].as_array().map_or(0, Vec::len) != 1 {
        return Err(format!(
            "--only {other}: exit {:?}, {} tests judged; expected 0 and 1",
            g.code,
            g.json["tests"].as_array().map_or(0, Vec::len)
        ));
    }
    let g = ctx.gate(base, trace, &["--only", &t.test])?;
    if g.code != Some(1) {
        return Err(format!("--only {}: exit {:?}, expected 1", t.test, g.code));
    }
    let updated = ctx.dir.join("updated-baseline.json");
    std::fs::copy(base, &updated).map_err(|e| e.to_string())?;
    let g = ctx.gate(&updated, trace, &["--update"])?;
    if g.code != Some(0) {
        return Err(format!("--update: exit {:?}, expected 0", g.code));
    }
    let g = ctx.gate(&updated, trace, &[])?;
    if g.code != Some(0) {
        return Err(format!(
            "the run against the baseline --update wrote: exit {:?}: {}",
            g.code,
            util::clip(&g.stdout, 300)
        ));
    }
    Ok(())
}

/// Bad input: one message naming the problem, exit 2, never a verdict.
fn bad_input(ctx: &Ctx, base: &Path, trace: &Path) -> Result<(), String> {
    let not_json = ctx.dir.join("not-a-baseline.json");
    std::fs::write(&not_json, "{\"tests\": 3}").map_err(|e| e.to_string())?;
    let missing = ctx.dir.join("no-such-baseline.json");
    let cases: [(Vec<&std::ffi::OsStr>, &str); 5] = [
        (
            vec![missing.as_os_str(), trace.as_os_str()],
            "no-such-baseline.json",
        ),
        (
            vec![not_json.as_os_str(), trace.as_os_str()],
            "not a jtrace baseline",
        ),
        (
            vec![
                base.as_os_str(),
                trace.as_os_str(),
                "--max-rise".as_ref(),
                "time=5%".as_ref(),
            ],
            "calls, alloc, exceptions, monitors, lines",
        ),
        (
            vec![
                base.as_os_str(),
                trace.as_os_str(),
                "--only".as_ref(),
                "NoSuchTest".as_ref(),
            ],
            "NoSuchTest",
        ),
        (
            vec![base.as_os_str(), "no-such-trace.jtr".as_ref()],
            "no-such-trace.jtr",
        ),
    ];
    for (args, names) in cases {
        let o = Command::new(&ctx.jtrace)
            .arg("gate")
            .arg("--baseline")
            .args(&args)
            .current_dir(&ctx.dir)
            .output()
            .map_err(|e| e.to_string())?;
        let err = String::from_utf8_lossy(&o.stderr);
        if o.status.code() != Some(2) || !err.contains(names) || !o.stdout.is_empty() {
            return Err(format!(
                "jtrace gate --baseline {args:?}: exit {:?}, stderr {:?}: expected exit 2 naming {names}",
                o.status.code(),
                util::clip(err.trim(), 200)
            ));
        }
    }
    Ok(())
}

/// The step.
pub fn run(tally: &mut Tally, agent: &Path, jdks: &[Jdk], work: &Path) {
    if let Err(e) = util::needs(&NEEDS) {
        return tally.report(Err(e), "-", "gate");
    }
    let Some(jdk) = jdks.first().cloned() else {
        return tally.report(Err("no JDK".into()), "-", "gate");
    };
    if let Err(e) = crate::package::build_jar() {
        return tally.report(Err(e), "-", "gate");
    }
    let dir = work.join("gate");
    let _ = std::fs::remove_dir_all(&dir);
    if let Err(e) = std::fs::create_dir_all(&dir) {
        return tally.report(Err(e.to_string()), "-", "gate");
    }
    let ctx = Ctx {
        jtrace: agent.with_file_name("jtrace"),
        jdk,
        dir,
    };
    let r = steps(&ctx, tally);
    if let Err(e) = r {
        tally.report(Err(e), &ctx.jdk.name, "gate");
    }
}

fn steps(ctx: &Ctx, tally: &mut Tally) -> Result<(), String> {
    let jdk = ctx.jdk.name.clone();
    let plain = ctx.build(None)?;
    let (first, stdout) = ctx.record(&plain, "base")?;
    let truth = truths(&stdout)?;
    let base = ctx.dir.join("jtrace-baseline.json");
    util::run_tool(
        Command::new(&ctx.jtrace)
            .arg("baseline")
            .arg(&first)
            .arg("-o")
            .arg(&base),
        "jtrace baseline",
    )?;
    // Runs without a change, idle and beside a load.
    let mut time_alarms = Vec::new();
    for i in 0..IDLE_RUNS + LOADED_RUNS {
        let loaded = i >= IDLE_RUNS;
        let name = if loaded {
            format!("loaded-{}", i - IDLE_RUNS + 1)
        } else {
            format!("idle-{}", i + 1)
        };
        let load = if loaded { Some(Load::start()?) } else { None };
        let rec = ctx.record(&plain, &name);
        drop(load);
        let r = rec.and_then(|(t, _)| {
            let g = ctx.gate(&base, &t, &[])?;
            let slow = slower(&g.json);
            println!(
                "GATE {name}: counts {}; a {:.0}% wall-time gate: {}",
                if g.code == Some(0) { "pass" } else { "FAIL" },
                TIME_RISE * 100.0,
                if slow.is_empty() {
                    "pass".to_string()
                } else {
                    format!("false alarm ({})", slow.join(", "))
                }
            );
            if !slow.is_empty() {
                time_alarms.push(name.clone());
            }
            unchanged(&g)
        });
        tally.report(r, &jdk, &format!("gate/unchanged-{name}"));
    }
    // The same tests in six runs: not one count differed.
    let all: Vec<PathBuf> = std::fs::read_dir(&ctx.dir)
        .map_err(|e| e.to_string())?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "jtr"))
        .collect();
    let six = ctx.dir.join("six-runs.json");
    let r = util::run_tool(
        Command::new(&ctx.jtrace)
            .arg("baseline")
            .args(&all)
            .arg("-o")
            .arg(&six),
        "jtrace baseline (six runs)",
    )
    .and_then(|()| {
        let b: serde_json::Value =
            serde_json::from_slice(&std::fs::read(&six).map_err(|e| e.to_string())?)
                .map_err(|e| e.to_string())?;
        let runs: Vec<u64> = b["tests"]
            .as_object()
            .map(|t| t.values().filter_map(|v| v["runs"].as_u64()).collect())
            .unwrap_or_default();
        if b["varying"] != 0 || runs.len() != 5 || runs.iter().any(|&n| n != 6) {
            return Err(format!(
                "a baseline of six runs: {} varying counts, runs per test {runs:?}; expected 0 \
                 and 6 for each of 5",
                b["varying"]
            ));
        }
        Ok(())
    });
    tally.report(r, &jdk, "gate/six-runs-agree");
    tally.report(bad_input(ctx, &base, &first), &jdk, "gate/bad-input");
    // Each regression alone.
    let mut time_misses = Vec::new();
    for reg in REGRESSIONS {
        let Some(t) = truth.iter().find(|t| t.regression == reg) else {
            tally.report(Err(format!("no TRUTH line for {reg}")), &jdk, "gate");
            continue;
        };
        let r = ctx.build(Some(reg)).and_then(|c| {
            let (trace, _) = ctx.record(&c, reg)?;
            let g = ctx.gate(&base, &trace, &[])?;
            let label = format!("ShopTest.{}", t.test);
            let caught_by_time = slower(&g.json).iter().any(|s| s.starts_with(&label));
            let rise = times(&g.json)
                .into_iter()
                .find(|(l, _, _)| *l == label)
                .map_or(String::from("?"), |(_, b, n)| {
                    format!("{:+.0}%", (n as f64 / b.max(1) as f64 - 1.0) * 100.0)
                });
            println!(
                "GATE {reg}: counts {}; a {:.0}% wall-time gate: {} ({label} {rise})",
                if g.code == Some(1) { "fail" } else { "MISSED" },
                TIME_RISE * 100.0,
                if caught_by_time { "fail" } else { "missed" }
            );
            if !caught_by_time {
                time_misses.push(reg);
            }
            regressed(&g, t)?;
            if reg == "n-plus-one" {
                outputs(ctx, &base, &trace, t)?;
                only_and_update(ctx, &base, &trace, t)?;
            }
            Ok(())
        });
        tally.report(r, &jdk, &format!("gate/regression-{reg}"));
    }
    println!(
        "GATE summary: counts: 0 false alarms in {} unchanged runs, 0 misses in {} regressions \
         (else FAIL above); {:.0}% wall time: {} false alarms, {} misses",
        IDLE_RUNS + LOADED_RUNS,
        REGRESSIONS.len(),
        TIME_RISE * 100.0,
        time_alarms.len(),
        time_misses.len()
    );
    Ok(())
}
