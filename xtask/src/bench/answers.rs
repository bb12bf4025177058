//! `cargo xtask bench-answers` (and a cell of `cargo xtask bench`): how fast `jtrace`
//! answers on a real trace. A recursion program traced with default options gives a
//! `.jtr` of about 31 M events on two threads; each subcommand's CPU time (user + sys: the answer's
//! cost on one core, whatever else the machine runs), wall time, events per CPU second
//! and peak resident memory are printed beside a `memchr` pass over the same file (the
//! physical limit: reading the bytes once), and `report --json` on the same run's XML
//! (MB/s of XML). docs/BENCHMARKS.md keeps the figures.

use crate::util;
use std::fmt::Write as _;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

const PROGRAM: &str = r#"public class Rec {
    static int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
    static long run(int reps) {
        long s = 0;
        for (int i = 0; i < reps; i++) s += fib(25);
        return s;
    }
    public static void main(String[] a) throws Exception {
        int reps = Integer.parseInt(a[0]);
        long[] half = new long[1];
        Thread other = new Thread(() -> half[0] = run(reps / 2), "rec-2");
        other.start();
        long s = run(reps - reps / 2);
        other.join();
        System.out.println(s + half[0]);
    }
}
"#;

/// Repetitions of fib(25) (242,785 calls each), half on each of two threads: 64 give
/// 31 M events.
const REPS: u32 = 64;
/// For the XML figure: 3.9 M events, about 450 MB of XML.
const XML_REPS: u32 = 8;

/// The subcommands measured (the trace's path is appended): each on one core, then the
/// answers that split their threads over workers on two (`--jobs 2`: the program's
/// two threads, one per worker; wall time is what two cores buy).
const ANSWERS: &[&[&str]] = &[
    &["report", "--json", "--jobs", "1"],
    &["collapsed", "--jobs", "1"],
    &["tree", "--jobs", "1"],
    &["flame", "-o", "/dev/null", "--jobs", "1"],
    &["slow", "--over", "10ms", "--jobs", "1"],
    &["graph", "Rec.main"],
    &["replay", "--min-time", "1ms"],
    &["info"],
    &["report", "--json", "--jobs", "2"],
    &["collapsed", "--jobs", "2"],
    &["tree", "--jobs", "2"],
    &["flame", "-o", "/dev/null", "--jobs", "2"],
    &["slow", "--over", "10ms", "--jobs", "2"],
];

pub(super) struct Measured {
    pub(super) wall: f64,
    pub(super) cpu: f64,
    pub(super) rss_kb: u64,
}

/// Runs `cmd` under GNU time: wall, user + sys, peak RSS.
pub(super) fn timed(cmd: &mut Command, work: &Path) -> Result<Measured, String> {
    let rss = work.join("time.txt");
    let prog = cmd.get_program().to_owned();
    let args: Vec<_> = cmd.get_args().map(|a| a.to_owned()).collect();
    let t0 = Instant::now();
    let out = Command::new("/usr/bin/time")
        .arg("-f")
        .arg("%M %U %S")
        .arg("-o")
        .arg(&rss)
        .arg(&prog)
        .args(&args)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .output()
        .map_err(|e| format!("cannot run /usr/bin/time (apt-get install time): {e}"))?;
    let wall = t0.elapsed().as_secs_f64();
    if !out.status.success() {
        return Err(format!(
            "{} failed: {}",
            prog.to_string_lossy(),
            util::clip(String::from_utf8_lossy(&out.stderr).trim(), 300)
        ));
    }
    let text = std::fs::read_to_string(&rss).map_err(|e| format!("{}: {e}", rss.display()))?;
    let f: Vec<&str> = text.split_whitespace().collect();
    let num = |i: usize| f.get(i).and_then(|v| v.parse::<f64>().ok()).unwrap_or(0.0);
    Ok(Measured {
        wall,
        cpu: num(1) + num(2),
        rss_kb: num(0) as u64,
    })
}

/// Traces `Rec REPS` into `out`; the events the agent reports.
fn trace(jdk: &Path, agent: &Path, classes: &Path, out: &Path, reps: u32) -> Result<u64, String> {
    let o = crate::java::Run::home(jdk)
        .agent(agent, &format!("out={}", out.display()))
        .class_path(classes)
        .main("Rec")
        .arg(reps.to_string())
        .output()?;
    let err = String::from_utf8_lossy(&o.stderr);
    if !o.status.success() {
        return Err(format!("java Rec failed: {}", util::clip(err.trim(), 300)));
    }
    util::closing_events(&err)
        .ok_or_else(|| format!("no closing line from the agent: {}", util::clip(&err, 300)))
}

/// Reads `path` (from the page cache: a first read warms it), counting newlines with
/// memchr: the speed of touching every byte once. Seconds of the second read.
fn memchr_pass(path: &Path) -> Result<f64, String> {
    once(path)?;
    once(path)
}

fn once(path: &Path) -> Result<f64, String> {
    let mut f = std::fs::File::open(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut buf = vec![0u8; 1 << 20];
    let mut n = 0usize;
    let t0 = Instant::now();
    loop {
        let k = f.read(&mut buf).map_err(|e| e.to_string())?;
        if k == 0 {
            break;
        }
        n += memchr::memchr_iter(b'\n', &buf[..k]).count();
    }
    std::hint::black_box(n);
    Ok(t0.elapsed().as_secs_f64())
}

/// The cell: a table of answers, or a FAILED line.
pub fn cell(jtrace: &Path, agent: &Path, jdk: &Path, work: &Path) -> String {
    eprintln!("bench: jtrace answers on a .jtr of ~31 M events");
    match measure(jtrace, agent, jdk, &work.join("answers"), REPS) {
        Ok(t) => t,
        Err(e) => format!("jtrace answers FAILED: {e}\n"),
    }
}

fn measure(
    jtrace: &Path,
    agent: &Path,
    jdk: &Path,
    dir: &Path,
    reps: u32,
) -> Result<String, String> {
    let _ = std::fs::remove_dir_all(dir);
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let src = dir.join("Rec.java");
    std::fs::write(&src, PROGRAM).map_err(|e| e.to_string())?;
    let classes = dir.join("classes");
    crate::java::javac(&crate::java::Jdk::at(jdk), &classes, &[], &[src])
        .map_err(|e| format!("javac Rec.java failed: {e}"))?;
    let jtr = dir.join("big.jtr");
    let events = trace(jdk, agent, &classes, &jtr, reps)?;
    // Every answer reads the file from the page cache, as the memchr pass does.
    let size = std::fs::metadata(&jtr).map_or(0, |m| m.len());
    let mut o = String::new();
    let _ = writeln!(
        o,
        "jtrace answers: Rec (fib(25) x {reps} on 2 threads), default options: {events} events, {:.0} MB .jtr; load {}",
        size as f64 / 1e6,
        load()
    );
    let answers: Vec<Vec<String>> = ANSWERS
        .iter()
        .map(|a| a.iter().map(|s| s.to_string()).collect())
        .collect();
    answer_lines(&mut o, jtrace, &jtr, dir, events, &answers)?;
    window_lines(&mut o, jtrace, &jtr, dir)?;
    let _ = std::fs::remove_file(&jtr);
    // XML input: a smaller run rendered by the agent itself.
    let xml = dir.join("small.xml");
    let xml_events = trace(jdk, agent, &classes, &xml, XML_REPS)?;
    let xml_size = std::fs::metadata(&xml).map_or(0, |m| m.len());
    let mut c = Command::new(jtrace);
    c.args(["report", "--json"]).arg(&xml);
    let m = timed(&mut c, dir)?;
    let _ = writeln!(
        o,
        "  report --json on its XML ({:.0} MB, {xml_events} events): {:.2} s CPU, {:.0} MB/s, {:.1} M events/CPU s, {} MB peak RSS; load {}",
        xml_size as f64 / 1e6,
        m.cpu,
        xml_size as f64 / m.cpu.max(1e-3) / 1e6,
        xml_events as f64 / m.cpu.max(1e-3) / 1e6,
        m.rss_kb / 1024,
        load()
    );
    let _ = std::fs::remove_dir_all(dir);
    Ok(o)
}

/// The memchr pass, then each answer in `answers` (arguments before the trace's path;
/// an output file is written into `dir` and removed): wall and CPU time, events per
/// CPU and wall second, peak memory, and CPU time against the first answer's
/// (`report --json`: the issue wants every other within 2x).
fn answer_lines(
    o: &mut String,
    jtrace: &Path,
    jtr: &Path,
    dir: &Path,
    events: u64,
    answers: &[Vec<String>],
) -> Result<(), String> {
    let memchr = memchr_pass(jtr)?;
    let _ = writeln!(
        o,
        "  {:<36} {:>8} {:>8} {:>14} {:>15} {:>10} {:>9}",
        "answer", "wall s", "CPU s", "M events/CPU s", "M events/wall s", "peak RSS", "x report"
    );
    let _ = writeln!(
        o,
        "  {:<36} {:>8.2} {:>8.2} {:>14.1} {:>15.1} {:>10}",
        "memchr pass (the limit, wall)",
        memchr,
        memchr,
        events as f64 / memchr / 1e6,
        events as f64 / memchr / 1e6,
        "-"
    );
    let mut first = None;
    for args in answers {
        let mut c = Command::new(jtrace);
        c.args(args).arg(jtr);
        let m = timed(&mut c, dir)?;
        let base = *first.get_or_insert(m.cpu);
        let _ = writeln!(
            o,
            "  {:<36} {:>8.2} {:>8.2} {:>14.1} {:>15.1} {:>7} MB {:>8.2}x  load {}",
            args.join(" ").replace(&dir.display().to_string(), "DIR"),
            m.wall,
            m.cpu,
            events as f64 / m.cpu.max(1e-3) / 1e6,
            events as f64 / m.wall.max(1e-3) / 1e6,
            m.rss_kb / 1024,
            m.cpu / base.max(1e-3),
            load()
        );
        for a in args {
            if Path::new(a).starts_with(dir) {
                let _ = std::fs::remove_file(a);
            }
        }
    }
    Ok(())
}

/// Every answer on a trace the caller gives (`--trace=PATH`: a real program's, e.g.
/// javac's), read only: `report --json` first, then each other subcommand with the
/// options people use; `graph` on the method `report` ranks first.
fn on_trace(jtrace: &Path, jtr: &Path, dir: &Path) -> Result<String, String> {
    let _ = std::fs::remove_dir_all(dir);
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let info = Command::new(jtrace)
        .arg("info")
        .arg(jtr)
        .output()
        .map_err(|e| e.to_string())?;
    // `Events by kind`: lines of a count and an element name.
    let events: u64 = String::from_utf8_lossy(&info.stdout)
        .lines()
        .skip_while(|l| !l.starts_with("Events by kind"))
        .skip(2)
        .map_while(|l| {
            let mut f = l.split_whitespace();
            let n = f.next()?.parse::<u64>().ok()?;
            f.next().map(|_| n)
        })
        .sum();
    let out = Command::new(jtrace)
        .args(["report", "--json"])
        .arg(jtr)
        .output()
        .map_err(|e| e.to_string())?;
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout)
        .map_err(|e| format!("jtrace report --json {}: {e}", jtr.display()))?;
    let top = doc["methods"][0]["method"].as_str().unwrap_or("main");
    let top = top.split('(').next().unwrap_or(top).to_string();
    let file = |name: &str| dir.join(name).display().to_string();
    let answers: Vec<Vec<String>> = [
        vec!["report", "--json"],
        vec!["tree"],
        vec!["collapsed"],
        vec!["flame", "-o", "/dev/null"],
        vec!["slow", "--over", "10ms"],
        vec!["slow", "--over", "50ms"],
        vec!["slow", "--over", "100ms"],
        vec!["slow", "--over", "10ms", "--json"],
        vec!["replay"],
        vec!["replay", "--min-time", "1ms"],
        vec!["graph", top.as_str()],
        vec!["info"],
        vec!["check"],
    ]
    .iter()
    .map(|a| a.iter().map(|s| s.to_string()).collect())
    .chain([
        vec!["diff".to_string(), jtr.display().to_string()],
        vec!["perfetto".into(), "-o".into(), file("p.json")],
        vec!["perfetto".into(), "-o".into(), file("p.pftrace")],
        vec![
            "report".into(),
            "--html".into(),
            "-o".into(),
            file("r.html"),
        ],
        vec![
            "report".into(),
            "--json".into(),
            "--jobs".into(),
            "2".into(),
        ],
    ])
    .collect();
    let size = std::fs::metadata(jtr).map_or(0, |m| m.len());
    let mut o = String::new();
    let _ = writeln!(
        o,
        "jtrace answers on {}: {events} events, {:.0} MB; load {}",
        jtr.display(),
        size as f64 / 1e6,
        load()
    );
    answer_lines(&mut o, jtrace, jtr, dir, events, &answers)?;
    let _ = std::fs::remove_dir_all(dir);
    Ok(o)
}

/// A 100 ms window in the middle of the trace, read through the `.jtr` index: the
/// chunks read (`JTRACE_READ_STATS`) and the CPU time of each windowed answer.
fn window_lines(o: &mut String, jtrace: &Path, jtr: &Path, dir: &Path) -> Result<(), String> {
    let out = Command::new(jtrace)
        .args(["report", "--json", "--to", "0ns"])
        .arg(jtr)
        .output()
        .map_err(|e| e.to_string())?;
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout)
        .map_err(|e| format!("jtrace report --json --to 0ns: {e}"))?;
    let span = doc["trace"]["duration_ns"].as_u64().unwrap_or(0);
    let (from, to) = (
        format!("{}ns", span / 2),
        format!("{}ns", span / 2 + 100_000_000),
    );
    for answer in [
        &["report", "--json"][..],
        &["tree"],
        &["perfetto", "-o", "/dev/null"],
    ] {
        let mut args: Vec<&str> = answer.to_vec();
        args.extend(["--from", &from, "--to", &to]);
        let stats = Command::new(jtrace)
            .args(&args)
            .arg(jtr)
            .env("JTRACE_READ_STATS", "1")
            .stdout(std::process::Stdio::null())
            .output()
            .map_err(|e| e.to_string())?;
        let read = String::from_utf8_lossy(&stats.stderr);
        // One line per worker under --jobs.
        let read = read
            .lines()
            .filter_map(|l| l.strip_prefix("jtrace: read: "))
            .collect::<Vec<_>>()
            .join(" + ");
        let mut c = Command::new(jtrace);
        c.args(&args).arg(jtr);
        let m = timed(&mut c, dir)?;
        let _ = writeln!(
            o,
            "  {:<28} {:>8.2} {:>8.2}  100 ms window at {:.2} s: {read}; load {}",
            answer.join(" ") + " --from/--to",
            m.wall,
            m.cpu,
            span as f64 / 2e9,
            load()
        );
    }
    Ok(())
}

fn load() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|l| l.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_default()
}

/// `cargo xtask bench-answers [--reps N] [--jdk PATH]`: the cell alone;
/// `--trace=PATH`: every answer on that trace instead (it is only read).
pub fn run_cmd(args: &[String]) -> bool {
    let root = util::root();
    let reps = args
        .iter()
        .find_map(|a| a.strip_prefix("--reps="))
        .and_then(|v| v.parse().ok())
        .unwrap_or(REPS);
    let jdk = args
        .iter()
        .find_map(|a| a.strip_prefix("--jdk="))
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/usr/lib/jvm/java-17-openjdk-amd64"));
    if let Err(e) = util::build_release() {
        eprintln!("bench-answers: {e}");
        return false;
    }
    let work = std::env::temp_dir().join(format!("jtrace-answers-{}", std::process::id()));
    let given = args.iter().find_map(|a| a.strip_prefix("--trace="));
    let r = match given {
        Some(t) => on_trace(&root.join("target/release/jtrace"), Path::new(t), &work),
        None => measure(
            &root.join("target/release/jtrace"),
            &root.join("target/release/libjtrace.so"),
            &jdk,
            &work,
            reps,
        ),
    };
    let _ = std::fs::remove_dir_all(&work);
    match r {
        Ok(t) => {
            println!("{t}");
            true
        }
        Err(e) => {
            eprintln!("bench-answers: {e}");
            false
        }
    }
}
