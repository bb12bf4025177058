//! The Parquet export's cell: MooBench traced into a `.jtr` of about 30 M events
//! (N = 1.5 M, depth 10; `--quick`: 200 K), and a real program, javac compiling the
//! repository's own Java sources with `include=com.sun.*` (deep stacks, about a million
//! distinct paths), then `jtrace parquet` of each: calls per second of CPU, peak memory,
//! the files' size against the `.jtr`'s; `jtrace report` of the same file beside it, the
//! cost of the reading front end every subcommand shares.

use super::Env;
use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;

const DEPTH: u64 = 10;

/// `/usr/bin/time` of `jtrace ARGS`: (wall s, user + system s, peak KB, stderr).
fn timed(env: &Env, args: &[&std::ffi::OsStr]) -> Result<(f64, f64, u64, String), String> {
    let tf = env.work.join("parquet-time.txt");
    let o = Command::new("/usr/bin/time")
        .arg("-f")
        .arg("%e %U %S %M")
        .arg("-o")
        .arg(&tf)
        .arg(&env.jtrace)
        .args(args)
        .output()
        .map_err(|e| format!("cannot run /usr/bin/time: {e}"))?;
    let stderr = String::from_utf8_lossy(&o.stderr).into_owned();
    if !o.status.success() {
        return Err(format!("jtrace failed: {}", stderr.trim()));
    }
    let t = std::fs::read_to_string(&tf).map_err(|e| format!("{}: {e}", tf.display()))?;
    let v: Vec<f64> = t
        .split_whitespace()
        .filter_map(|w| w.parse().ok())
        .collect();
    match v[..] {
        [wall, user, sys, kb] => Ok((wall, user + sys, kb as u64, stderr)),
        _ => Err(format!("/usr/bin/time wrote {t:?}")),
    }
}

fn dir_bytes(dir: &Path) -> u64 {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return 0;
    };
    rd.flatten()
        .map(|e| {
            let p = e.path();
            if p.is_dir() {
                dir_bytes(&p)
            } else {
                e.metadata().map_or(0, |m| m.len())
            }
        })
        .sum()
}

/// The 1-minute load average (`/proc/loadavg`): the machine may be shared, so CPU times
/// are the figures and the load is printed beside them.
fn load() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|l| l.split_whitespace().next().map(str::to_string))
        .unwrap_or_else(|| "?".into())
}

/// A trace made for the cell, and what it is.
type Made = Result<(std::path::PathBuf, String), String>;

/// Makes a trace for the cell.
type Maker = fn(&Env) -> Made;

/// MooBench traced into a `.jtr`.
fn moobench(env: &Env) -> Made {
    let n: u64 = if env.cfg.quick { 200_000 } else { 1_500_000 };
    let jtr = env.work.join("parquet-moo.jtr");
    let o = crate::java::Run::home(&env.cfg.jdk)
        .agent(&env.agent, &format!("out={}", jtr.display()))
        .class_path(&env.classes)
        .main("moobench.MooBench")
        .arg(n.to_string())
        .arg(DEPTH.to_string())
        .output()?;
    if !o.status.success() {
        return Err(format!("MooBench failed: {}", o.status));
    }
    Ok((jtr, format!("MooBench N={n} depth {DEPTH}")))
}

/// The repository's `.java` files under `dir` (not build output nor hidden folders).
fn java_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = rd.flatten().map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if name.starts_with('.') || name == "target" {
            continue;
        }
        if p.is_dir() {
            java_files(&p, out);
        } else if name.ends_with(".java") {
            out.push(p);
        }
    }
}

/// javac (`include=com.sun.*`) compiling the repository's own Java sources into a
/// `.jtr` (`--quick`: the first 12 files). Sources that need libraries not at hand fail
/// to compile; javac's work up to its errors is the trace.
fn javac(env: &Env) -> Made {
    let mut srcs = Vec::new();
    java_files(&crate::util::root(), &mut srcs);
    if env.cfg.quick {
        srcs.truncate(12);
    }
    let argfile = env.work.join("parquet-javac-srcs.txt");
    let list: String = srcs.iter().map(|p| format!("{}\n", p.display())).collect();
    std::fs::write(&argfile, list).map_err(|e| format!("{}: {e}", argfile.display()))?;
    let jtr = env.work.join("parquet-javac.jtr");
    let classes = env.work.join("parquet-javac-out");
    let _ = std::fs::remove_file(&jtr);
    crate::java::Run::home(&env.cfg.jdk)
        .agent(
            &env.agent,
            &format!("out={},include=com.sun.*", jtr.display()),
        )
        .arg("-m")
        .arg("jdk.compiler/com.sun.tools.javac.Main")
        .arg("-proc:none")
        .arg("-d")
        .arg(&classes)
        .arg(format!("@{}", argfile.display()))
        .output()?;
    let _ = std::fs::remove_dir_all(&classes);
    if !jtr.exists() {
        return Err("javac wrote no trace".into());
    }
    Ok((jtr, format!("javac of {} sources", srcs.len())))
}

/// `jtrace parquet` and `jtrace report` of `jtr` (removed after): the cell's two lines.
fn cell(env: &Env, jtr: &Path, what: &str) -> Result<String, String> {
    let fleet = env.work.join("parquet-fleet");
    let _ = std::fs::remove_dir_all(&fleet);
    let jtr_bytes = std::fs::metadata(jtr).map_err(|e| e.to_string())?.len();
    let (wall, cpu, kb, stderr) = timed(
        env,
        &[
            "parquet".as_ref(),
            jtr.as_os_str(),
            "-o".as_ref(),
            fleet.as_os_str(),
        ],
    )?;
    // `jtrace: wrote DIR/trace_id=ID: N calls, ...` (after any warning).
    let calls: u64 = stderr
        .lines()
        .filter_map(|l| l.strip_prefix("jtrace: wrote "))
        .find_map(|l| l.split(": ").nth(1)?.split(' ').next()?.parse().ok())
        .ok_or_else(|| format!("jtrace parquet printed no call count: {stderr}"))?;
    let load_then = load();
    let bytes = dir_bytes(&fleet);
    let (rwall, rcpu, rkb, _) = timed(env, &["report".as_ref(), jtr.as_os_str()])?;
    let _ = std::fs::remove_dir_all(&fleet);
    let _ = std::fs::remove_file(jtr);
    let mut t = String::new();
    let _ = writeln!(
        t,
        "jtrace parquet ({what} .jtr, {:.1} MB): {calls} calls in {wall:.2} s wall, {cpu:.2} s CPU = {:.0} calls/s of CPU, peak {} MB; files {:.1} MB = {:.2}x the .jtr{}; load average {load_then}",
        jtr_bytes as f64 / 1e6,
        calls as f64 / cpu.max(1e-9),
        kb / 1024,
        bytes as f64 / 1e6,
        bytes as f64 / jtr_bytes.max(1) as f64,
        if stderr.contains("written while reading") { " (row groups written while reading)" } else { "" }
    );
    let _ = writeln!(
        t,
        "jtrace report of the same .jtr (the shared reading front end): {rwall:.2} s wall, {rcpu:.2} s CPU, peak {} MB; the export's own share: {:.2} s CPU = {:.0} calls/s",
        rkb / 1024,
        (cpu - rcpu).max(0.0),
        calls as f64 / (cpu - rcpu).max(1e-9)
    );
    Ok(t)
}

/// The cell's lines for the report (a failure is a line too).
pub fn run(env: &Env) -> String {
    let mut t = String::new();
    let traces: [(&str, Maker); 2] = [("MooBench", moobench), ("javac", javac)];
    for (name, make) in traces {
        eprintln!("bench: jtrace parquet of a {name} .jtr");
        let r = make(env).and_then(|(jtr, what)| cell(env, &jtr, &what));
        t.push_str(&r.unwrap_or_else(|e| format!("jtrace parquet ({name}): FAILED: {e}\n")));
    }
    t
}
