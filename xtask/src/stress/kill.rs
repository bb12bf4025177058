//! SIGKILL mid-run (stress/StressKill.java): once the trace file holds a few MB, the JVM is
//! killed; nothing can close the document, so what remains must be a readable prefix:
//! tracecheck's `check_prefix` names it "cut short" (every whole element up to the cut
//! well-formed and consistent) rather than invalid.

use super::{Ctx, Verdict};
use crate::java;
use crate::proc::Proc;
use std::time::{Duration, Instant};

/// Kill once the trace is at least this long (the writer flushes 1 MiB at a time).
const KILL_AT: u64 = 4 << 20;

pub fn run(ctx: &Ctx) -> Verdict {
    let trace = ctx.dir.join("trace.xml");
    let options = format!("out={}", trace.display());
    let mut cmd = java::command(ctx.jdk, Some((ctx.agent, &options)), false);
    cmd.arg("-cp").arg(ctx.classes).arg("StressKill");
    let p = match Proc::spawn(cmd, &ctx.dir) {
        Ok(p) => p,
        Err(e) => return Verdict::Fail(e),
    };
    if !p.wait_line("READY", Duration::from_secs(60)) {
        let d = p.finish(Duration::from_secs(1));
        return Verdict::Fail(format!("never READY; stderr: {}", d.stderr_tail()));
    }
    let deadline = Instant::now() + Duration::from_secs(40);
    let size = || std::fs::metadata(&trace).map(|m| m.len()).unwrap_or(0);
    while size() < KILL_AT && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    let at = size();
    if !p.signal("KILL") {
        return Verdict::Fail("could not send SIGKILL".to_string());
    }
    let done = p.finish(Duration::from_secs(30));
    if done.code() != Some(128 + 9) {
        return Verdict::Fail(format!(
            "expected death by SIGKILL, got exit {:?}",
            done.code()
        ));
    }
    if at < KILL_AT {
        return Verdict::Fail(format!(
            "the trace was only {at} bytes after 40 s; the writer is not writing"
        ));
    }
    match tracecheck::check_prefix(&trace) {
        Ok(tracecheck::Checked::CutShort { lines, summary }) if lines > 0 => {
            let entries: u64 = summary.methods.values().map(|m| m.entries).sum();
            Verdict::Pass(format!(
                "killed at >= {} MiB; cut short after line {lines}, {entries} method entries readable",
                at >> 20
            ))
        }
        Ok(tracecheck::Checked::CutShort { .. }) => {
            Verdict::Fail("the file holds no whole line".to_string())
        }
        Ok(tracecheck::Checked::Complete(_)) => {
            Verdict::Fail("a killed JVM left a complete trace?".to_string())
        }
        Err(v) => Verdict::Fail(format!(
            "not a readable prefix: {}",
            crate::util::clip(
                &v.iter()
                    .take(3)
                    .map(|v| v.to_string())
                    .collect::<Vec<_>>()
                    .join(" / "),
                300
            )
        )),
    }
}
