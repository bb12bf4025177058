//! `cargo xtask test`, step cli: the `jtrace` command over traces of programs whose
//! structure is known (java-tests/cli/). Each program prints its ground truth as
//! `TRUTH ...` lines; the harness traces it (bci mode, every JDK), validates the trace
//! like any Java test (xmllint, tracecheck, EXPECT lines), then runs each subcommand and
//! compares: counts exactly, times only as lower bounds. The HTML report is opened in
//! headless Chromium.

use crate::cases;
use crate::java::Jdk;
use crate::run::{self, Job};
use crate::tally::Tally;
use crate::util;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

/// One agent mode is enough here: the mode equivalence is the Java tests' business.
const MODE: &str = "bci";

/// The truth a program printed, one `TRUTH` line split in words.
pub type Truth = Vec<Vec<String>>;

pub fn run(tally: &mut Tally, agent: &Path, jdks: &[Jdk], work: &Path) {
    let root = util::root();
    let built = util::build_release();
    let ok = built.is_ok();
    tally.report(built, "-", "cli-build");
    if !ok {
        return;
    }
    let jtrace = root.join("target/release/jtrace");
    let dir = root.join("java-tests/cli");
    let sources: Vec<PathBuf> = match std::fs::read_dir(&dir) {
        Ok(d) => {
            let mut v: Vec<PathBuf> = d
                .flatten()
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|x| x == "java"))
                .collect();
            v.sort();
            v
        }
        Err(e) => {
            tally.report(Err(format!("{}: {e}", dir.display())), "-", "cli-sources");
            return;
        }
    };
    let Some(work_case) = sources.iter().find(|p| p.ends_with("CliWork.java")) else {
        tally.report(
            Err("java-tests/cli/CliWork.java missing".into()),
            "-",
            "cli-sources",
        );
        return;
    };
    let case = match cases::load(work_case) {
        Ok(c) => c,
        Err(e) => {
            tally.report(Err(e), "-", "cli-sources");
            return;
        }
    };
    for jdk in jdks {
        let base = work.join(&jdk.name).join("cli");
        let classes = base.join("classes");
        if let Err(e) = crate::java::compile_sources(jdk, &classes, &sources) {
            tally.report(Err(e), &jdk.name, "cli-javac");
            continue;
        }
        // Run 1, and run 2 with counted() called twice as often; run 3 without alloc=
        // (objects are then named by objDef alone, which must carry their class).
        let mut doubled = case.clone();
        doubled.jvm_args.push("-Dcli.factor=2".to_string());
        let mut no_alloc = case.clone();
        no_alloc.options = no_alloc.options.replace("alloc=exact,", "");
        let mut traced = Vec::new();
        for (c, name) in [
            (&case, "CliWork"),
            (&doubled, "CliWork-x2"),
            (&no_alloc, "CliWork-noalloc"),
        ] {
            let job = Job {
                jdk,
                mode: MODE,
                case: c,
                classes: &classes,
                agent,
                dir: base.join(name),
            };
            let r = run::run(&job);
            let passed = r.is_ok();
            tally.report(r, &jdk.name, &format!("cli/{name}[{MODE}]"));
            if passed {
                traced.push(job.dir);
            }
        }
        for (name, what, check) in OWN_CHECKS {
            own_program(
                tally, jdk, agent, &jtrace, &classes, &base, &sources, name, what, *check,
            );
        }
        let [one, two, three] = &traced[..] else {
            continue;
        };
        let truth = match truth(&one.join("stdout.txt")) {
            Ok(t) => t,
            Err(e) => {
                tally.report(Err(e), &jdk.name, "cli:truth");
                continue;
            }
        };
        let t = Ctx {
            jtrace: &jtrace,
            trace: one.join("trace.xml"),
            dir: one.clone(),
            truth,
        };
        let report = t.report();
        let doc = report.as_ref().ok().cloned();
        tally.report(report.map(|_| ()), &jdk.name, "cli:report --json");
        let Some(doc) = doc else { continue };
        tally.report(t.report_text(), &jdk.name, "cli:report");
        tally.report(t.collapsed(&doc), &jdk.name, "cli:collapsed");
        tally.report(t.tree(), &jdk.name, "cli:tree");
        tally.report(t.slow(), &jdk.name, "cli:slow");
        tally.report(t.flame(), &jdk.name, "cli:flame");
        tally.report(t.perfetto(), &jdk.name, "cli:perfetto");
        tally.report(
            t.pftrace(),
            &jdk.name,
            "cli:perfetto .pftrace (Perfetto's schema)",
        );
        tally.report(t.check(), &jdk.name, "cli:check");
        tally.report(t.diff(&two.join("trace.xml")), &jdk.name, "cli:diff");
        tally.report(t.html(), &jdk.name, "cli:report --html (chromium)");
        tally.report(t.views(&doc), &jdk.name, "cli:replay, graph, info, callers");
        tally.report(
            t.same_for_jtr(two),
            &jdk.name,
            "cli:every answer the same for .jtr and XML",
        );
        let t3 = Ctx {
            trace: three.join("trace.xml"),
            dir: three.clone(),
            ..t
        };
        tally.report(
            t3.classes_named(),
            &jdk.name,
            "cli:report names classes without alloc=",
        );
    }
}

/// A check of the whole run directory of a program traced with `jtr=` beside the XML.
type RunCheck = fn(jtrace: &Path, run: &Path) -> Result<(), String>;

/// Programs traced for one check each: name, what the check says, the check.
const OWN_CHECKS: &[(&str, &str, RunCheck)] = &[
    (
        "CliWaits",
        "cli:report shows JDK sleeps and parks as waiting",
        waits,
    ),
    (
        "CliWindows",
        "cli:--from/--to through the .jtr index, the same as the XML's full pass",
        crate::steps::cli_windows::same_windows,
    ),
    (
        "CliLineWindows",
        "cli:--from/--to through the .jtr index with line records, the same as the XML's full pass",
        crate::steps::cli_windows::same_windows,
    ),
    (
        "CliRequests",
        "cli:jtrace windows lists the kept windows, --window narrows report to one (.jtr and XML)",
        crate::steps::cli_requests::windows_read,
    ),
    (
        "CliCut",
        "cli:report with one thread cut over two workers, the same as the XML's one pass",
        crate::steps::cli_cut::same_cut,
    ),
    (
        "CliPaths",
        "cli:report --html with a graph past 2 MB (srcdoc) draws every path (chromium)",
        flame_page,
    ),
];

/// Traces `java-tests/cli/NAME.java` (bci mode) and, once its run is valid, runs
/// `check` on the run's directory.
#[allow(clippy::too_many_arguments)]
fn own_program(
    tally: &mut Tally,
    jdk: &Jdk,
    agent: &Path,
    jtrace: &Path,
    classes: &Path,
    base: &Path,
    sources: &[PathBuf],
    name: &str,
    what: &str,
    check: RunCheck,
) {
    let case = match sources
        .iter()
        .find(|p| p.file_stem().is_some_and(|s| s == name))
        .map(|p| cases::load(p))
    {
        Some(Ok(c)) => c,
        Some(Err(e)) => return tally.report(Err(e), &jdk.name, "cli-sources"),
        None => {
            return tally.report(
                Err(format!("java-tests/cli/{name}.java missing")),
                "-",
                "cli-sources",
            )
        }
    };
    let job = Job {
        jdk,
        mode: MODE,
        case: &case,
        classes,
        agent,
        dir: base.join(name),
    };
    if run::reported(tally, &job, &format!("cli/{name}[{MODE}]")) {
        tally.report(check(jtrace, &job.dir), &jdk.name, what);
    }
}

/// CliWaits (default filters, `waits=on`): its sleeps and parks are probed in the JDK
/// and reported as waiting, apart from working.
fn waits(jtrace: &Path, run: &Path) -> Result<(), String> {
    Ctx {
        jtrace,
        trace: run.join("trace.xml"),
        dir: run.to_path_buf(),
        truth: truth(&run.join("stdout.txt"))?,
    }
    .waiting()
}

/// CliPaths' page, opened from its file: its graph is too large for a `data:` URL and
/// goes in the frame's `srcdoc`; in Chromium it draws every path the program made (and
/// the root), exactly, as `collapsed` lists them.
fn flame_page(jtrace: &Path, run: &Path) -> Result<(), String> {
    let t = Ctx {
        jtrace,
        trace: run.join("trace.xml"),
        dir: run.to_path_buf(),
        truth: truth(&run.join("stdout.txt"))?,
    };
    let paths = parse(&t.one("paths")?[0])?;
    let lines = t.jtrace(&["collapsed", t.path()])?.lines().count() as u64;
    if lines != paths {
        return Err(format!(
            "collapsed: {lines} paths, the program made {paths}"
        ));
    }
    let page = t.report_page()?;
    let html = std::fs::read_to_string(&page).map_err(|e| format!("{}: {e}", page.display()))?;
    if !html.contains(".srcdoc=") || html.contains("src=\"data:image/svg") {
        return Err("the page did not put its graph in the frame's srcdoc".into());
    }
    let (_, drawn) = t.in_chromium(&page)?;
    if drawn != paths + 1 {
        return Err(format!(
            "the graph drew {drawn} frames, expected {} (every path and the root)",
            paths + 1
        ));
    }
    Ok(())
}

/// The answers compared between a run's XML and its `.jtr` (`-o` writes one of
/// `cli_windows::OUT_FILES`).
const SAME_ANSWERS: &[&[&str]] = &[
    &["report", "--json", "trace"],
    &["report", "--top", "50", "trace"],
    &["report", "--html", "trace", "-o", "out"],
    &[
        "report", "--json", "--thread", "main", "--from", "1ms", "trace",
    ],
    &["collapsed", "trace"],
    &["collapsed", "--alloc", "--threads", "trace"],
    &["tree", "trace"],
    &["slow", "--over", "1ms", "trace"],
    &["slow", "--over", "1ms", "--json", "trace"],
    &["flame", "trace", "-o", "out.svg"],
    &["perfetto", "trace", "-o", "out.json"],
    &["perfetto", "trace", "-o", "out.pftrace"],
    &["diff", "trace", "after", "--json"],
    &["check", "trace"],
    &["info", "trace"],
    &["info", "--json", "trace"],
    &["replay", "trace"],
    &["replay", "--json", "--thread", "main", "trace"],
    &["graph", "CliWork.work", "trace"],
    &["graph", "CliWork.counted", "--json", "trace"],
];

/// The `TRUTH` lines a program printed (also the parquet step's).
pub fn truth(stdout: &Path) -> Result<Truth, String> {
    let text = std::fs::read_to_string(stdout).map_err(|e| format!("{}: {e}", stdout.display()))?;
    let t: Truth = text
        .lines()
        .filter_map(|l| l.strip_prefix("TRUTH "))
        .map(|l| l.split_whitespace().map(str::to_string).collect())
        .collect();
    if t.is_empty() {
        return Err("the program printed no TRUTH lines".into());
    }
    Ok(t)
}

struct Ctx<'a> {
    jtrace: &'a Path,
    trace: PathBuf,
    dir: PathBuf,
    truth: Truth,
}

fn num(v: &Value, key: &str) -> u64 {
    v.get(key).and_then(Value::as_u64).unwrap_or(0)
}

fn text<'v>(v: &'v Value, key: &str) -> &'v str {
    v.get(key).and_then(Value::as_str).unwrap_or("")
}

fn list<'v>(v: &'v Value, key: &str) -> &'v [Value] {
    v.get(key)
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

fn parse(s: &str) -> Result<u64, String> {
    s.parse().map_err(|_| format!("bad TRUTH figure {s:?}"))
}

impl Ctx<'_> {
    /// Runs `jtrace ARGS`; its stdout, or why it failed.
    fn jtrace(&self, args: &[&str]) -> Result<String, String> {
        let out = Command::new(self.jtrace)
            .args(args)
            .output()
            .map_err(|e| format!("cannot run {}: {e}", self.jtrace.display()))?;
        if !out.status.success() {
            return Err(format!(
                "jtrace {} failed ({}): {}",
                args.join(" "),
                out.status,
                util::clip(String::from_utf8_lossy(&out.stderr).trim(), 300)
            ));
        }
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    }

    /// `perfetto -o x.pftrace`, decoded by Perfetto's own schema (`perfetto_trace_pb2`
    /// of its Python package): every packet parses, every name id is interned before
    /// use, each track's slices nest, and the slices per method are the calls.
    fn pftrace(&self) -> Result<(), String> {
        const DECODE: &str = r#"
import json, sys
from perfetto.protos.perfetto.trace import perfetto_trace_pb2 as pb
t = pb.Trace()
t.ParseFromString(open(sys.argv[1], 'rb').read())
names, tracks, depth, begins, errors = {}, set(), {}, {}, []
for k in t.packet:
    for n in k.interned_data.event_names:
        names[n.iid] = n.name
    if k.HasField('track_descriptor'):
        tracks.add(k.track_descriptor.uuid)
    if not k.HasField('track_event'):
        continue
    e = k.track_event
    if e.track_uuid not in tracks:
        errors.append('event on an undescribed track %d' % e.track_uuid)
    if e.type in (pb.TrackEvent.TYPE_SLICE_BEGIN, pb.TrackEvent.TYPE_INSTANT):
        if e.name_iid not in names:
            errors.append('name id %d used before it was interned' % e.name_iid)
    if e.type == pb.TrackEvent.TYPE_SLICE_BEGIN:
        depth[e.track_uuid] = depth.get(e.track_uuid, 0) + 1
        n = names.get(e.name_iid, '?')
        begins[n] = begins.get(n, 0) + 1
    elif e.type == pb.TrackEvent.TYPE_SLICE_END:
        depth[e.track_uuid] = depth.get(e.track_uuid, 0) - 1
        if depth[e.track_uuid] < 0:
            errors.append('an end without a begin on track %d' % e.track_uuid)
errors += ['track %d left %d slices open' % (k, v) for k, v in depth.items() if v]
print(json.dumps({'slices': begins, 'errors': errors[:5], 'packets': len(t.packet)}))
"#;
        let out = self.dir.join("trace.pftrace");
        self.jtrace(&[
            "perfetto",
            self.path(),
            "-o",
            out.to_str().unwrap_or_default(),
        ])?;
        let o = Command::new("python3")
            .arg("-c")
            .arg(DECODE)
            .arg(&out)
            .output()
            .map_err(|e| format!("cannot run python3: {e}"))?;
        if !o.status.success() {
            return Err(format!(
                "decoding with Perfetto's schema failed (pip install perfetto protobuf): {}",
                util::clip(String::from_utf8_lossy(&o.stderr).trim(), 300)
            ));
        }
        let v: Value = serde_json::from_slice(&o.stdout).map_err(|e| format!("decoder: {e}"))?;
        if let Some(e) = list(&v, "errors").first() {
            return Err(format!(".pftrace: {e}"));
        }
        for w in self.truths("calls") {
            let got = v
                .pointer(&format!("/slices/{}", w[0]))
                .and_then(Value::as_u64);
            if got != Some(parse(&w[1])?) {
                return Err(format!(
                    ".pftrace: {:?} slices of {}, expected {}",
                    got, w[0], w[1]
                ));
            }
        }
        Ok(())
    }

    /// `replay`, `graph`, `info` and the report's caller edges against the program's
    /// own truth (exact counts; times only as lower bounds).
    fn views(&self, doc: &Value) -> Result<(), String> {
        let calls = |m: &str| -> Result<u64, String> {
            self.truths("calls")
                .find(|w| w[0] == m)
                .ok_or_else(|| format!("no TRUTH calls {m}"))
                .and_then(|w| parse(&w[1]))
        };
        let json = |args: &[&str]| -> Result<Value, String> {
            let mut a = args.to_vec();
            a.push(self.path());
            let out = self.jtrace(&a)?;
            serde_json::from_str(&out).map_err(|e| format!("jtrace {}: {e}", args.join(" ")))
        };
        // report --json: each caller edge, exact.
        for w in self.truths("caller") {
            let (callee, caller, n) = (&w[0], &w[1], parse(&w[2])?);
            let row = list(doc, "methods")
                .iter()
                .find(|m| format!("{}.{}", text(m, "class"), text(m, "name")) == *callee)
                .ok_or_else(|| format!("report: no method {callee}"))?;
            let got: u64 = list(row, "callers")
                .iter()
                .filter(|c| text(c, "jvm").starts_with(&format!("{caller}(")))
                .map(|c| num(c, "calls"))
                .sum();
            if got != n {
                return Err(format!(
                    "report: {caller} -> {callee}: {got} calls, expected {n}"
                ));
            }
            let self_sum: u64 = list(row, "callers").iter().map(|c| num(c, "self_ns")).sum();
            if self_sum != num(row, "self_ns") {
                return Err(format!(
                    "report: {callee}'s caller edges' self time {self_sum} != its self time {}",
                    num(row, "self_ns")
                ));
            }
        }
        // Waiting apart from working: enterLock's contention is its wait (at least the
        // hold the holder measured), and its work is the rest of its self time.
        let held = parse(&self.one("contended")?[3])?;
        let lock = list(doc, "methods")
            .iter()
            .find(|m| text(m, "name") == "enterLock")
            .ok_or("report: no enterLock")?;
        if num(lock, "wait_ns") < held
            || num(lock, "wait_ns") + num(lock, "work_ns") != num(lock, "self_ns")
        {
            return Err(format!(
                "report: enterLock waited {} ns, held {held} ns",
                num(lock, "wait_ns")
            ));
        }
        // graph: callers and callees merged by path, exact counts.
        let g = json(&["graph", "CliWork.counted", "--json"])?;
        let counted = calls("CliWork.counted")?;
        if num(&g, "calls") != counted {
            return Err(format!(
                "graph counted: {} calls, expected {counted}",
                num(&g, "calls")
            ));
        }
        let callers = list(&g, "callers");
        let chain: Vec<&str> = callers.iter().map(|n| text(n, "frame")).collect();
        if chain
            != [
                "CliWork.counted(int)",
                "CliWork.work()",
                "CliWork.main(String[])",
            ]
            || callers.iter().any(|n| num(n, "calls") != counted)
        {
            return Err(format!("graph counted: callers {chain:?}"));
        }
        let g = json(&["graph", "CliWork.work", "--json"])?;
        for (m, frame) in [
            ("CliWork.counted", "CliWork.counted(int)"),
            ("CliWork.sleepy", "CliWork.sleepy()"),
            ("CliWork.thrower", "CliWork.thrower()"),
        ] {
            let got: u64 = list(&g, "callees")
                .iter()
                .filter(|n| text(n, "frame") == frame)
                .map(|n| num(n, "calls"))
                .sum();
            if got != calls(m)? {
                return Err(format!("graph work: {got} calls of {frame} below it"));
            }
        }
        // replay: every call in order, exceptions, allocations, lock waits inline.
        let r = json(&["replay", "--json", "--thread", "main"])?;
        let lines = r.as_array().ok_or("replay --json is not a list")?;
        let count = |kind: &str, method: &str| {
            lines
                .iter()
                .filter(|l| text(l, "kind") == kind && text(l, "method") == method)
                .count() as u64
        };
        if count("call", "CliWork.counted(int)") != counted {
            return Err("replay: not every counted(int) call".into());
        }
        let min = parse(&self.one("min-sleep")?[0])?;
        let sleeps: Vec<u64> = lines
            .iter()
            // A call is one `call` line, or `enter` ... `exit` when calls happened
            // inside it (the first sleepy() computes its path): its `exit` has the duration.
            .filter(|l| {
                text(l, "method") == "CliWork.sleepy()"
                    && matches!(text(l, "kind"), "call" | "exit")
            })
            .map(|l| num(l, "duration_ns"))
            .collect();
        if sleeps.len() as u64 != calls("CliWork.sleepy")? || sleeps.iter().any(|&d| d < min) {
            return Err(format!(
                "replay: sleepy() calls {sleeps:?}, each at least {min} ns"
            ));
        }
        let throws = self.one("exception")?;
        let line: u32 = throws[1]
            .rsplit(':')
            .next()
            .and_then(|l| l.parse().ok())
            .unwrap_or(0);
        let exc = lines
            .iter()
            .filter(|l| {
                text(l, "kind") == "exception"
                    && text(l, "method") == "CliWork.thrower()"
                    && text(l, "caught_in") == "CliWork.catcher()"
                    && num(l, "line") == line as u64
            })
            .count() as u64;
        if exc != calls("CliWork.thrower")? {
            return Err(format!(
                "replay: {exc} exceptions thrown at line {line} and caught"
            ));
        }
        let allocs = lines
            .iter()
            .filter(|l| text(l, "kind") == "alloc" && text(l, "class") == "CliWork.Payload")
            .count() as u64;
        if allocs != calls("CliWork.allocSite")? {
            return Err(format!("replay: {allocs} Payload allocations"));
        }
        let w = json(&["replay", "--json", "--thread", "cli-waiter"])?;
        let blocked = w
            .as_array()
            .into_iter()
            .flatten()
            .find(|l| text(l, "kind") == "blocked" && text(l, "class") == "CliWork.Lock")
            .ok_or("replay cli-waiter: no blocked line")?;
        if num(blocked, "duration_ns") < held || text(blocked, "owner") != "cli-holder" {
            return Err(format!("replay cli-waiter: {blocked}"));
        }
        // --min-time keeps the slow calls only: 5 sleeps inside work inside main.
        let slow = json(&[
            "replay",
            "--json",
            "--thread",
            "main",
            "--min-time",
            &format!("{min}ns"),
        ])?;
        if slow
            .as_array()
            .into_iter()
            .flatten()
            .any(|l| text(l, "method") == "CliWork.counted(int)")
        {
            return Err("replay --min-time: a short call shown".into());
        }
        // info: the session.
        let i = json(&["info", "--json"])?;
        if i.get("complete") != Some(&Value::Bool(true)) {
            return Err("info: not complete".into());
        }
        for w in self.truths("thread") {
            if !list(&i, "threads").iter().any(|t| text(t, "name") == w[0]) {
                return Err(format!("info: no thread {}", w[0]));
            }
        }
        let main_calls: u64 = list(&i, "threads")
            .iter()
            .filter(|t| text(t, "name") == "main")
            .map(|t| num(t, "calls"))
            .sum();
        if main_calls < counted {
            return Err(format!("info: main made {main_calls} calls"));
        }
        if i.pointer("/drops_and_repairs/droppedRecordBytes") != Some(&Value::from("0")) {
            return Err("info: droppedRecordBytes is not 0".into());
        }
        // info: the JVM, as the program printed its own properties.
        let jvm: Vec<&[String]> = self.truths("jvm").collect();
        if jvm.len() < 6 {
            return Err(format!("{} TRUTH jvm lines, not 6", jvm.len()));
        }
        for w in jvm {
            let want = w[1..].join(" ");
            let got = i
                .get("jvm")
                .and_then(|j| j.get(&w[0]))
                .and_then(Value::as_str)
                .map(|v| v.split_whitespace().collect::<Vec<_>>().join(" "));
            if got.as_deref() != Some(want.as_str()) {
                return Err(format!(
                    "info: jvm {} is {got:?}, the JVM says {want:?}",
                    w[0]
                ));
            }
        }
        Ok(())
    }

    /// Every answer in [`SAME_ANSWERS`], byte for byte the same for the run's XML and
    /// its `.jtr` (`jtr=` beside `out=`). Both are read under the same name, `trace`
    /// (a link; the kind comes from the file's first bytes), so names in the answers
    /// agree too.
    fn same_for_jtr(&self, after: &Path) -> Result<(), String> {
        let mut answers = Vec::new();
        for ext in ["xml", "jtr"] {
            let dir = self.dir.join(format!("same-{ext}"));
            let _ = std::fs::remove_dir_all(&dir);
            std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
            for (link, target) in [("trace", &self.dir), ("after", &after.to_path_buf())] {
                let file = target.join(format!("trace.{ext}"));
                std::os::unix::fs::symlink(&file, dir.join(link))
                    .map_err(|e| format!("{}: {e}", file.display()))?;
            }
            let mut got = Vec::new();
            for args in SAME_ANSWERS {
                // The `.jtr` on two workers where an answer can split its threads
                // (`--jobs`): the same bytes as the XML's one pass.
                let split = ext == "jtr"
                    && ["report", "collapsed", "tree", "slow", "flame", "diff"].contains(&args[0]);
                let out = Command::new(self.jtrace)
                    .args(*args)
                    .args(if split { &["--jobs", "2"][..] } else { &[] })
                    .current_dir(&dir)
                    .output()
                    .map_err(|e| format!("cannot run {}: {e}", self.jtrace.display()))?;
                if !out.status.success() {
                    return Err(format!(
                        "jtrace {} on the {ext} failed ({}): {}",
                        args.join(" "),
                        out.status,
                        util::clip(String::from_utf8_lossy(&out.stderr).trim(), 300)
                    ));
                }
                let mut answer = out.stdout;
                for name in crate::steps::cli_windows::OUT_FILES {
                    if let Ok(file) = std::fs::read(dir.join(name)) {
                        answer.extend_from_slice(&file);
                        let _ = std::fs::remove_file(dir.join(name));
                    }
                }
                got.push(answer);
            }
            answers.push(got);
        }
        for (i, args) in SAME_ANSWERS.iter().enumerate() {
            let (x, j) = (&answers[0][i], &answers[1][i]);
            if x != j {
                let at = x.iter().zip(j.iter()).take_while(|(a, b)| a == b).count();
                return Err(format!(
                    "jtrace {}: the .jtr's answer differs from the XML's at byte {at}: {:?} / {:?}",
                    args.join(" "),
                    String::from_utf8_lossy(&x[at.saturating_sub(40)..(at + 40).min(x.len())]),
                    String::from_utf8_lossy(&j[at.saturating_sub(40)..(at + 40).min(j.len())]),
                ));
            }
        }
        Ok(())
    }

    /// CliWaits' report: each blocking JDK method's calls from the program's methods
    /// (exact), all of its time waiting, the sleeps at least what was asked, and the
    /// working ranking (JSON and text) led by the method that computes.
    fn waiting(&self) -> Result<(), String> {
        let out = self.jtrace(&["report", "--json", self.path()])?;
        let doc: Value =
            serde_json::from_str(&out).map_err(|e| format!("report --json is not JSON: {e}"))?;
        let methods = list(&doc, "methods");
        let key = |m: &Value| format!("{}.{}", text(m, "class"), text(m, "name"));
        let rank = |k: &str| -> Result<usize, String> {
            methods
                .iter()
                .position(|m| key(m) == k)
                .ok_or_else(|| format!("report: no method {k}"))
        };
        let slept = parse(&self.one("slept-at-least")?[1])?;
        for w in self.truths("caller") {
            let (callee, caller, n) = (&w[0], &w[1], parse(&w[2])?);
            let row = &methods[rank(callee)?];
            if num(row, "wait_ns") != num(row, "self_ns") || num(row, "work_ns") != 0 {
                return Err(format!(
                    "report: {callee} waits {} of its {} ns self time",
                    num(row, "wait_ns"),
                    num(row, "self_ns")
                ));
            }
            let edges: Vec<&Value> = list(row, "callers")
                .iter()
                .filter(|c| text(c, "jvm").starts_with(&format!("{caller}(")))
                .collect();
            let calls: u64 = edges.iter().map(|c| num(c, "calls")).sum();
            if calls != n {
                return Err(format!(
                    "report: {caller} -> {callee}: {calls} calls, expected {n}"
                ));
            }
            let total: u64 = edges.iter().map(|c| num(c, "total_ns")).sum();
            if callee == "java.lang.Thread.sleep" && total < slept {
                return Err(format!(
                    "report: {caller} slept {total} ns in {callee}, at least {slept} expected"
                ));
            }
        }
        // Ranked by working time: the method that computes comes before every blocking
        // method (whose working time is 0), in the JSON and in the text.
        let working = &self.one("working")?[0];
        let first = rank(working)?;
        for w in self.truths("caller") {
            if rank(&w[0])? < first {
                return Err(format!("report: {} ranked before {working}", w[0]));
            }
        }
        let txt = self.jtrace(&["report", "--top", "500", self.path()])?;
        let section = txt
            .split("Methods by working time")
            .nth(1)
            .ok_or("report: no \"Methods by working time\" section")?;
        let at = |needle: &str| {
            section
                .lines()
                .position(|l| l.contains(needle))
                .ok_or_else(|| format!("report text: no line with {needle}"))
        };
        let busy = at(".busy(")?;
        for needle in ["Thread.sleep(", "LockSupport.parkNanos("] {
            if at(needle)? < busy {
                return Err(format!("report text: {needle} ranked before busy()"));
            }
        }
        Ok(())
    }

    fn path(&self) -> &str {
        self.trace.to_str().unwrap_or_default()
    }

    /// `report --html` of the trace, written as `report.html` in the run's directory.
    fn report_page(&self) -> Result<PathBuf, String> {
        let page = self.dir.join("report.html");
        self.jtrace(&[
            "report",
            "--html",
            self.path(),
            "-o",
            page.to_str().unwrap_or_default(),
        ])?;
        Ok(page)
    }

    /// `page` (an HTML report) in headless Chromium: it renders, passes its own
    /// self-test (sorting, width), logs nothing to the console and has a flame graph.
    /// Its DOM, and the frames its graph says it drew (0: it did not load).
    fn in_chromium(&self, page: &Path) -> Result<(String, u64), String> {
        let url = format!("file://{}#selftest", page.display());
        let out = util::chromium_dump_dom(&url, &self.dir.join("chromium-profile"))?;
        let dom = String::from_utf8_lossy(&out.stdout).into_owned();
        let log = String::from_utf8_lossy(&out.stderr);
        if !out.status.success() || dom.is_empty() {
            return Err(format!(
                "chromium failed ({}): {}",
                out.status,
                util::clip(log.trim(), 300)
            ));
        }
        // Chromium logs every console message as `...:CONSOLE(line)] "message"`.
        if let Some(l) = log.lines().find(|l| l.contains(":CONSOLE")) {
            return Err(format!("console message: {}", util::clip(l, 300)));
        }
        if !dom.contains("data-selftest=\"ok\"") {
            return Err(format!(
                "the page's self-test did not pass (sorting, or tables wider than 1400px: {:?})",
                dom.split("data-too-wide=\"")
                    .nth(1)
                    .and_then(|r| r.split('"').next())
            ));
        }
        if !dom.contains("<iframe id=\"flame\"") {
            return Err("the page has no flame graph".into());
        }
        // The graph loaded in its frame and drew frames (it says how many).
        let drawn: u64 = dom
            .split("data-flame=\"")
            .nth(1)
            .and_then(|r| r.split('"').next())
            .and_then(|n| n.parse().ok())
            .unwrap_or(0);
        Ok((dom, drawn))
    }

    fn truths(&self, kind: &'static str) -> impl Iterator<Item = &[String]> + '_ {
        self.truth
            .iter()
            .filter(move |l| l.first().is_some_and(|k| k == kind))
            .map(|l| &l[1..])
    }

    fn one(&self, kind: &'static str) -> Result<&[String], String> {
        self.truths(kind)
            .next()
            .ok_or_else(|| format!("no TRUTH {kind} line"))
    }

    fn report(&self) -> Result<Value, String> {
        let out = self.jtrace(&["report", "--json", self.path()])?;
        let doc: Value =
            serde_json::from_str(&out).map_err(|e| format!("report --json is not JSON: {e}"))?;
        let methods = list(&doc, "methods");
        let method = |key: &str| -> Result<&Value, String> {
            methods
                .iter()
                .find(|m| format!("{}.{}", text(m, "class"), text(m, "name")) == key)
                .ok_or_else(|| format!("report has no method {key}"))
        };
        let mut errs = Vec::new();
        let mut check = |ok: bool, what: String| {
            if !ok {
                errs.push(what);
            }
        };
        for w in self.truths("calls") {
            let m = method(&w[0])?;
            check(
                num(m, "calls") == parse(&w[1])?,
                format!("{} calls {} != {}", w[0], num(m, "calls"), w[1]),
            );
        }
        for w in self.truths("exception-exits") {
            let m = method(&w[0])?;
            let got = num(m, "exception_exits");
            check(
                got == parse(&w[1])?,
                format!("{} exception exits {got} != {}", w[0], w[1]),
            );
        }
        for w in self.truths("self-at-least") {
            let m = method(&w[0])?;
            let got = num(m, "self_ns");
            check(
                got >= parse(&w[1])?,
                format!("{} self {got} ns < {} ns slept", w[0], w[1]),
            );
        }
        for w in self.truths("total-at-least") {
            let m = method(&w[0])?;
            let got = num(m, "total_ns");
            check(
                got >= parse(&w[1])?,
                format!("{} total {got} ns < {}", w[0], w[1]),
            );
        }
        for w in self.truths("exception") {
            let (class, thrown_in, caught_in, n) = (&w[0], &w[1], &w[2], parse(&w[3])?);
            let row = list(&doc, "exceptions").iter().find(|e| {
                text(e, "class") == class
                    && text(e, "thrown_in") == thrown_in
                    && text(e, "caught_in") == caught_in
            });
            match row {
                Some(e) => check(
                    num(e, "thrown") == n && num(e, "caught") == n,
                    format!(
                        "{class} thrown {} caught {}, expected {n}",
                        num(e, "thrown"),
                        num(e, "caught")
                    ),
                ),
                None => check(
                    false,
                    format!("no exception row {class} {thrown_in} -> {caught_in}"),
                ),
            }
        }
        for w in self.truths("alloc") {
            let (class, site, n) = (&w[0], &w[1], parse(&w[2])?);
            let row = list(&doc, "allocations")
                .iter()
                .find(|a| text(a, "class") == class && text(a, "site") == site);
            match row {
                Some(a) => check(
                    num(a, "count") == n,
                    format!("{class} at {site}: {} allocations != {n}", num(a, "count")),
                ),
                None => check(false, format!("no allocation row {class} at {site}")),
            }
        }
        for (kind, count, time) in [
            ("contended", "contended", "blocked_ns"),
            ("waits", "waits", "waited_ns"),
        ] {
            for w in self.truths(kind) {
                let (class, site, n, ns) = (&w[0], &w[1], parse(&w[2])?, parse(&w[3])?);
                let row = list(&doc, "monitors")
                    .iter()
                    .find(|m| text(m, "class") == class && text(m, "site") == site);
                match row {
                    Some(m) => {
                        check(
                            num(m, count) == n,
                            format!("{class} at {site}: {count} {} != {n}", num(m, count)),
                        );
                        check(
                            num(m, time) >= ns,
                            format!("{class} at {site}: {time} {} < {ns} measured", num(m, time)),
                        );
                    }
                    None => check(false, format!("no monitor row {class} at {site}")),
                }
            }
        }
        for w in self.truths("thread") {
            check(
                list(&doc, "threads")
                    .iter()
                    .any(|t| text(t, "name") == w[0]),
                format!("no thread {}", w[0]),
            );
        }
        for w in self.truths("gc-at-least") {
            let got = doc.get("gc").map_or(0, |g| num(g, "collections"));
            check(
                got >= parse(&w[0])?,
                format!("{got} collections < {}", w[0]),
            );
        }
        if errs.is_empty() {
            Ok(doc)
        } else {
            Err(errs.join("; "))
        }
    }

    /// A trace made without `alloc=`: every exception and monitor row of `report --json`
    /// the truth names is there under its class (from objDef's classIdRef), none is `?`.
    fn classes_named(&self) -> Result<(), String> {
        let out = self.jtrace(&["report", "--json", self.path()])?;
        let doc: Value =
            serde_json::from_str(&out).map_err(|e| format!("report --json is not JSON: {e}"))?;
        let mut errs = Vec::new();
        for (kind, table) in [
            ("exception", "exceptions"),
            ("contended", "monitors"),
            ("waits", "monitors"),
        ] {
            for w in self.truths(kind) {
                if !list(&doc, table).iter().any(|r| text(r, "class") == w[0]) {
                    errs.push(format!("no {table} row of class {}", w[0]));
                }
            }
            for r in list(&doc, table) {
                if text(r, "class") == "?" {
                    errs.push(format!("a {table} row has no class: {r}"));
                }
            }
        }
        if errs.is_empty() {
            Ok(())
        } else {
            Err(errs.join("; "))
        }
    }

    fn report_text(&self) -> Result<(), String> {
        let out = self.jtrace(&["report", "--top", "50", self.path()])?;
        for w in self.truths("calls") {
            let line = out
                .lines()
                .find(|l| {
                    l.split_whitespace()
                        .last()
                        .is_some_and(|m| m.starts_with(&format!("{}(", w[0])))
                })
                .ok_or_else(|| format!("text report lacks {}", w[0]))?;
            if line.split_whitespace().next() != Some(w[1].as_str()) {
                return Err(format!("text report: {line:?}, expected {} calls", w[1]));
            }
        }
        Ok(())
    }

    /// Folded stacks: their sum is the report's total self time, exactly.
    fn collapsed(&self, doc: &Value) -> Result<(), String> {
        let out = self.jtrace(&["collapsed", self.path()])?;
        let mut sum = 0u64;
        let mut sleepy = 0u64;
        for l in out.lines() {
            let (stack, v) = l
                .rsplit_once(' ')
                .ok_or_else(|| format!("bad folded line {l:?}"))?;
            let v: u64 = v
                .parse()
                .map_err(|_| format!("bad folded value in {l:?}"))?;
            sum += v;
            if stack == "CliWork.main;CliWork.work;CliWork.sleepy" {
                sleepy += v;
            }
        }
        let self_total: u64 = list(doc, "methods").iter().map(|m| num(m, "self_ns")).sum();
        if sum != self_total {
            return Err(format!(
                "folded stacks sum to {sum} ns, the report's self times to {self_total} ns"
            ));
        }
        let slept = parse(&self.one("self-at-least")?[1])?;
        if sleepy < slept {
            return Err(format!(
                "stack main;work;sleepy has {sleepy} ns < {slept} slept"
            ));
        }
        Ok(())
    }

    fn tree(&self) -> Result<(), String> {
        let out = self.jtrace(&["tree", self.path()])?;
        for w in self.truths("calls") {
            let short = w[0].as_str();
            let calls: u64 = out
                .lines()
                .filter(|l| l.split_whitespace().last() == Some(short))
                .filter_map(|l| l.split_whitespace().next()?.parse::<u64>().ok())
                .sum();
            if calls != parse(&w[1])? {
                return Err(format!(
                    "tree: {short} has {calls} calls, expected {}",
                    w[1]
                ));
            }
        }
        // The sleeps hang under main > work.
        let lines: Vec<&str> = out.lines().collect();
        let i = lines
            .iter()
            .position(|l| l.trim_end().ends_with("    CliWork.work"))
            .ok_or("tree: no CliWork.work under CliWork.main")?;
        if !lines[i + 1..]
            .iter()
            .take(8)
            .any(|l| l.ends_with("      CliWork.sleepy"))
        {
            return Err("tree: CliWork.sleepy is not a child of CliWork.work".into());
        }
        Ok(())
    }

    fn slow(&self) -> Result<(), String> {
        let ms = parse(&self.one("sleep-ms")?[0])?;
        let min = parse(&self.one("min-sleep")?[0])?;
        let over = format!("{}ms", ms.saturating_sub(5));
        let out = self.jtrace(&["slow", "--over", &over, "--json", self.path()])?;
        let v: Value = serde_json::from_str(&out).map_err(|e| format!("slow --json: {e}"))?;
        let calls = v.as_array().ok_or("slow --json is not a list")?;
        let sleepy: Vec<&Value> = calls
            .iter()
            .filter(|c| text(c, "method") == "CliWork.sleepy")
            .collect();
        let n = parse(&self.one("calls")?[1]).ok();
        let want = self
            .truths("calls")
            .find(|w| w[0] == "CliWork.sleepy")
            .map(|w| parse(&w[1]))
            .transpose()?
            .or(n)
            .unwrap_or(0);
        if sleepy.len() as u64 != want {
            return Err(format!(
                "slow: {} sleepy calls over {over}, expected {want}",
                sleepy.len()
            ));
        }
        if let Some(c) = sleepy.iter().find(|c| num(c, "duration_ns") < min) {
            return Err(format!(
                "slow: a sleepy call of {} ns, shorter than the {min} ns slept",
                num(c, "duration_ns")
            ));
        }
        // report --method: its slowest calls are the method's, as its table is.
        let out = self.jtrace(&[
            "report",
            "--json",
            "--method",
            "CliWork.sleepy",
            self.path(),
        ])?;
        let doc: Value = serde_json::from_str(&out).map_err(|e| format!("report --json: {e}"))?;
        let slowest = list(&doc, "slowest");
        if slowest.len() as u64 != want.min(20) {
            return Err(format!(
                "report --method CliWork.sleepy: {} slowest calls, expected {}",
                slowest.len(),
                want.min(20)
            ));
        }
        if let Some(c) = slowest.iter().find(|c| {
            text(c, "class") != "CliWork"
                || text(c, "name") != "sleepy"
                || num(c, "duration_ns") < min
        }) {
            return Err(format!("report --method CliWork.sleepy: slowest call {c}"));
        }
        // work() is slow too, and its subtree holds every counted() call.
        let work = calls
            .iter()
            .find(|c| text(c, "method") == "CliWork.work")
            .ok_or("slow: CliWork.work missing")?;
        let counted = self
            .truths("calls")
            .find(|w| w[0] == "CliWork.counted")
            .ok_or("no TRUTH calls CliWork.counted")?;
        let in_subtree: u64 = list(work, "subtree")
            .iter()
            .filter(|n| text(n, "frame") == "CliWork.counted")
            .map(|n| num(n, "calls"))
            .sum();
        if in_subtree != parse(&counted[1])? {
            return Err(format!(
                "slow: work's subtree has {in_subtree} counted calls, expected {}",
                counted[1]
            ));
        }
        Ok(())
    }

    fn flame(&self) -> Result<(), String> {
        let svg = self.dir.join("flame.svg");
        let alloc = self.dir.join("alloc.svg");
        self.jtrace(&["flame", self.path(), "-o", svg.to_str().unwrap_or_default()])?;
        self.jtrace(&[
            "flame",
            "--alloc",
            self.path(),
            "-o",
            alloc.to_str().unwrap_or_default(),
        ])?;
        let read =
            |p: &Path| std::fs::read_to_string(p).map_err(|e| format!("{}: {e}", p.display()));
        let (svg, alloc) = (read(&svg)?, read(&alloc)?);
        for f in ["CliWork.sleepy", "CliWork.counted", "CliWork.work"] {
            if !svg.contains(f) {
                return Err(format!("flame graph lacks {f}"));
            }
        }
        if !alloc.contains("CliWork$Payload") {
            return Err("allocation flame graph lacks CliWork$Payload".into());
        }
        Ok(())
    }

    fn perfetto(&self) -> Result<(), String> {
        let out = self.dir.join("timeline.json");
        self.jtrace(&[
            "perfetto",
            self.path(),
            "-o",
            out.to_str().unwrap_or_default(),
        ])?;
        let text_ = std::fs::read_to_string(&out).map_err(|e| format!("{}: {e}", out.display()))?;
        let v: Value =
            serde_json::from_str(&text_).map_err(|e| format!("timeline is not JSON: {e}"))?;
        let events = list(&v, "traceEvents");
        let count = |ph: &str, name: &str| {
            events
                .iter()
                .filter(|e| text(e, "ph") == ph && (name.is_empty() || text(e, "name") == name))
                .count() as u64
        };
        let (b, e) = (count("B", ""), count("E", ""));
        if b != e {
            return Err(format!("timeline: {b} slices begun, {e} ended"));
        }
        for w in self.truths("calls") {
            let got = count("B", &w[0]);
            if got != parse(&w[1])? {
                return Err(format!(
                    "timeline: {got} slices of {}, expected {}",
                    w[0], w[1]
                ));
            }
        }
        let ex = self.one("exception")?;
        let thrown = count("i", &format!("throw {}", ex[0]));
        if thrown != parse(&ex[3])? {
            return Err(format!(
                "timeline: {thrown} throw instants, expected {}",
                ex[3]
            ));
        }
        let al = self.one("alloc")?;
        let allocs = count("i", &format!("alloc {}", al[0]));
        if allocs != parse(&al[2])? {
            return Err(format!(
                "timeline: {allocs} allocation instants, expected {}",
                al[2]
            ));
        }
        let c = self.one("contended")?;
        let held = parse(&c[3])?;
        let blocked = events
            .iter()
            .filter(|e| text(e, "name") == format!("blocked on {}", c[0]))
            .filter_map(|e| e.get("dur").and_then(Value::as_f64))
            .fold(0.0, f64::max);
        // dur is in microseconds with three decimals (ns precision).
        if blocked * 1000.0 + 1.0 < held as f64 {
            return Err(format!(
                "timeline: blocked on {} for {blocked} us < {held} ns held",
                c[0]
            ));
        }
        if count("X", "GC") == 0 {
            return Err("timeline: no GC slice".into());
        }
        let named = |n: &str| {
            events.iter().any(|e| {
                text(e, "ph") == "M" && e.get("args").is_some_and(|a| text(a, "name") == n)
            })
        };
        if let Some(w) = self.truths("thread").find(|w| !named(&w[0])) {
            return Err(format!("timeline: no track named {}", w[0]));
        }
        Ok(())
    }

    fn check(&self) -> Result<(), String> {
        let out = self.jtrace(&["check", self.path()])?;
        if !out.contains(": valid (") {
            return Err(format!("jtrace check: {}", out.trim()));
        }
        Ok(())
    }

    /// Run 2 called counted() twice as often: exactly that change, nothing else.
    fn diff(&self, after: &Path) -> Result<(), String> {
        let out = self.jtrace(&[
            "diff",
            "--json",
            self.path(),
            after.to_str().unwrap_or_default(),
        ])?;
        let v: Value = serde_json::from_str(&out).map_err(|e| format!("diff --json: {e}"))?;
        let counted = self
            .truths("calls")
            .find(|w| w[0] == "CliWork.counted")
            .ok_or("no TRUTH calls CliWork.counted")?;
        let n = parse(&counted[1])? as i64;
        let mut seen = false;
        for m in list(&v, "methods") {
            let key = format!("{}.{}", text(m, "class"), text(m, "name"));
            let d = m
                .get("delta")
                .and_then(|d| d.get("calls"))
                .and_then(Value::as_i64)
                .unwrap_or(i64::MIN);
            if key == "CliWork.counted" {
                seen = true;
                if d != n {
                    return Err(format!("diff: counted changed by {d} calls, expected +{n}"));
                }
            } else if d != 0 {
                return Err(format!("diff: {key} changed by {d} calls, expected 0"));
            }
        }
        if !seen {
            return Err("diff: no row for CliWork.counted".into());
        }
        // Sorted by the largest change in self time; counted's own row is first or
        // (self times being noise at this scale) at least present; its text shows +N.
        let text_ = self.jtrace(&["diff", self.path(), after.to_str().unwrap_or_default()])?;
        let line = text_
            .lines()
            .find(|l| l.ends_with("CliWork.counted(int)"))
            .ok_or("diff text lacks CliWork.counted")?;
        if !line.split_whitespace().any(|w| w == format!("+{n}")) {
            return Err(format!("diff text: {line:?} lacks +{n}"));
        }
        Ok(())
    }

    /// The HTML report in headless Chromium: it renders, runs its own sorting self-test,
    /// logs nothing to the console, shows the methods and its flame graph draws.
    fn html(&self) -> Result<(), String> {
        let page = self.report_page()?;
        let (dom, drawn) = self.in_chromium(&page)?;
        for w in self.truths("calls") {
            if !dom.contains(&format!("{}(", w[0])) {
                return Err(format!("the page does not show {}", w[0]));
            }
        }
        if drawn == 0 {
            return Err("the page's flame graph did not load or drew no frame".into());
        }
        Ok(())
    }
}
