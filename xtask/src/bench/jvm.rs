//! One JVM run of the bench: the command (under `/usr/bin/time` and `timeout`), the tracer's options (jtrace's agent and its output, or JFR's method tracing), and what the run left behind (the program's own timing, the trace's size and event count).

use super::Env;
use std::ffi::OsString;
use std::fs::File;
use std::io::BufReader;
use std::path::Path;
use std::process::Command;
use std::time::Instant;

/// What traces the run.
#[derive(Clone, Copy, PartialEq, Debug)]
pub enum Tracer {
    /// No agent.
    None,
    /// jtrace `mode=jvmti`, `out=trace.jtr` (the probe path without XML formatting).
    Jvmti,
    /// jtrace `mode=bci`, `out=trace.jtr`: compact records, no XML during the run.
    Jtr,
    /// jtrace `mode=bci`, `out=trace.xml`: XML rendered behind the recording.
    Xml,
    /// jtrace `mode=bci`, `out=trace.xml.zst`: the same, zstd-compressed.
    XmlZst,
    /// JFR's `jdk.MethodTrace` (JDK 25+), settings from [`JFC`].
    Jfr,
}

impl Tracer {
    pub fn label(self) -> &'static str {
        match self {
            Tracer::None => "none",
            Tracer::Jvmti => "jvmti .jtr",
            Tracer::Jtr => "bci .jtr",
            Tracer::Xml => "bci .xml",
            Tracer::XmlZst => "bci .xml.zst",
            Tracer::Jfr => "JFR",
        }
    }

    /// The file the tracer writes, in the run's directory.
    fn out(self) -> Option<&'static str> {
        match self {
            Tracer::None => None,
            Tracer::Jvmti | Tracer::Jtr => Some("trace.jtr"),
            Tracer::Xml => Some("trace.xml"),
            Tracer::XmlZst => Some("trace.xml.zst"),
            Tracer::Jfr => Some("rec.jfr"),
        }
    }

    fn agent_mode(self) -> Option<&'static str> {
        match self {
            Tracer::Jvmti => Some("jvmti"),
            Tracer::Jtr | Tracer::Xml | Tracer::XmlZst => Some("bci"),
            Tracer::None | Tracer::Jfr => None,
        }
    }
}

/// JFR settings for the JFR cell: only `jdk.MethodTrace`, on the MooBench class (every
/// method of it: `monitoredMethod` and the constructor), no stack traces, every call
/// (threshold 0). Written to the work directory and passed as `settings=`.
pub const JFC: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<configuration version="2.0" label="jtrace bench" description="jdk.MethodTrace only, on moobench.MonitoredClass">
  <event name="jdk.MethodTrace">
    <setting name="enabled">true</setting>
    <setting name="filter">moobench.MonitoredClass</setting>
    <setting name="stackTrace">false</setting>
    <setting name="threshold">0 ms</setting>
  </event>
</configuration>
"#;

/// One run to make.
pub struct Spec<'a> {
    /// The JDK's home (`bin/java`, `bin/jfr`).
    pub jdk: &'a Path,
    pub tracer: Tracer,
    /// The agent's `include=` rule, if any.
    pub include: Option<&'a str>,
    /// JVM arguments after the tracer's: class path, main class, program arguments.
    pub program: Vec<OsString>,
}

/// `jtrace xml trace.jtr -o /dev/null` of one run's `.jtr`, on one and on two threads.
#[derive(Clone, Copy, Debug)]
pub struct Render {
    /// `--threads 1`.
    pub secs: f64,
    /// `--threads 2`.
    pub secs2: f64,
    pub events: u64,
}

/// One run's measurements.
#[derive(Clone, Default, Debug)]
pub struct Sample {
    pub wall: f64,
    /// The program's own timing of its measured loop (MooBench).
    pub loop_s: Option<f64>,
    /// Calls the program says it made (MooBench).
    pub calls: Option<u64>,
    pub rss_kb: Option<u64>,
    /// CPU time of the whole process, user + system, all threads (`/usr/bin/time`).
    pub cpu_s: Option<f64>,
    pub trace_bytes: u64,
    /// jtrace: the records the agent says it wrote (its last stderr line); JFR: the
    /// recording's `jdk.MethodTrace` events (`jfr summary`).
    pub events: Option<u64>,
    /// XML: the sum of the trace's `methodCount` elements; JFR: its MethodTrace events.
    pub traced_calls: Option<u64>,
    /// `.jtr` (bci): the trace rendered by `jtrace xml` into /dev/null.
    pub render: Option<Render>,
    /// What looked wrong (trace not closed, cut short, counts that disagree).
    pub notes: Vec<String>,
}

impl Sample {
    /// What "best of N" minimises: the program's own loop time if it has one.
    pub fn key(&self) -> f64 {
        self.loop_s.unwrap_or(self.wall)
    }

    /// The program's loop time per call, ns (MooBench).
    pub fn ns_per_call(&self) -> Option<f64> {
        match (self.loop_s, self.calls) {
            (Some(l), Some(c)) if c > 0 => Some(l * 1e9 / c as f64),
            _ => None,
        }
    }

    pub fn bytes_per_event(&self) -> Option<f64> {
        self.events
            .filter(|&e| e > 0 && self.trace_bytes > 0)
            .map(|e| self.trace_bytes as f64 / e as f64)
    }
}

/// Runs `spec` `runs` times and keeps the best (lowest loop time, else wall); stops at
/// the first failure. Prints one progress line per run on stderr.
pub fn best(env: &Env, what: &str, spec: &Spec, runs: usize) -> Result<Sample, String> {
    let mut best: Option<Sample> = None;
    for i in 1..=runs {
        eprint!(
            "bench: {what:<24} {:<13} run {i}/{runs}: ",
            spec.tracer.label()
        );
        let s = run(env, spec).inspect_err(|e| eprintln!("FAILED\n{e}"))?;
        eprintln!(
            "wall {:.3} s{}, {} events, trace {:.1} MB{}{}",
            s.wall,
            s.loop_s
                .map(|l| format!(", loop {l:.3} s"))
                .unwrap_or_default(),
            s.events.map_or_else(|| "-".into(), |e| e.to_string()),
            s.trace_bytes as f64 / 1e6,
            s.render
                .map(|r| format!(", rendered in {:.3} s", r.secs))
                .unwrap_or_default(),
            if s.notes.is_empty() {
                String::new()
            } else {
                format!(" ({})", s.notes.join("; "))
            }
        );
        if best.as_ref().is_none_or(|b| s.key() < b.key()) {
            best = Some(s);
        }
    }
    best.ok_or_else(|| "no run".into())
}

/// One run in a fresh directory, deleted afterwards (traces are GBs).
pub fn run(env: &Env, spec: &Spec) -> Result<Sample, String> {
    let dir = env.work.join("run");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let result = run_in(env, spec, &dir);
    let _ = std::fs::remove_dir_all(&dir);
    result
}

fn run_in(env: &Env, spec: &Spec, dir: &Path) -> Result<Sample, String> {
    let java = crate::java::java_in(spec.jdk);
    let rss_file = dir.join("rss.txt");
    let out = spec.tracer.out().map(|o| dir.join(o));
    let mut run = crate::java::Run::home(spec.jdk);
    if let (Some(mode), Some(out)) = (spec.tracer.agent_mode(), &out) {
        let include = spec
            .include
            .map(|i| format!(",include={i}"))
            .unwrap_or_default();
        let options = format!("out={},mode={mode}{include}", out.display());
        run = run.agent(&env.agent, &options);
    }
    if let (Tracer::Jfr, Some(out)) = (spec.tracer, &out) {
        // maxsize=0: no limit (JFR keeps only the last 250 MB by default).
        run = run.arg(format!(
            "-XX:StartFlightRecording:filename={},maxsize=0,settings={}",
            out.display(),
            env.jfc.display()
        ));
    }
    let mut cmd = env.command(run.args(&spec.program).dir(dir), &rss_file);
    let start = Instant::now();
    let o = cmd
        .output()
        .map_err(|e| format!("cannot start {}: {e}", java.display()))?;
    let wall = start.elapsed().as_secs_f64();
    let stdout = String::from_utf8_lossy(&o.stdout);
    let stderr = String::from_utf8_lossy(&o.stderr);
    if !o.status.success() {
        return Err(super::failed_run(o.status, wall, &stderr));
    }
    let field = |k: &str| super::stdout_field(&stdout, k);
    let (rss_kb, cpu_s) = super::read_time(&rss_file);
    let mut s = Sample {
        wall,
        loop_s: field("loop_ns=").map(|ns| ns as f64 / 1e9),
        calls: field("calls="),
        rss_kb,
        cpu_s,
        ..Sample::default()
    };
    let Some(out) = out else { return Ok(s) };
    s.trace_bytes = std::fs::metadata(&out)
        .map_err(|e| format!("no trace {}: {e}", out.display()))?
        .len();
    if spec.tracer.agent_mode().is_some() {
        s.events = crate::util::closing_events(&stderr);
        if s.events.is_none() {
            s.notes.push("the agent reported no event count".into());
        }
    }
    match spec.tracer {
        Tracer::Xml => xml_counts(&mut s, census_of(&out, false)),
        Tracer::XmlZst => xml_counts(&mut s, census_of(&out, true)),
        Tracer::Jtr => {
            let r = render(env, &out)?;
            if r.1 {
                s.notes.push("the .jtr was cut short".into());
            }
            if s.events.is_some_and(|e| e != r.0.events) {
                s.notes
                    .push(format!("jtrace xml replayed {} events", r.0.events));
            }
            s.render = Some(r.0);
        }
        Tracer::Jfr => {
            let n = jfr_method_traces(spec.jdk, &out)?;
            s.events = Some(n);
            s.traced_calls = Some(n);
        }
        Tracer::None | Tracer::Jvmti => {}
    }
    Ok(s)
}

/// Traced calls from an XML trace: the sum of its `methodCount` elements (one per method,
/// count = its `methodEntry` elements), read by `tracecheck::census`; notes a trace that
/// was not closed.
fn xml_counts(s: &mut Sample, census: Result<tracecheck::Census, String>) {
    match census {
        Ok(c) => {
            if !c.closed {
                s.notes.push("trace not closed".into());
            }
            s.traced_calls = Some(c.method_calls);
        }
        Err(e) => s.notes.push(format!("cannot read the trace: {e}")),
    }
}

/// The census of an XML trace file, zstd-compressed or not (streamed).
fn census_of(path: &Path, zstd: bool) -> Result<tracecheck::Census, String> {
    let f = File::open(path).map_err(|e| e.to_string())?;
    if zstd {
        let z = zstd::stream::read::Decoder::new(f).map_err(|e| e.to_string())?;
        tracecheck::census(BufReader::with_capacity(1 << 20, z))
    } else {
        tracecheck::census(BufReader::with_capacity(1 << 20, f))
    }
}

/// Renders a `.jtr` with `jtrace xml` into /dev/null; returns the time, the events it
/// replayed and whether it said the file was cut short.
pub fn render(env: &Env, jtr: &Path) -> Result<(Render, bool), String> {
    let (secs, _) = render_on(env, jtr, 1)?;
    let (secs2, o) = render_on(env, jtr, 2)?;
    let stderr = String::from_utf8_lossy(&o.stderr);
    if !o.status.success() {
        return Err(format!("jtrace xml {} failed: {stderr}", jtr.display()));
    }
    // `jtrace: wrote /dev/null: N events, M elements`
    let events = stderr
        .lines()
        .find_map(|l| l.strip_prefix("jtrace: wrote /dev/null: "))
        .and_then(|r| r.split(' ').next())
        .and_then(|n| n.parse().ok())
        .ok_or_else(|| format!("jtrace xml printed no event count: {stderr}"))?;
    Ok((
        Render {
            secs,
            secs2,
            events,
        },
        stderr.contains("cut short"),
    ))
}

/// One `jtrace xml --threads N` of `jtr` into /dev/null: its time and its output.
fn render_on(env: &Env, jtr: &Path, threads: u32) -> Result<(f64, std::process::Output), String> {
    let start = Instant::now();
    let o = Command::new(&env.jtrace)
        .arg("xml")
        .arg(jtr)
        .arg("-o")
        .arg("/dev/null")
        .arg("--threads")
        .arg(threads.to_string())
        .output()
        .map_err(|e| format!("cannot run {}: {e}", env.jtrace.display()))?;
    Ok((start.elapsed().as_secs_f64(), o))
}

/// `jdk.MethodTrace` events in a recording, from `jfr summary`.
fn jfr_method_traces(jdk: &Path, rec: &Path) -> Result<u64, String> {
    let o = Command::new(jdk.join("bin/jfr"))
        .arg("summary")
        .arg(rec)
        .output()
        .map_err(|e| format!("cannot run jfr summary: {e}"))?;
    let text = String::from_utf8_lossy(&o.stdout);
    text.lines()
        .find_map(|l| {
            let mut w = l.split_whitespace();
            (w.next() == Some("jdk.MethodTrace")).then(|| w.next()?.parse().ok())?
        })
        .ok_or_else(|| {
            format!(
                "jfr summary {}: no jdk.MethodTrace line: {}",
                rec.display(),
                util_clip(&text)
            )
        })
}

fn util_clip(s: &str) -> String {
    crate::util::clip(s.trim(), 200)
}

/// The JDK's feature version from its `release` file (`JAVA_VERSION="25.0.3"`).
pub fn feature_version(jdk: &Path) -> Option<u32> {
    let release = std::fs::read_to_string(jdk.join("release")).ok()?;
    let v = release
        .lines()
        .find_map(|l| l.strip_prefix("JAVA_VERSION="))?
        .trim_matches('"');
    let v = v.strip_prefix("1.").unwrap_or(v);
    v.split(['.', '-', '+']).next()?.parse().ok()
}
