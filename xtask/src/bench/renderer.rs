//! The renderer on its own: `writer_bench` events/s into a sink and a file, its instructions per event under callgrind, and `jtrace xml` rendering the real `.jtr` traces of the run.

use super::jvm::Render;
use super::Env;
use std::fmt::Write as _;
use std::process::Command;

/// Instructions per event allowed (issue 10).
const TARGET_INSTRUCTIONS: f64 = 150.0;

/// Runs `writer_bench` (both sinks); returns its output lines, or a FAILED line.
pub fn writer_bench(env: &Env) -> Vec<String> {
    eprintln!(
        "bench: writer_bench, {} events into a sink and into a file",
        env.cfg.writer_events
    );
    let exe = env.work.join("writer_bench");
    let out = Command::new(&exe)
        .arg(env.cfg.writer_events.to_string())
        .arg(env.work.join("writer-bench.xml"))
        .output();
    match out {
        Ok(o) if o.status.success() => String::from_utf8_lossy(&o.stdout)
            .lines()
            .map(str::to_string)
            .collect(),
        Ok(o) => vec![format!(
            "writer_bench FAILED ({}): {}",
            o.status,
            String::from_utf8_lossy(&o.stderr).trim()
        )],
        Err(e) => vec![format!(
            "writer_bench FAILED: cannot run {}: {e}",
            exe.display()
        )],
    }
}

/// Instructions per event of the renderer alone: `writer_bench --sink null` under
/// callgrind, collecting only inside its `render_all` (the input chunks are built
/// outside it), for N and 2N events: (Ir(2N) − Ir(N)) ÷ N, so fixed costs (header,
/// definitions, the end of the document) cancel out.
pub fn callgrind(env: &Env) -> String {
    let n = env.cfg.callgrind_events;
    if Command::new("valgrind").arg("--version").output().is_err() {
        return "callgrind: skipped (no valgrind on PATH)\n".into();
    }
    eprintln!(
        "bench: callgrind on writer_bench --sink null, {n} and {} events",
        2 * n
    );
    let ir = |events: u64| -> Result<u64, String> {
        let out = env.work.join(format!("callgrind.{events}"));
        let o = Command::new("valgrind")
            .arg("--tool=callgrind")
            .arg(format!("--callgrind-out-file={}", out.display()))
            .arg("--collect-atstart=no")
            .arg("--toggle-collect=*render_all*")
            .arg(env.work.join("writer_bench"))
            .args(["--sink", "null"])
            .arg(events.to_string())
            .output()
            .map_err(|e| format!("cannot run valgrind: {e}"))?;
        if !o.status.success() {
            return Err(format!(
                "valgrind failed: {}",
                crate::util::clip(String::from_utf8_lossy(&o.stderr).trim(), 200)
            ));
        }
        let text = std::fs::read_to_string(&out).map_err(|e| format!("{}: {e}", out.display()))?;
        let _ = std::fs::remove_file(&out);
        text.lines()
            .find_map(|l| l.strip_prefix("summary: "))
            .and_then(|v| v.trim().parse().ok())
            .filter(|&ir| ir > 0)
            .ok_or_else(|| "no instructions collected in render_all (symbol not found?)".into())
    };
    match ir(n).and_then(|a| Ok((a, ir(2 * n)?))) {
        Ok((a, b)) => {
            let per = b.saturating_sub(a) as f64 / n as f64;
            format!(
                "callgrind: writer_bench render_all (sink=null): Ir({n}) = {a}, Ir({}) = {b}: {per:.1} instructions per event (target <= {TARGET_INSTRUCTIONS:.0}): {}\n",
                2 * n,
                if per <= TARGET_INSTRUCTIONS { "met" } else { "MISSED" }
            )
        }
        Err(e) => format!("callgrind: FAILED: {e}\n"),
    }
}

/// `jtrace xml` of the run's own `.jtr` traces (each best run's), into /dev/null.
pub fn jtrace_xml(renders: &[(String, Option<Render>)]) -> String {
    let mut t = String::new();
    for (what, r) in renders {
        match r {
            Some(r) if r.secs > 0.0 => {
                let _ = writeln!(
                    t,
                    "jtrace xml {what} -o /dev/null: {} events in {:.3} s = {:.0} events/s on 1 thread; {:.3} s = {:.0} events/s with --threads 2 ({:.2}x)",
                    r.events,
                    r.secs,
                    r.events as f64 / r.secs,
                    r.secs2,
                    r.events as f64 / r.secs2.max(1e-9),
                    r.secs / r.secs2.max(1e-9)
                );
            }
            _ => {
                let _ = writeln!(t, "jtrace xml {what}: no figure (the cell failed)");
            }
        }
    }
    t
}
