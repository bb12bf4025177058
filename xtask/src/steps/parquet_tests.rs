//! `cargo xtask test`, step parquet: three traces of java-tests/cli/CliWork (counted()
//! called 1000, 2000 and 3000 times) exported by `jtrace parquet` into one fleet
//! directory, then queried as they are by DuckDB and by Spark (local mode, JDK 17) with
//! xtask/parquet/fleet.py: top self time across the fleet, p99 per method per trace, the
//! call-count diff between two runs, the slowest call's path. Both engines must give the
//! same answers, equal to the programs' TRUTH lines and to `jtrace report --json` of each
//! trace. The fleet's layout is `fleet/trace_id=<id>/<table>.parquet`, read as
//! `fleet/*/<table>.parquet` with no options; every row's trace_id must be its
//! directory's id in both engines. A missing engine is a failure, not a skip (`.ci/run`
//! installs both). java-tests/VirtualThreads (JDK 21+) is exported too: its virtual
//! threads, and only those, must be `is_virtual`.

use crate::cases;
use crate::java::Jdk;
use crate::run::{self, Job};
use crate::tally::Tally;
use crate::util;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Command;

/// Spark runs on this JDK.
const SPARK_JDK: u32 = 17;
/// The tables of each trace (`<table>.parquet` in its directory).
const TABLES: [&str; 6] = ["calls", "methods", "threads", "paths", "trace", "events"];
/// `-Dcli.factor` of each run.
const FACTORS: [u32; 3] = [1, 2, 3];

/// One traced run: its trace and what it printed and `jtrace report` said.
struct Traced {
    file: String,
    truth: Vec<Vec<String>>,
    /// method key (the report's `jvm`: `Class.method(signature)`) → its method row.
    methods: BTreeMap<String, Value>,
    slowest: Value,
    /// traceEnd's numeric annotations, read from the trace's XML (`jtrace xml`).
    notes: BTreeMap<String, i64>,
}

impl Traced {
    fn truth(&self, words: &[&str]) -> Result<&str, String> {
        self.truth
            .iter()
            .find(|l| l.len() == words.len() + 1 && l.iter().zip(words).all(|(a, b)| a == b))
            .map(|l| l[words.len()].as_str())
            .ok_or_else(|| format!("{}: no TRUTH {}", self.file, words.join(" ")))
    }
}

fn num(v: &Value, key: &str) -> i64 {
    v.get(key).and_then(Value::as_i64).unwrap_or(-1)
}

fn text<'v>(v: &'v Value, key: &str) -> &'v str {
    v.get(key).and_then(Value::as_str).unwrap_or("")
}

fn output(cmd: &mut Command, what: &str) -> Result<String, String> {
    let out = cmd
        .output()
        .map_err(|e| format!("cannot run {what}: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "{what} failed ({}): {}",
            out.status,
            util::clip(String::from_utf8_lossy(&out.stderr).trim(), 600)
        ));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

pub fn run(tally: &mut Tally, agent: &Path, jdks: &[Jdk], work: &Path) {
    let r = crate::util::build_release();
    let built = r.is_ok();
    tally.report(r, "-", "parquet-build");
    let Some(jdk) = jdks.iter().find(|j| j.feature == SPARK_JDK) else {
        tally.report(
            Err(format!(
                "Spark needs JDK {SPARK_JDK}; none under /usr/lib/jvm"
            )),
            "-",
            "parquet",
        );
        return;
    };
    if !built {
        return;
    }
    let jtrace = util::root().join("target/release/jtrace");
    virtual_threads(tally, agent, jdks, work, &jtrace);
    let base = work.join(&jdk.name).join("parquet");
    let traced = match trace_runs(tally, agent, jdk, &base, &jtrace) {
        Ok(t) => t,
        Err(e) => {
            tally.report(Err(e), &jdk.name, "parquet:runs");
            return;
        }
    };
    if traced.len() != FACTORS.len() {
        return;
    }
    let fleet = base.join("fleet");
    let _ = std::fs::remove_dir_all(&fleet);
    let mut export = Command::new(&jtrace);
    export
        .arg("parquet")
        .args(traced.iter().map(|t| &t.file))
        .arg("-o")
        .arg(&fleet);
    let r = output(&mut export, "jtrace parquet").and_then(|_| layout(&fleet, traced.len()));
    let exported = r.is_ok();
    tally.report(r, &jdk.name, "parquet:export");
    tally.report(bad_input(&jtrace, &base), "-", "parquet:bad-input");
    if !exported {
        return;
    }
    let mut answers = Vec::new();
    for engine in ["duckdb", "spark"] {
        let a = query(engine, &fleet, &traced, jdk);
        let a = a.and_then(|a| check(&a, &traced).map(|()| a));
        let ok = a.as_ref().ok().cloned();
        tally.report(a.map(|_| ()), &jdk.name, &format!("parquet:{engine}"));
        answers.extend(ok);
    }
    if let [duck, spark] = &answers[..] {
        let same = if duck == spark {
            Ok(())
        } else {
            Err(format!(
                "DuckDB and Spark differ: {} vs {}",
                util::clip(&duck.to_string(), 300),
                util::clip(&spark.to_string(), 300)
            ))
        };
        tally.report(same, &jdk.name, "parquet:duckdb=spark");
    }
}

/// java-tests/VirtualThreads (10,000 virtual threads named vt-N, JDK 21+) traced and
/// exported: `threads.is_virtual` must be true for exactly the threads the program
/// started virtual (its EXPECT threads-named line), as DuckDB reads it.
fn virtual_threads(tally: &mut Tally, agent: &Path, jdks: &[Jdk], work: &Path, jtrace: &Path) {
    let Some(jdk) = jdks
        .iter()
        .filter(|j| j.feature >= 21)
        .max_by_key(|j| j.feature)
    else {
        tally.report(
            Err("virtual threads need JDK 21+; none under /usr/lib/jvm".into()),
            "-",
            "parquet:virtual",
        );
        return;
    };
    let r = (|| -> Result<(), String> {
        let base = work.join(&jdk.name).join("parquet-virtual");
        let source = util::root().join("java-tests/VirtualThreads.java");
        let classes = base.join("classes");
        crate::java::compile_sources(jdk, &classes, std::slice::from_ref(&source))?;
        let case = cases::load(&source)?;
        let job = Job {
            jdk,
            mode: "bci",
            case: &case,
            classes: &classes,
            agent,
            dir: base.join("run"),
        };
        run::run(&job)?;
        let stdout = std::fs::read_to_string(job.dir.join("stdout.txt"))
            .map_err(|e| format!("VirtualThreads stdout: {e}"))?;
        let (prefix, n) = stdout
            .lines()
            .find_map(|l| l.strip_prefix("EXPECT threads-named "))
            .and_then(|r| r.split_once(' '))
            .ok_or("VirtualThreads printed no EXPECT threads-named")?;
        let jtr = job.dir.join("trace.jtr");
        let trace = if jtr.is_file() {
            jtr
        } else {
            job.dir.join("trace.xml")
        };
        let fleet = base.join("fleet");
        let _ = std::fs::remove_dir_all(&fleet);
        output(
            Command::new(jtrace)
                .arg("parquet")
                .arg(&trace)
                .arg("-o")
                .arg(&fleet),
            "jtrace parquet",
        )?;
        let sql = format!(
            "SELECT count(*) FILTER (WHERE is_virtual), \
             count(*) FILTER (WHERE is_virtual AND name LIKE '{prefix}%') \
             FROM read_parquet('{}/*/threads.parquet')",
            fleet.display()
        );
        let got = output(
            Command::new("python3").args([
                "-c",
                "import duckdb, sys; print(*duckdb.connect().execute(sys.argv[1]).fetchone())",
                &sql,
            ]),
            "duckdb (virtual threads)",
        )?;
        let want = format!("{n} {n}");
        if got.trim() == want {
            Ok(())
        } else {
            Err(format!(
                "virtual threads (all, named {prefix}*): {} != the program's {want}",
                got.trim()
            ))
        }
    })();
    tally.report(r, &jdk.name, "parquet:virtual");
}

/// Traces CliWork once per factor (validated like every Java test) and reads each run's
/// TRUTH lines and `jtrace report --json`.
fn trace_runs(
    tally: &mut Tally,
    agent: &Path,
    jdk: &Jdk,
    base: &Path,
    jtrace: &Path,
) -> Result<Vec<Traced>, String> {
    let dir = util::root().join("java-tests/cli");
    let sources = cases::java_files(&dir)?;
    let classes = base.join("classes");
    crate::java::compile_sources(jdk, &classes, &sources)?;
    let case = cases::load(&dir.join("CliWork.java"))?;
    let mut traced = Vec::new();
    for factor in FACTORS {
        let mut c = case.clone();
        c.jvm_args.push(format!("-Dcli.factor={factor}"));
        let job = Job {
            jdk,
            mode: "bci",
            case: &c,
            classes: &classes,
            agent,
            dir: base.join(format!("run{factor}")),
        };
        let r = run::run(&job);
        let ok = r.is_ok();
        tally.report(r, &jdk.name, &format!("parquet/CliWork-x{factor}"));
        if !ok {
            continue;
        }
        let jtr = job.dir.join("trace.jtr");
        let trace = if jtr.is_file() {
            jtr
        } else {
            job.dir.join("trace.xml")
        };
        let file = trace.to_string_lossy().into_owned();
        let truth = crate::steps::cli_tests::truth(&job.dir.join("stdout.txt"))?;
        let json = output(
            Command::new(jtrace).args(["report", "--json", &file]),
            "jtrace report --json",
        )?;
        let doc: Value =
            serde_json::from_str(&json).map_err(|e| format!("report --json is not JSON: {e}"))?;
        let methods = doc
            .get("methods")
            .and_then(Value::as_array)
            .map(|ms| {
                ms.iter()
                    .map(|m| {
                        // methods.method_key is the report's `jvm` name.
                        (text(m, "jvm").to_string(), m.clone())
                    })
                    .collect()
            })
            .unwrap_or_default();
        let slowest = doc
            .get("slowest")
            .and_then(|s| s.get(0))
            .cloned()
            .ok_or_else(|| format!("{file}: report lists no slowest call"))?;
        let notes = end_notes(jtrace, &file)?;
        traced.push(Traced {
            file,
            truth,
            methods,
            slowest,
            notes,
        });
    }
    Ok(traced)
}

/// traceEnd's numeric annotations, as the trace's XML document (`jtrace xml`) says.
fn end_notes(jtrace: &Path, file: &str) -> Result<BTreeMap<String, i64>, String> {
    let xml = if file.ends_with(".jtr") {
        output(
            Command::new(jtrace).args(["xml", file, "-o", "-"]),
            "jtrace xml",
        )?
    } else {
        std::fs::read_to_string(file).map_err(|e| format!("{file}: {e}"))?
    };
    // Read by tracecheck (which validates the document too), not by a string scan.
    let summary = tracecheck::check_reader(xml.as_bytes())
        .map_err(|v| format!("{file}: {}", util::first_three(&v, 300)))?;
    Ok(summary
        .end_counts
        .into_iter()
        .map(|(k, v)| (k, v as i64))
        .collect())
}

/// The answers of one engine (xtask/parquet/fleet.py) as JSON.
fn query(engine: &str, fleet: &Path, traced: &[Traced], jdk: &Jdk) -> Result<Value, String> {
    let script = util::root().join("xtask/parquet/fleet.py");
    let mut cmd = Command::new("python3");
    cmd.arg(&script)
        .arg(engine)
        .arg(fleet)
        .arg(&traced[0].file)
        .arg(&traced[1].file);
    util::spark_env(&mut cmd, &jdk.home);
    let out = output(&mut cmd, &format!("{engine} over the fleet (fleet.py)"))?;
    serde_json::from_str(out.trim()).map_err(|e| format!("fleet.py {engine}: not JSON: {e}"))
}

fn rows<'a>(a: &'a Value, key: &str) -> Result<&'a [Value], String> {
    a.get(key)
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .ok_or_else(|| format!("no answer {key}"))
}

fn cell(row: &Value, i: usize) -> &Value {
    row.get(i).unwrap_or(&Value::Null)
}

fn int(row: &Value, i: usize) -> i64 {
    cell(row, i).as_i64().unwrap_or(i64::MIN)
}

fn s(row: &Value, i: usize) -> &str {
    cell(row, i).as_str().unwrap_or("")
}

/// The fleet holds one `trace_id=<id>` directory per trace, each with the six tables.
fn layout(fleet: &Path, traces: usize) -> Result<(), String> {
    let mut dirs = 0;
    for e in std::fs::read_dir(fleet).map_err(|e| format!("{}: {e}", fleet.display()))? {
        let e = e.map_err(|e| e.to_string())?;
        let name = e.file_name().to_string_lossy().into_owned();
        if !name.starts_with("trace_id=") || !e.path().is_dir() {
            return Err(format!("fleet holds {name}, not a trace_id=<id> directory"));
        }
        let mut files: Vec<String> = std::fs::read_dir(e.path())
            .map_err(|e| e.to_string())?
            .filter_map(|f| f.ok())
            .map(|f| f.file_name().to_string_lossy().into_owned())
            .collect();
        files.sort();
        let mut want: Vec<String> = TABLES.iter().map(|t| format!("{t}.parquet")).collect();
        want.sort();
        if files != want {
            return Err(format!("{name} holds {files:?}, not {want:?}"));
        }
        dirs += 1;
    }
    if dirs != traces {
        return Err(format!(
            "fleet holds {dirs} trace directories, not {traces}"
        ));
    }
    Ok(())
}

/// One engine's answers against the report of each trace and the programs' truth.
fn check(a: &Value, traced: &[Traced]) -> Result<(), String> {
    let mut errs: Vec<String> = Vec::new();
    let mut expect = |ok: bool, what: String| {
        if !ok && errs.len() < 8 {
            errs.push(what);
        }
    };
    // trace_id → which run.
    let mut run_of: BTreeMap<String, &Traced> = BTreeMap::new();
    for r in rows(a, "files")? {
        if let Some(t) = traced.iter().find(|t| t.file == s(r, 1)) {
            run_of.insert(s(r, 0).to_string(), t);
        }
    }
    expect(
        run_of.len() == traced.len(),
        format!(
            "trace table names {} of {} traces",
            run_of.len(),
            traced.len()
        ),
    );
    // Every table's rows carry their directory's id, and every trace is in every table
    // (events only where the trace had some).
    let ids: BTreeSet<&str> = run_of.keys().map(String::as_str).collect();
    for t in TABLES {
        let mut dirs = BTreeSet::new();
        for r in rows(a, &format!("ids_{t}"))? {
            expect(
                s(r, 0) == s(r, 1) && int(r, 2) > 0,
                format!(
                    "{t}: {} rows in trace_id={} read with trace_id {}",
                    int(r, 2),
                    s(r, 0),
                    s(r, 1)
                ),
            );
            dirs.insert(s(r, 0));
        }
        let whole = if t == "events" {
            dirs.is_subset(&ids)
        } else {
            dirs == ids
        };
        expect(
            whole,
            format!("{t}: directories {dirs:?} != traces {ids:?}"),
        );
    }

    // Top self time across the fleet: per method, the sum of each report's self time.
    let top = rows(a, "top_self")?;
    let mut keys = BTreeSet::new();
    for w in top.windows(2) {
        expect(
            int(&w[0], 1) >= int(&w[1], 1),
            "top_self is not sorted".into(),
        );
    }
    for r in top {
        let key = s(r, 0);
        keys.insert(key.to_string());
        let sum = |f: &str| -> i64 {
            traced
                .iter()
                .filter_map(|t| t.methods.get(key))
                .map(|m| num(m, f))
                .sum()
        };
        expect(
            int(r, 1) == sum("self_ns"),
            format!(
                "{key}: fleet self {} != reports' {}",
                int(r, 1),
                sum("self_ns")
            ),
        );
        expect(
            int(r, 2) == sum("calls"),
            format!(
                "{key}: fleet calls {} != reports' {}",
                int(r, 2),
                sum("calls")
            ),
        );
    }
    let report_keys: BTreeSet<String> = traced
        .iter()
        .flat_map(|t| t.methods.keys().cloned())
        .collect();
    expect(
        keys == report_keys,
        format!("fleet methods {keys:?} != reports' {report_keys:?}"),
    );
    let fleet = |key: &str, i: usize| {
        top.iter()
            .find(|r| s(r, 0) == key)
            .map_or(-1, |r| int(r, i))
    };
    let mut counted = 0i64;
    let mut slept = 0i64;
    for t in traced {
        counted += t
            .truth(&["calls", "CliWork.counted"])?
            .parse::<i64>()
            .unwrap_or(-1);
        slept += t
            .truth(&["self-at-least", "CliWork.sleepy"])?
            .parse::<i64>()
            .unwrap_or(i64::MAX);
    }
    expect(
        fleet("CliWork.counted(I)I", 2) == counted,
        format!(
            "fleet calls of counted {} != truth {counted}",
            fleet("CliWork.counted(I)I", 2)
        ),
    );
    expect(
        fleet("CliWork.sleepy()V", 1) >= slept,
        format!(
            "fleet self of sleepy {} < truth {slept}",
            fleet("CliWork.sleepy()V", 1)
        ),
    );

    // p99 per method per trace: exact (nearest rank) in both. The report's is its
    // histogram bucket's upper bound (at most 1/16 above) only where it says so
    // (`p99_exact` false: not for traces of these sizes, and then this fails).
    for r in rows(a, "p99")? {
        let Some(t) = run_of.get(s(r, 0)) else {
            continue;
        };
        let key = s(r, 1);
        let Some(m) = t.methods.get(key) else {
            expect(false, format!("{key}: not in the report of {}", t.file));
            continue;
        };
        let (p99, max, calls) = (int(r, 2), int(r, 3), int(r, 4));
        let rp = num(m, "p99_ns");
        expect(
            calls == num(m, "calls"),
            format!("{key}: calls {calls} != report {}", num(m, "calls")),
        );
        expect(
            max == num(m, "max_ns"),
            format!("{key}: max {max} != report {}", num(m, "max_ns")),
        );
        expect(
            m["p99_exact"] == true && p99 == rp,
            format!(
                "{key}: p99 {p99} against report {rp} (exact: {}, max {max})",
                m["p99_exact"]
            ),
        );
    }

    // Call counts that differ between run 1 and run 2: as the reports say, and counted()
    // by the difference the programs printed.
    let (one, two) = (&traced[0], &traced[1]);
    let mut want = BTreeMap::new();
    for key in one.methods.keys().chain(two.methods.keys()) {
        let n = |t: &Traced| t.methods.get(key).map_or(0, |m| num(m, "calls"));
        if n(one) != n(two) {
            want.insert(key.clone(), (n(one), n(two)));
        }
    }
    let got: BTreeMap<String, (i64, i64)> = rows(a, "diff")?
        .iter()
        .map(|r| (s(r, 0).to_string(), (int(r, 1), int(r, 2))))
        .collect();
    expect(
        got == want,
        format!("count diff {got:?} != reports' {want:?}"),
    );
    let truth_diff = two
        .truth(&["calls", "CliWork.counted"])?
        .parse::<i64>()
        .unwrap_or(0)
        - one
            .truth(&["calls", "CliWork.counted"])?
            .parse::<i64>()
            .unwrap_or(0);
    let d = got.get("CliWork.counted(I)I").map_or(0, |(a, b)| b - a);
    expect(
        d == truth_diff && d != 0,
        format!("counted() diff {d} != truth {truth_diff}"),
    );

    // The slowest call of each trace: the report's first slowest call, its path ending in it.
    for r in rows(a, "slowest")? {
        let Some(t) = run_of.get(s(r, 0)) else {
            continue;
        };
        let rs = &t.slowest;
        // The trace's `Class.method` (the report's `method` is the readable name).
        let short = &format!("{}.{}", text(rs, "class"), text(rs, "name"));
        expect(
            s(r, 1).starts_with(&format!("{short}(")),
            format!("slowest {} != report {short}", s(r, 1)),
        );
        expect(
            s(r, 2).rsplit(';').next() == Some(short),
            format!("slowest path {} does not end in {short}", s(r, 2)),
        );
        expect(
            s(r, 3) == text(rs, "thread"),
            format!(
                "slowest thread {} != report {}",
                s(r, 3),
                text(rs, "thread")
            ),
        );
        expect(
            int(r, 4) == num(rs, "start_ns"),
            format!(
                "slowest start {} != report {}",
                int(r, 4),
                num(rs, "start_ns")
            ),
        );
        expect(
            int(r, 5) == num(rs, "duration_ns"),
            format!(
                "slowest time {} != report {}",
                int(r, 5),
                num(rs, "duration_ns")
            ),
        );
    }
    // Every sleepy() call's path, as the program saw its own stack.
    let paths = rows(a, "sleepy_paths")?;
    expect(
        paths.len() == traced.len(),
        format!("{} sleepy paths for {} traces", paths.len(), traced.len()),
    );
    for r in paths {
        let Some(t) = run_of.get(s(r, 0)) else {
            continue;
        };
        let want = t.truth(&["path", "CliWork.sleepy"])?;
        expect(
            s(r, 1) == want,
            format!("sleepy path {} != truth {want}", s(r, 1)),
        );
    }
    events(a, traced, &run_of, &mut expect)?;
    lines_threads_drops(a, &run_of, &mut expect)?;
    jvm(a, &run_of, &mut expect)?;
    if errs.is_empty() {
        Ok(())
    } else {
        Err(errs.join("; "))
    }
}

/// The trace table's JVM columns, each equal to the system property the traced program
/// printed itself (its `TRUTH jvm <property> <value>` lines).
fn jvm(
    a: &Value,
    run_of: &BTreeMap<String, &Traced>,
    expect: &mut impl FnMut(bool, String),
) -> Result<(), String> {
    const COLUMNS: [&str; 6] = [
        "java.vm.vendor",
        "java.vm.name",
        "java.vm.version",
        "java.vm.specification.version",
        "java.home",
        "sun.java.command",
    ];
    let jvm = rows(a, "jvm")?;
    expect(
        jvm.len() == run_of.len(),
        format!("JVM rows for {} of {} traces", jvm.len(), run_of.len()),
    );
    for r in jvm {
        let Some(t) = run_of.get(s(r, 0)) else {
            continue;
        };
        for (i, property) in COLUMNS.iter().enumerate() {
            let want = t
                .truth
                .iter()
                .find(|l| l.len() > 2 && l[0] == "jvm" && l[1] == *property)
                .map(|l| l[2..].join(" "))
                .ok_or_else(|| format!("{}: no TRUTH jvm {property}", t.file))?;
            let got = s(r, i + 1).split_whitespace().collect::<Vec<_>>().join(" ");
            expect(
                got == want,
                format!("{}: {property} {got:?} != the JVM's {want:?}", s(r, 0)),
            );
        }
    }
    Ok(())
}

/// The calls exceptions ended and the events table against the programs' truth:
/// exceptions (class, thrown at, caught in), allocations at their site and line,
/// contention and waits, each tied to a call of the method it names.
fn events(
    a: &Value,
    traced: &[Traced],
    run_of: &BTreeMap<String, &Traced>,
    expect: &mut impl FnMut(bool, String),
) -> Result<(), String> {
    for t in traced {
        let id = run_of
            .iter()
            .find(|(_, r)| r.file == t.file)
            .map(|(id, _)| id.as_str())
            .unwrap_or_default();
        let exc = t
            .truth
            .iter()
            .find(|l| l[0] == "exception")
            .ok_or("no TRUTH exception")?;
        let n = t.truth(&["exception-exits", "CliWork.thrower"])?;
        let got: Vec<String> = rows(a, "exception_exits")?
            .iter()
            .filter(|r| s(r, 0) == id)
            .map(|r| {
                format!(
                    "{}.{} {} {} {}",
                    s(r, 1),
                    s(r, 2),
                    s(r, 3),
                    s(r, 4),
                    int(r, 5)
                )
            })
            .collect();
        let want = vec![format!("CliWork.thrower throw {} {n}", exc[1])];
        expect(
            got == want,
            format!("{id}: exception exits {got:?} != truth {want:?}"),
        );
        let ev = rows(a, "events")?;
        // (kind, class, Class.method, line or None) → the row.
        let find = |kind: &str, class: &str, site: &str, line: Option<i64>| {
            ev.iter().find(|r| {
                s(r, 0) == id
                    && s(r, 1) == kind
                    && s(r, 2) == class
                    && format!("{}.{}", s(r, 3), s(r, 4)) == site
                    && line.is_none_or(|l| int(r, 5) == l)
            })
        };
        let site_line = |w: &str| -> (String, Option<i64>) {
            match w.split_once(':') {
                Some((m, l)) => (m.to_string(), l.parse().ok()),
                None => (w.to_string(), None),
            }
        };
        for l in &t.truth {
            let (kind, class, site, n, caught, min_dur) = match &l[..] {
                [k, class, at, caught, n] if k == "exception" => {
                    ("exception", class, at, n, Some(caught), 0)
                }
                [k, class, at, n] if k == "alloc" => ("alloc", class, at, n, None, 0),
                [k, class, at, n, ns] if k == "contended" || k == "waits" => {
                    let kind = if k == "waits" { "wait" } else { "contended" };
                    (kind, class, at, n, None, ns.parse().unwrap_or(i64::MAX))
                }
                _ => continue,
            };
            let (site, line) = site_line(site);
            let n: i64 = n.parse().unwrap_or(-1);
            let Some(r) = find(kind, class, &site, line) else {
                expect(false, format!("{id}: no {kind} event of {class} at {site}"));
                continue;
            };
            expect(
                int(r, 7) == n,
                format!("{id}: {kind} {class} at {site}: {} != truth {n}", int(r, 7)),
            );
            expect(
                int(r, 9) == n,
                format!(
                    "{id}: {kind} {class}: {} of {n} tied to a call of {site}",
                    int(r, 9)
                ),
            );
            if let Some(c) = caught {
                let want = c.rsplit('.').next().unwrap_or_default();
                expect(
                    s(r, 6) == want,
                    format!("{id}: {class} caught in {} != truth {c}", s(r, 6)),
                );
            }
            if min_dur > 0 {
                expect(
                    int(r, 8) >= min_dur,
                    format!(
                        "{id}: {kind} {class} lasted {} < truth {min_dur}",
                        int(r, 8)
                    ),
                );
            }
        }
    }
    Ok(())
}

/// Line events (one per call of `counted()`, whose body is one line: the method's first,
/// each in a call of it), the threads' groups (the program's threads are platform
/// threads of group `main` on JDK 17, which has no virtual threads) and the drops the
/// trace's `traceEnd` counts.
fn lines_threads_drops(
    a: &Value,
    run_of: &BTreeMap<String, &Traced>,
    expect: &mut impl FnMut(bool, String),
) -> Result<(), String> {
    let lines = rows(a, "lines")?;
    expect(
        lines.len() == run_of.len(),
        format!(
            "line events of counted() in {} of {} traces",
            lines.len(),
            run_of.len()
        ),
    );
    for r in lines {
        let Some(t) = run_of.get(s(r, 0)) else {
            continue;
        };
        let calls: i64 = t
            .truth(&["calls", "CliWork.counted"])?
            .parse()
            .unwrap_or(-1);
        let (n, in_call, lo, hi, first) = (int(r, 2), int(r, 3), int(r, 4), int(r, 5), int(r, 6));
        expect(
            n == calls && in_call == n,
            format!(
                "{}: {n} lines of counted() ({in_call} in its calls) != truth {calls}",
                s(r, 0)
            ),
        );
        expect(
            lo == hi && lo == first && first > 0,
            format!(
                "{}: counted() ran lines {lo}..{hi}, its first line {first}",
                s(r, 0)
            ),
        );
    }
    let threads = rows(a, "threads")?;
    for id in run_of.keys() {
        for name in ["main", "cli-holder", "cli-waiter"] {
            let found = threads
                .iter()
                .any(|r| s(r, 0) == id && s(r, 1) == name && s(r, 2) == "main");
            expect(found, format!("{id}: no thread {name} of group main"));
        }
    }
    let virt = threads
        .iter()
        .filter(|r| cell(r, 3).as_bool() != Some(false))
        .count();
    expect(
        virt == 0,
        format!("{virt} threads virtual (or null) on JDK 17"),
    );
    for r in rows(a, "drops")? {
        let Some(t) = run_of.get(s(r, 0)) else {
            continue;
        };
        for (i, name) in [
            "droppedRecordBytes",
            "recordsOfUndefinedMethods",
            "recordsOfUnknownThreads",
        ]
        .iter()
        .enumerate()
        {
            let want = t.notes.get(*name).copied();
            expect(
                want.is_some() && Some(int(r, i + 1)) == want,
                format!("{}: {name} {} != trace's {want:?}", s(r, 0), int(r, i + 1)),
            );
        }
    }
    Ok(())
}

/// Not a trace, a bad --trace-id, an output that is a file: one line, non-zero exit,
/// nothing written (no fleet directory made, nor its parent).
fn bad_input(jtrace: &Path, base: &Path) -> Result<(), String> {
    // Two levels, neither there: a failed export makes and leaves neither.
    let out_dir = base.join("bad-fleet");
    let _ = std::fs::remove_dir_all(&out_dir);
    let deep = out_dir.join("runs");
    let not_trace = base.join("not-a-trace.xml");
    std::fs::write(&not_trace, "hello\n").map_err(|e| e.to_string())?;
    let cases: [(&Path, &[&str], &str); 3] = [
        (&deep, &[], "not a jtrace trace"),
        (&deep, &["--trace-id", "a/b"], "trace id"),
        (&not_trace, &[], "not a directory"),
    ];
    for (to, extra, says) in cases {
        let out = Command::new(jtrace)
            .arg("parquet")
            .arg(&not_trace)
            .arg("-o")
            .arg(to)
            .args(extra)
            .output()
            .map_err(|e| format!("cannot run jtrace: {e}"))?;
        let err = String::from_utf8_lossy(&out.stderr);
        if out.status.success() || !err.contains(says) || err.trim().lines().count() != 1 {
            return Err(format!(
                "jtrace parquet {extra:?} on a bad input: {} {err:?}",
                out.status
            ));
        }
        if out_dir.exists() {
            return Err(format!(
                "a failed export ({extra:?}) left {}",
                out_dir.display()
            ));
        }
        if std::fs::read(&not_trace).ok().as_deref() != Some(&b"hello\n"[..]) {
            return Err(format!("jtrace parquet {extra:?} changed its input file"));
        }
    }
    Ok(())
}
