//! `cargo xtask test`, step control: `jtrace attach/start/stop/status`, `start=off` with the `jtrace.Trace` switch, `delay=`/`duration=`, TPTP filter files, and every refusal, on each JDK (java-tests/control/).

use crate::java::{self, Jdk};
use crate::proc::Proc;
use crate::stress::validate;
use crate::tally::Tally;
use crate::util;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// How long a JVM may take to print `ready`.
const READY: Duration = Duration::from_secs(60);

/// What every case needs.
struct Ctx<'a> {
    jdk: &'a Jdk,
    agent: &'a Path,
    jtrace: &'a Path,
    jar: &'a Path,
    classes: PathBuf,
    dir: PathBuf,
}

impl Ctx<'_> {
    fn java(&self, agent_options: Option<&str>, main: &[&str]) -> Command {
        java::Run::new(self.jdk)
            .agent_if(self.agent, agent_options)
            .class_path(format!("{}:{}", self.classes.display(), self.jar.display()))
            .args(main)
            .command()
    }

    /// Runs `jtrace ARGS` from `cwd`: (exit code, stdout + stderr).
    fn jtrace(&self, args: &[&str], cwd: &Path) -> (i32, String) {
        match Command::new(self.jtrace)
            .args(args)
            .current_dir(cwd)
            .output()
        {
            Ok(o) => (
                o.status.code().unwrap_or(-1),
                format!(
                    "{}{}",
                    String::from_utf8_lossy(&o.stdout),
                    String::from_utf8_lossy(&o.stderr)
                ),
            ),
            Err(e) => (-1, format!("cannot run jtrace: {e}")),
        }
    }

    /// `jtrace ARGS` must exit with `code` (0, or any non-zero for `1`) saying `says`.
    fn expect(&self, args: &[&str], ok: bool, says: &str) -> Result<String, String> {
        let (code, text) = self.jtrace(args, &self.dir);
        if (code == 0) != ok || !text.contains(says) {
            return Err(format!(
                "jtrace {}: exit {code}, expected {} saying {says:?}; said: {}",
                args.join(" "),
                if ok { "0" } else { "non-zero" },
                util::clip(&text.replace('\n', " | "), 300)
            ));
        }
        Ok(text)
    }
}

/// Entries of `Class.method` (short key) in a valid trace, and its methodCount.
fn figures(s: &tracecheck::Summary, key: &str) -> (u64, u64) {
    s.methods
        .iter()
        .filter(|(k, _)| k.starts_with(&format!("{key}(")))
        .fold((0, 0), |(e, c), (_, m)| {
            (e + m.entries, c + m.method_count.unwrap_or(0))
        })
}

/// A valid trace with nothing repaired or dropped.
fn exact(trace: &Path) -> Result<tracecheck::Summary, String> {
    let s = validate(trace).map_err(|e| format!("{}: {e}", trace.display()))?;
    let r = s.repairs();
    if !r.is_empty() {
        return Err(format!("{}: repairs {}", trace.display(), r.join(", ")));
    }
    Ok(s)
}

fn busy(ctx: &Ctx, cmd: Command) -> Result<Proc, String> {
    let p = Proc::spawn(cmd, &ctx.dir)?;
    if !p.wait_line("ready", READY) {
        return Err("Busy never printed ready".to_string());
    }
    // Let it reach its loop.
    std::thread::sleep(Duration::from_millis(300));
    Ok(p)
}

/// Ends Busy (its flag file) and checks it finished as without the agent.
fn finish_busy(ctx: &Ctx, p: Proc) -> Result<String, String> {
    std::fs::write(ctx.dir.join("flag"), b"").map_err(|e| e.to_string())?;
    let done = p.finish(Duration::from_secs(60));
    std::fs::write(ctx.dir.join("stderr.txt"), &done.stderr).ok();
    if done.timed_out || done.code() != Some(0) || done.stdout != "ready\ndone true true\n" {
        return Err(format!(
            "Busy did not end normally: exit {:?}, stdout {:?}, stderr {}",
            done.code(),
            done.stdout,
            done.stderr_tail()
        ));
    }
    Ok(done.stderr)
}

/// attach, status, refusals, stop, start with another out and a filter file, stop.
fn attach_stop_start(ctx: &Ctx) -> Result<String, String> {
    let p = busy(ctx, ctx.java(None, &["Busy", "flag"]))?;
    let pid = p.pid().to_string();
    let pid = pid.as_str();
    let d = ctx.dir.display().to_string();
    ctx.expect(&["status", pid], true, "state: not loaded")?;
    ctx.expect(&["dump", pid], false, "not loaded")?;
    let t0 = Instant::now();
    ctx.expect(
        &["attach", pid, &format!("out={d}/first-%n.xml,include=Busy")],
        true,
        "trace 1 started",
    )?;
    let attach_s = t0.elapsed().as_secs_f64();
    std::thread::sleep(Duration::from_millis(400));
    let st = ctx.expect(&["status", pid], true, "state: tracing")?;
    if !st.contains(&format!("file: {d}/first-1.xml")) || st.contains("events: 0\n") {
        return Err(format!("status while tracing: {st}"));
    }
    ctx.expect(&["attach", pid], false, "already loaded")?;
    ctx.expect(&["start", pid], false, "already tracing")?;
    ctx.expect(&["dump", pid], false, "has no ring")?;
    ctx.expect(&["stop", pid], true, "trace written to")?;
    ctx.expect(&["status", pid], true, "state: idle")?;
    ctx.expect(&["stop", pid], false, "not tracing")?;
    ctx.expect(&["dump", pid], false, "not tracing")?;
    ctx.expect(
        &["start", pid, "mode=jvmti"],
        false,
        "cannot change between traces",
    )?;
    // Relative paths are the caller's (jtrace runs in dir/cli, the JVM in dir).
    let cli = ctx.dir.join("cli");
    std::fs::create_dir_all(&cli).map_err(|e| e.to_string())?;
    std::fs::write(
        cli.join("filters.txt"),
        "# other() only\nBusy work EXCLUDE\nBusy * INCLUDE\n",
    )
    .map_err(|e| e.to_string())?;
    let (code, text) = ctx.jtrace(
        &["start", pid, "out=second-%n.xml,filters=filters.txt"],
        &cli,
    );
    if code != 0 || !text.contains(&format!("{}/second-2.xml", cli.display())) {
        return Err(format!("second start: exit {code}: {text}"));
    }
    std::thread::sleep(Duration::from_millis(400));
    ctx.expect(&["stop", pid], true, "second-2.xml")?;
    let stderr = finish_busy(ctx, p)?;
    if stderr.matches("jtrace: trace written to").count() != 2 {
        return Err(format!("the JVM's stderr should name 2 traces: {stderr}"));
    }
    let first = exact(&ctx.dir.join("first-1.xml"))?;
    let second = exact(&cli.join("second-2.xml"))?;
    let (w1, c1) = figures(&first, "Busy.work");
    let (o1, _) = figures(&first, "Busy.other");
    let (w2, c2) = figures(&second, "Busy.work");
    let (o2, _) = figures(&second, "Busy.other");
    // methodCount: every call since the class was instrumented, up to the close.
    // work() calls other(): a trace that starts or stops between the two entries holds
    // one more of either, so the two counts may differ by one.
    if w1 == 0 || o1.abs_diff(w1) > 1 || w2 != 0 || o2 == 0 || c1 < w1 || c2 < c1 {
        return Err(format!(
            "counts: trace 1 work {w1} (methodCount {c1}) other {o1}; trace 2 work {w2} (methodCount {c2}) other {o2}"
        ));
    }
    Ok(format!(
        "attach {attach_s:.2}s; trace 1: {w1} work+other calls; trace 2: {o2} other, 0 work"
    ))
}

/// A trace stopped while a thread sits four traced calls deep is valid (tracecheck and
/// `jtrace check`: those calls are open at its close); the next trace of the same run
/// sees them return (exits of earlier frames) and is valid too.
fn stop_while_deep(ctx: &Ctx) -> Result<String, String> {
    let d = ctx.dir.display().to_string();
    let flag = ctx.dir.join("flag");
    let p = Proc::spawn(
        ctx.java(
            Some(&format!("out={d}/deep-%n.xml,include=Nested,waits=off")),
            &["Nested", &flag.display().to_string()],
        ),
        &ctx.dir,
    )?;
    if !p.wait_line("ready", READY) {
        return Err("Nested never printed ready".to_string());
    }
    let pid = p.pid().to_string();
    ctx.expect(&["stop", &pid], true, "deep-1.xml")?;
    ctx.expect(
        &["start", &pid, &format!("out={d}/deep-%n.xml")],
        true,
        "trace 2 started",
    )?;
    std::fs::write(&flag, b"").map_err(|e| e.to_string())?;
    let done = p.finish(Duration::from_secs(60));
    if done.timed_out || done.code() != Some(0) || done.stdout != "ready\ndone true\n" {
        return Err(format!(
            "Nested did not end normally: exit {:?}, stdout {:?}, stderr {}",
            done.code(),
            done.stdout,
            done.stderr_tail()
        ));
    }
    let mut open = 0;
    for n in [1, 2] {
        let trace = ctx.dir.join(format!("deep-{n}.xml"));
        let s = exact(&trace)?;
        let path = trace.display().to_string();
        ctx.expect(&["check", &path], true, "valid")?;
        let main = s.threads.iter().find(|t| t.name == "main");
        if n == 1 {
            open = main.map_or(0, |t| t.open_frames_at_end);
        }
    }
    if open != 4 {
        return Err(format!(
            "deep-1.xml: main ends with {open} open frames, expected 4 (main, outer, middle, inner)"
        ));
    }
    Ok("stopped with 4 calls open; both traces valid".to_string())
}

/// A loader that delegates only `java.lang.*` cannot see the tracker: the classes it
/// defines run untouched (the program's result is unchanged), the agent names the
/// loader once on stderr, and the trace is valid with those classes not defined.
fn blind_loader(ctx: &Ctx) -> Result<String, String> {
    let d = ctx.dir.display().to_string();
    let out = ctx
        .java(
            Some(&format!("out={d}/blind.xml,include=Blind*")),
            &["Blind"],
        )
        .current_dir(&ctx.dir)
        .output()
        .map_err(|e| format!("cannot run java: {e}"))?;
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    if out.status.code() != Some(0) || stdout != "result 4950\n" {
        return Err(format!(
            "Blind: exit {:?}, stdout {stdout:?}, stderr {}",
            out.status.code(),
            util::clip(&stderr, 300)
        ));
    }
    let said = "class loader Blind$OnlyJavaLang cannot see java.jtrace.Tracker";
    if stderr.lines().filter(|l| l.contains(said)).count() != 1 {
        return Err(format!("stderr should say once {said:?}: {stderr}"));
    }
    let s = exact(&ctx.dir.join("blind.xml"))?;
    if s.classes.iter().any(|c| c == "BlindPayload") || !s.classes.iter().any(|c| c == "Blind") {
        return Err(format!("classes defined: {:?}", s.classes));
    }
    Ok("loader named once; its class untouched".to_string())
}

/// keep=failed: tests marked through jtrace.Trace (as the JUnit listener marks them);
/// the trace holds exactly the failing tests' windows, each with the calls the program
/// counted, and nothing of the passing tests or of the frames around the tests.
fn keep_failed(ctx: &Ctx) -> Result<String, String> {
    let d = ctx.dir.display();
    let o = ctx
        .java(
            Some(&format!(
                "keep=failed,out={d}/failed.xml,jtr={d}/failed.jtr"
            )),
            &["FailedTests"],
        )
        .current_dir(&ctx.dir)
        .output()
        .map_err(|e| e.to_string())?;
    let out = String::from_utf8_lossy(&o.stdout);
    if !o.status.success() {
        return Err(format!(
            "FailedTests: {}: {}",
            o.status,
            String::from_utf8_lossy(&o.stderr)
        ));
    }
    // The program's truth: "FAILED id calls", in order.
    let want: Vec<String> = out
        .lines()
        .filter_map(|l| l.strip_prefix("FAILED "))
        .map(|l| l.replace(' ', ":"))
        .collect();
    let s = exact(&ctx.dir.join("failed.xml"))?;
    let got: Vec<String> = s
        .windows
        .iter()
        .map(|w| format!("{}:{}", w.test, w.calls))
        .collect();
    if got != want
        || s.windows
            .iter()
            .any(|w| w.outcome != "threw" || w.kept != "failed")
    {
        return Err(format!(
            "windows: program says {want:?}, trace has {:?}",
            s.windows
        ));
    }
    let entries: u64 = s.threads.iter().map(|t| t.entries).sum();
    let calls: u64 = s.windows.iter().map(|w| w.calls).sum();
    if entries != calls {
        return Err(format!(
            "{entries} entries in the trace, {calls} in its windows"
        ));
    }
    for (name, n) in [
        ("windowsSeen", 12),
        ("windowsKept", 3),
        ("windowsKeptFailed", 3),
    ] {
        if s.end_counts.get(name) != Some(&n) {
            return Err(format!(
                "traceEnd {name}: {:?}, want {n}",
                s.end_counts.get(name)
            ));
        }
    }
    // The .jtr says the same to jtrace windows.
    ctx.expect(
        &["windows", &format!("{d}/failed.jtr")],
        true,
        "seen 12, kept 3",
    )?;
    Ok(format!("{} failing tests kept, {calls} calls", want.len()))
}

/// The windows of a ring's dump, checked against the program's truth (`calls[k]`: the
/// calls of request k, whose window id is k + 1): contiguous ids, each with its exact
/// calls, the oldest cut (`after`: the first id is past it), the newest at least
/// `newest`. Returns the ids' range.
fn ring_windows(
    trace: &Path,
    calls: &[u64],
    after: u64,
    newest: u64,
) -> Result<(u64, u64), String> {
    let s = exact(trace)?;
    let ids: Vec<u64> = s
        .windows
        .iter()
        .map(|w| w.id.parse().unwrap_or(0))
        .collect();
    let (first, last) = (ids.first().copied(), ids.last().copied());
    let (Some(first), Some(last)) = (first, last) else {
        return Err(format!("{}: no windows", trace.display()));
    };
    if ids.iter().zip(first..).any(|(&id, want)| id != want) {
        return Err(format!(
            "{}: window ids not contiguous: {ids:?}",
            trace.display()
        ));
    }
    if first <= after.max(1) || last < newest {
        return Err(format!(
            "{}: windows {first}..={last}, want the oldest cut (after {after}) and the newest at least {newest}",
            trace.display()
        ));
    }
    for w in &s.windows {
        let k = w.id.parse::<usize>().unwrap_or(0);
        let want = calls.get(k.wrapping_sub(1)).copied();
        if want != Some(w.calls) || w.outcome != "returned" {
            return Err(format!(
                "{}: window {} has {} calls ({}), the program says {want:?}",
                trace.display(),
                w.id,
                w.calls,
                w.outcome
            ));
        }
    }
    let entries: u64 = s.threads.iter().map(|t| t.entries).sum();
    let in_windows: u64 = s.windows.iter().map(|w| w.calls).sum();
    if entries != in_windows || s.end_counts.get("ringCutRecords").is_none_or(|&n| n == 0) {
        return Err(format!(
            "{}: {entries} entries, {in_windows} in windows, ringCutRecords {:?}",
            trace.display(),
            s.end_counts.get("ringCutRecords")
        ));
    }
    Ok((first, last))
}

/// ring=: the program dumps its own ring (jtrace.Trace.dump), the step dumps it from
/// outside twice (jtrace dump -o, and to out='s %n); every dump is valid and holds
/// the newest whole windows with their exact calls; recording goes on after each; the
/// ring is not written at the end without dump-on=exit.
fn ring_dump(ctx: &Ctx) -> Result<String, String> {
    let d = ctx.dir.display().to_string();
    let opts = format!("window=RingServer.handle,ring=1m,waits=off,out={d}/ring-%n.jtr");
    let self_dump = format!("{d}/self.xml");
    let p = Proc::spawn(
        ctx.java(Some(&opts), &["RingServer", "flag", &self_dump]),
        &ctx.dir,
    )?;
    if !p.wait_line("ready", READY) || !p.wait_line("SELF 400 true", READY) {
        return Err("RingServer never dumped its own ring".to_string());
    }
    let pid = p.pid().to_string();
    let pid = pid.as_str();
    ctx.expect(&["status", pid], true, "state: tracing (ring)")?;
    std::thread::sleep(Duration::from_millis(300));
    ctx.expect(&["dump", pid, "-o", "outside.xml"], true, "ring dumped to")?;
    std::thread::sleep(Duration::from_millis(300));
    ctx.expect(
        &["dump", pid],
        true,
        &format!("ring dumped to {d}/ring-1.jtr"),
    )?;
    std::fs::write(ctx.dir.join("flag"), b"").map_err(|e| e.to_string())?;
    let done = p.finish(Duration::from_secs(60));
    std::fs::write(ctx.dir.join("stderr.txt"), &done.stderr).ok();
    let calls: Vec<u64> = done
        .stdout
        .lines()
        .find_map(|l| l.strip_prefix("CALLS "))
        .map(|l| l.split(' ').filter_map(|c| c.parse().ok()).collect())
        .unwrap_or_default();
    if done.code() != Some(0) || calls.len() < 400 || !done.stderr.contains("was not written") {
        return Err(format!(
            "RingServer: exit {:?}, {} requests, stderr {}",
            done.code(),
            calls.len(),
            done.stderr_tail()
        ));
    }
    let (_, self_last) = ring_windows(Path::new(&self_dump), &calls, 0, 400)?;
    if self_last != 400 {
        return Err(format!(
            "self.xml ends at window {self_last}, the program dumped after 400"
        ));
    }
    let (first, outside_last) = ring_windows(&ctx.dir.join("outside.xml"), &calls, 0, 401)?;
    // The .jtr dump: checked by jtrace, and rendered by it for the checkers.
    ctx.expect(&["check", &format!("{d}/ring-1.jtr")], true, "")?;
    ctx.expect(
        &[
            "xml",
            &format!("{d}/ring-1.jtr"),
            "-o",
            &format!("{d}/ring-1.xml"),
        ],
        true,
        "",
    )?;
    let (_, last) = ring_windows(&ctx.dir.join("ring-1.xml"), &calls, first, outside_last)?;
    Ok(format!(
        "{} requests; dumps end at windows 400, {outside_last}, {last}",
        calls.len()
    ))
}

/// Runs SeriesCalls with `n` calls under `max-size=4m`, writing `dir/s-%n.jtr`: the
/// program's calls of a() and b(), its closing line, and the files left, oldest first.
fn series_run(ctx: &Ctx, n: u32, dir: &Path) -> Result<(u64, String, Vec<PathBuf>), String> {
    let _ = std::fs::create_dir_all(dir);
    let opts = format!("max-size=4m,waits=off,out={}/s-%n.jtr", dir.display());
    let o = ctx
        .java(Some(&opts), &["SeriesCalls", &n.to_string()])
        .output()
        .map_err(|e| e.to_string())?;
    let (out, err) = (
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr),
    );
    let want = format!("CALLS {n} {n}\n");
    if !o.status.success() || out != want {
        return Err(format!(
            "SeriesCalls {n}: {}, stdout {out:?}, stderr {err}",
            o.status
        ));
    }
    let mut files: Vec<(u32, PathBuf)> = std::fs::read_dir(dir)
        .map_err(|e| e.to_string())?
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            let k = name
                .strip_prefix("s-")?
                .strip_suffix(".jtr")?
                .parse()
                .ok()?;
            Some((k, e.path()))
        })
        .collect();
    files.sort();
    Ok((
        u64::from(n),
        err.into_owned(),
        files.into_iter().map(|f| f.1).collect(),
    ))
}

/// Calls of `Class.method` in `jtrace report --json` of the files given as one series.
fn series_calls(ctx: &Ctx, files: &[PathBuf], method: &str) -> Result<u64, String> {
    let mut args = vec!["report".to_string(), "--json".to_string()];
    args.extend(files.iter().rev().map(|f| f.display().to_string()));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let (code, text) = ctx.jtrace(&args, &ctx.dir);
    let v: serde_json::Value = serde_json::from_str(&text).map_err(|e| {
        format!(
            "jtrace report --json of the series: exit {code}: {e}: {}",
            util::clip(&text, 300)
        )
    })?;
    Ok(v["methods"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|m| m["method"].as_str().is_some_and(|s| s.starts_with(method)))
        .filter_map(|m| m["calls"].as_u64())
        .sum())
}

/// max-size=: the trace is written as a series of .jtr files, each valid on its own; a
/// series that fits keeps every file and, read as one (`jtrace report s-*.jtr`, in any
/// order), has exactly the program's calls; a long run keeps within the bound by
/// removing the oldest files, and what is left still reads as one.
fn series(ctx: &Ctx) -> Result<String, String> {
    // 50,000 iterations (100,000 calls): about 2.6 MB of records, files of 1 MB, none
    // removed.
    let (n, err, files) = series_run(ctx, 50_000, &ctx.dir.join("whole"))?;
    if files.len() < 3 || !err.contains(&format!("series of {} files, 0 removed", files.len())) {
        return Err(format!("{} files, closing line: {err}", files.len()));
    }
    for f in &files {
        ctx.expect(&["check", &f.display().to_string()], true, "valid")?;
    }
    // A middle file, rendered, for the DTD and the checker.
    let middle = &files[1];
    let xml = middle.with_extension("xml");
    ctx.expect(
        &[
            "xml",
            &middle.display().to_string(),
            "-o",
            &xml.display().to_string(),
        ],
        true,
        "",
    )?;
    validate(&xml).map_err(|e| format!("{}: {e}", xml.display()))?;
    for m in ["SeriesCalls.a(", "SeriesCalls.b("] {
        let got = series_calls(ctx, &files, m)?;
        if got != n {
            return Err(format!(
                "{m}: the series has {got} calls, the program made {n}"
            ));
        }
    }
    // The whole series rendered as one document: valid, with every call.
    let joined = ctx.dir.join("whole.xml");
    let mut args = vec!["xml".to_string()];
    args.extend(files.iter().map(|f| f.display().to_string()));
    args.extend(["-o".to_string(), joined.display().to_string()]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    ctx.expect(&args, true, "")?;
    let s = exact(&joined)?;
    for key in ["SeriesCalls.a", "SeriesCalls.b"] {
        let (got, _) = figures(&s, key);
        if got != n {
            return Err(format!(
                "{key}: the joined document has {got} entries, the program made {n}"
            ));
        }
    }
    // 1,000,000 iterations: about 52 MB of records in 4 MB.
    let (n, err, files) = series_run(ctx, 1_000_000, &ctx.dir.join("bounded"))?;
    let bytes: u64 = files
        .iter()
        .map(|f| std::fs::metadata(f).map_or(0, |m| m.len()))
        .sum();
    // The bound, plus the last message written (a chunk of 64 KiB per thread at most).
    if bytes > (4 << 20) + (512 << 10) || !err.contains(" removed, ") || err.contains(" 0 removed")
    {
        return Err(format!(
            "{} files, {bytes} bytes, closing line: {err}",
            files.len()
        ));
    }
    for f in &files {
        ctx.expect(&["check", &f.display().to_string()], true, "valid")?;
    }
    let a = series_calls(ctx, &files, "SeriesCalls.a(")?;
    if a == 0 || a >= n {
        return Err(format!(
            "the bounded series has {a} calls of a(), of the program's {n}"
        ));
    }
    Ok(format!(
        "{} files kept of a bounded series, {bytes} bytes; {a} of {n} calls",
        files.len()
    ))
}

/// start=off plus jtrace.Trace around a known block: exactly its calls; and the API
/// is a no-op without the agent.
fn java_switch(ctx: &Ctx) -> Result<String, String> {
    let plain = ctx
        .java(None, &["Switch"])
        .current_dir(&ctx.dir)
        .output()
        .map_err(|e| e.to_string())?;
    let out = String::from_utf8_lossy(&plain.stdout);
    if out != "false false 670\n" || !plain.status.success() {
        return Err(format!("without the agent: {out:?} {}", plain.status));
    }
    let d = ctx.dir.display();
    let o = ctx
        .java(
            Some(&format!("start=off,counts=all,out={d}/never.xml")),
            &["Switch", &format!("{d}/block-%n.xml")],
        )
        .current_dir(&ctx.dir)
        .output()
        .map_err(|e| e.to_string())?;
    let out = String::from_utf8_lossy(&o.stdout);
    if out != "true true 670\n" || !o.status.success() {
        return Err(format!(
            "with start=off: {out:?} {}: {}",
            o.status,
            String::from_utf8_lossy(&o.stderr)
        ));
    }
    if ctx.dir.join("never.xml").exists() {
        return Err("start=off wrote the load-time out file".to_string());
    }
    let s = exact(&ctx.dir.join("block-1.xml"))?;
    let (fib, count) = figures(&s, "Switch.fib");
    let (main, main_count) = figures(&s, "Switch.main");
    // fib(15) inside: 1973 calls; fib(10) before: 177.
    if (fib, count, main, main_count) != (1973, 2150, 0, 1) {
        return Err(format!(
            "block trace: fib {fib} entries (1973 expected), methodCount {count} (2150), main {main}/{main_count} (0/1)"
        ));
    }
    // counts=traced (the default): probes cost a field read between traces, and count
    // nothing there. Trace.start("") writes to the load-time out.
    let o = ctx
        .java(
            Some(&format!("start=off,out={d}/traced-%n.xml")),
            &["Switch"],
        )
        .current_dir(&ctx.dir)
        .output()
        .map_err(|e| e.to_string())?;
    if o.stdout != b"true true 670\n" || !o.status.success() {
        return Err(format!("counts=traced: {}", o.status));
    }
    let s = exact(&ctx.dir.join("traced-1.xml"))?;
    if figures(&s, "Switch.fib") != (1973, 1973) {
        return Err(format!(
            "counts=traced: fib {:?}, (1973, 1973) expected",
            figures(&s, "Switch.fib")
        ));
    }
    Ok(
        "1973 fib calls of the block, methodCount 2150 with counts=all (1973 by default)"
            .to_string(),
    )
}

/// counts=all: entries made between traces by many threads (some ended, some not,
/// virtual ones on JDK 21+) are counted exactly: methodCount is the program's own
/// figure in both traces. Run twice: with the tracker's tables as shipped, and with
/// two slots (`JTRACE_IDLE_SLOTS=2`), where most threads are counted by the agent and
/// ended threads' slots are taken over all the time.
fn idle_counts(ctx: &Ctx) -> Result<String, String> {
    let mut said = Vec::new();
    for slots in ["", "2"] {
        let dir = ctx.dir.join(format!("slots{slots}"));
        std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
        let d = dir.display();
        let mut cmd = ctx.java(
            Some(&format!(
                "start=off,counts=all,include=IdleCounts,out={d}/never.xml"
            )),
            &["IdleCounts", &d.to_string()],
        );
        if !slots.is_empty() {
            cmd.env("JTRACE_IDLE_SLOTS", slots);
        }
        let o = cmd.current_dir(&dir).output().map_err(|e| e.to_string())?;
        let out = String::from_utf8_lossy(&o.stdout);
        let words: Vec<&str> = out.split_whitespace().collect();
        if !o.status.success() || words.len() != 6 || words[2..] != ["true"; 4] {
            return Err(format!(
                "IdleCounts (slots {slots:?}): {} {out:?}: {}",
                o.status,
                String::from_utf8_lossy(&o.stderr)
            ));
        }
        let want: Vec<u64> = words[..2].iter().filter_map(|w| w.parse().ok()).collect();
        let traced = 1_000;
        for (n, &count) in want.iter().enumerate() {
            let s = exact(&dir.join(format!("idle-{}.xml", n + 1)))?;
            let got = figures(&s, "IdleCounts.work");
            if got != (traced, count) {
                return Err(format!(
                    "slots {slots:?}, trace {}: work ({traced}, {count}) expected (entries, methodCount), got {got:?}",
                    n + 1
                ));
            }
        }
        said = want;
    }
    Ok(format!(
        "methodCount {} and {} exactly, also with 2 slots",
        said[0], said[1]
    ))
}

/// filters= with method rules gives exact counts; a bad file is refused with its line,
/// at load (the JVM does not start) and at attach (the JVM goes on).
fn filter_files(ctx: &Ctx) -> Result<String, String> {
    let d = ctx.dir.display();
    let good = ctx.dir.join("good.txt");
    let bad = ctx.dir.join("bad.txt");
    std::fs::write(&good, "Switch fib INCLUDE\nSwitch * EXCLUDE\n").map_err(|e| e.to_string())?;
    std::fs::write(&bad, "Switch fib INCLUDE\nSwitch fib\n").map_err(|e| e.to_string())?;
    let o = ctx
        .java(
            Some(&format!("filters={},out={d}/filtered.xml", good.display())),
            &["Switch"],
        )
        .current_dir(&ctx.dir)
        .output()
        .map_err(|e| e.to_string())?;
    // Traced from the start, so Trace.start is refused and Trace.stop ends the trace.
    if !o.status.success() || o.stdout != b"false true 670\n" {
        return Err(format!(
            "filtered run: {} {:?}",
            o.status,
            String::from_utf8_lossy(&o.stdout)
        ));
    }
    let s = exact(&ctx.dir.join("filtered.xml"))?;
    let (fib, count) = figures(&s, "Switch.fib");
    let (main, main_count) = figures(&s, "Switch.main");
    // fib(10) and fib(15) before Trace.stop: 177 + 1973; main has no probes.
    if (fib, count, main, main_count) != (2150, 2150, 0, 0) {
        return Err(format!(
            "filtered: fib {fib}/{count} (2150/2150 expected), main {main}/{main_count} (0/0)"
        ));
    }
    if s.options.get("methodFilter").map(String::as_str) != Some("Switch * EXCLUDE")
        && s.options.get("methodFilter").map(String::as_str) != Some("Switch fib INCLUDE")
    {
        return Err(format!("method rules not echoed: {:?}", s.options));
    }
    let o = ctx
        .java(
            Some(&format!("filters={},out={d}/bad.xml", bad.display())),
            &["Switch"],
        )
        .current_dir(&ctx.dir)
        .output()
        .map_err(|e| e.to_string())?;
    let err = String::from_utf8_lossy(&o.stderr);
    let line2 = format!("{}:2:", bad.display());
    // (HotSpot itself then prints "Error occurred during initialization of VM" on stdout.)
    if o.status.success() || !err.contains(&line2) {
        return Err(format!("bad filter file at load: {} {err}", o.status));
    }
    let p = busy(ctx, ctx.java(None, &["Busy", "flag"]))?;
    let pid = p.pid().to_string();
    ctx.expect(
        &["attach", &pid, &format!("filters={}", bad.display())],
        false,
        &line2,
    )?;
    ctx.expect(&["status", &pid], true, "state: not loaded")?;
    finish_busy(ctx, p)?;
    Ok("fib 2150/2150, main untraced; bad file refused at line 2".to_string())
}

/// delay= then duration=: the trace starts and ends on its own, the JVM goes on.
fn delay_duration(ctx: &Ctx) -> Result<String, String> {
    let d = ctx.dir.display();
    let p = busy(
        ctx,
        ctx.java(
            Some(&format!("delay=300ms,duration=400ms,out={d}/timed.xml")),
            &["Busy", "flag"],
        ),
    )?;
    let pid = p.pid().to_string();
    std::thread::sleep(Duration::from_millis(1200));
    ctx.expect(&["status", &pid], true, "state: idle")?;
    let stderr = finish_busy(ctx, p)?;
    if !stderr.contains("trace 1 started for 400 ms") || !stderr.contains("trace written to") {
        return Err(format!("stderr: {stderr}"));
    }
    let s = exact(&ctx.dir.join("timed.xml"))?;
    let (w, _) = figures(&s, "Busy.work");
    if w == 0 || s.runtime_shutdown {
        return Err(format!(
            "timed trace: {w} work entries, runtimeShutdown {}",
            s.runtime_shutdown
        ));
    }
    Ok(format!("{w} work calls in 400 ms after 300 ms"))
}

/// Not a JVM, no such process: clear message, non-zero exit, nothing harmed.
fn not_a_jvm(ctx: &Ctx) -> Result<String, String> {
    let mut sleeper = Command::new("sleep")
        .arg("30")
        .spawn()
        .map_err(|e| e.to_string())?;
    let pid = sleeper.id().to_string();
    let r = ctx
        .expect(&["attach", &pid], false, "not a HotSpot JVM")
        .and_then(|_| ctx.expect(&["stop", &pid], false, "not a HotSpot JVM"));
    std::thread::sleep(Duration::from_millis(100));
    let alive = sleeper.try_wait().map(|s| s.is_none()).unwrap_or(false);
    let _ = sleeper.kill();
    let _ = sleeper.wait();
    r?;
    if !alive {
        return Err("the non-JVM process died".to_string());
    }
    ctx.expect(&["status", "999999999"], false, "no process")?;
    Ok("refused, process unharmed".to_string())
}

/// The JVM runs as another user in another directory; jtrace attaches as root.
fn other_user(ctx: &Ctx) -> Result<Option<String>, String> {
    use std::os::unix::process::CommandExt;
    // Our effective uid, from /proc/self/status (no FFI in xtask).
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let euid = status
        .lines()
        .find_map(|l| l.strip_prefix("Uid:"))
        .and_then(|v| v.split_whitespace().nth(1).map(str::to_string));
    if euid.as_deref() != Some("0") {
        return Ok(None);
    }
    const USER: &str = "jtrace-ctl";
    let id = |flag: &str| {
        Command::new("id")
            .args([flag, USER])
            .output()
            .ok()
            .filter(|o| o.status.success())
            .and_then(|o| {
                String::from_utf8_lossy(&o.stdout)
                    .trim()
                    .parse::<u32>()
                    .ok()
            })
    };
    if id("-u").is_none() {
        util::run_tool(
            Command::new("useradd").args(["--system", "--no-create-home", USER]),
            "useradd",
        )?;
    }
    let (uid, gid) = (id("-u").ok_or("no uid")?, id("-g").ok_or("no gid")?);
    let home = ctx.dir.join("elsewhere");
    std::fs::create_dir_all(&home).map_err(|e| e.to_string())?;
    std::os::unix::fs::chown(&home, Some(uid), Some(gid)).map_err(|e| e.to_string())?;
    let mut cmd = ctx.java(None, &["Busy", "flag"]);
    cmd.uid(uid).gid(gid);
    let p = Proc::spawn(cmd, &home)?;
    if !p.wait_line("ready", READY) {
        return Err("Busy (other user) never printed ready".to_string());
    }
    std::thread::sleep(Duration::from_millis(300));
    let pid = p.pid().to_string();
    let h = home.display();
    ctx.expect(
        &["attach", &pid, &format!("out={h}/user-%n.xml,include=Busy")],
        true,
        "trace 1 started",
    )?;
    std::thread::sleep(Duration::from_millis(300));
    ctx.expect(&["status", &pid], true, "state: tracing")?;
    ctx.expect(&["stop", &pid], true, "trace written to")?;
    std::fs::write(home.join("flag"), b"").map_err(|e| e.to_string())?;
    let done = p.finish(Duration::from_secs(60));
    if done.code() != Some(0) || done.stdout != "ready\ndone true true\n" {
        return Err(format!(
            "Busy (other user) did not end normally: {:?} {}",
            done.code(),
            done.stderr_tail()
        ));
    }
    let trace = home.join("user-1.xml");
    let owner =
        std::os::unix::fs::MetadataExt::uid(&std::fs::metadata(&trace).map_err(|e| e.to_string())?);
    if owner != uid {
        return Err(format!("the trace belongs to uid {owner}, not {uid}"));
    }
    let s = exact(&trace)?;
    let leftovers: Vec<String> =
        std::fs::read_dir(format!("/proc/{}/root/tmp", std::process::id()))
            .map(|d| {
                d.flatten()
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .filter(|n| {
                        n.starts_with(".jtrace-reply")
                            || n.starts_with(&format!(".attach_pid{pid}"))
                    })
                    .collect()
            })
            .unwrap_or_default();
    if !leftovers.is_empty() {
        return Err(format!("files left in /tmp: {leftovers:?}"));
    }
    Ok(Some(format!(
        "uid {uid}: {} work calls",
        figures(&s, "Busy.work").0
    )))
}

/// Runs every control case on every JDK; PASS/FAIL lines into `tally`.
pub fn run(tally: &mut Tally, agent: &Path, jdks: &[Jdk]) {
    let root = util::root();
    let built = util::build_release().and_then(|()| crate::package::build_jar());
    let jar = match built {
        Ok(j) => j,
        Err(e) => {
            tally.report(Err(e), "-", "control-build");
            return;
        }
    };
    let jtrace = root.join("target/release/jtrace");
    for jdk in jdks {
        let work = root.join("target/xtask").join(&jdk.name).join("control");
        let _ = std::fs::remove_dir_all(&work);
        let classes = work.join("classes");
        let sources = [
            "Busy.java",
            "Switch.java",
            "Nested.java",
            "Blind.java",
            "BlindPayload.java",
            "IdleCounts.java",
            "FailedTests.java",
            "RingServer.java",
            "SeriesCalls.java",
        ]
        .map(|f| root.join("java-tests/control").join(f));
        let compiled = java::javac(
            jdk,
            &classes,
            &["-cp", &jar.display().to_string()],
            &sources,
        )
        .map_err(|e| format!("java-tests/control: {e}"));
        if let Err(e) = compiled {
            tally.report(Err(e), &jdk.name, "control-javac");
            continue;
        }
        type Case = fn(&Ctx) -> Result<String, String>;
        let cases: [(&str, Case); 11] = [
            ("keep-failed", keep_failed),
            ("ring-dump", ring_dump),
            ("series", series),
            ("attach-stop-start", attach_stop_start),
            ("stop-while-deep", stop_while_deep),
            ("blind-loader", blind_loader),
            ("java-switch", java_switch),
            ("idle-counts", idle_counts),
            ("filter-files", filter_files),
            ("delay-duration", delay_duration),
            ("not-a-jvm", not_a_jvm),
        ];
        // Each case's context: its own scratch directory under `work`.
        let ctx_in = |name: &str| {
            let dir = work.join(name);
            let _ = std::fs::create_dir_all(&dir);
            Ctx {
                jdk,
                agent,
                jtrace: &jtrace,
                jar: &jar,
                classes: classes.clone(),
                dir,
            }
        };
        for (name, case) in cases {
            let ctx = ctx_in(name);
            let t = Instant::now();
            let r = case(&ctx);
            let secs = t.elapsed().as_secs_f64();
            let what = match &r {
                Ok(f) => format!("control:{name} [{f}] {secs:.1}s"),
                Err(_) => format!("control:{name} {secs:.1}s"),
            };
            tally.report(r.map(|_| ()), &jdk.name, &what);
        }
        let ctx = ctx_in("other-user");
        let t = Instant::now();
        match other_user(&ctx) {
            Ok(None) => println!(
                "SKIP {} control:other-user (not root: cannot create a user to run the JVM as)",
                jdk.name
            ),
            Ok(Some(f)) => tally.report(
                Ok(()),
                &jdk.name,
                &format!("control:other-user [{f}] {:.1}s", t.elapsed().as_secs_f64()),
            ),
            Err(e) => tally.report(Err(e), &jdk.name, "control:other-user"),
        }
    }
}
