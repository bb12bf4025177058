//! 20 attaches in a row (6 with `--quick`) to a busy JVM (stress/StressAttachTarget.java), alternating the
//! same `out` and a new one: the first `jcmd PID JVMTI.agent_load` must trace, every later
//! one must be refused (jcmd reports a non-zero return code, the JVM's stderr says why),
//! must leave the first trace alone and must write no other file; the JVM must run on
//! and exit normally, and the first trace must be valid with exact counts.

use super::{validate, Ctx, Verdict};
use crate::{expect, java};
use std::process::Command;
use std::time::Duration;

const ATTACHES: usize = 20;
/// `--quick` (the `cargo xtask test` subset): fewer, both kinds of `out` still alternate.
const QUICK_ATTACHES: usize = 6;
const REFUSAL: &str = "jtrace: already loaded in this JVM";

pub fn run(ctx: &Ctx) -> Verdict {
    let p = match java::Run::new(ctx.jdk)
        .class_path(ctx.classes)
        .main("StressAttachTarget")
        .spawn(&ctx.dir)
    {
        Ok(p) => p,
        Err(e) => return Verdict::Fail(e),
    };
    if !p.wait_line("READY", Duration::from_secs(60)) {
        return Verdict::Fail("the target never printed READY".to_string());
    }
    let first = ctx.dir.join("trace-1.xml");
    let jcmd = ctx.jdk.home.join("bin/jcmd");
    let attach = |out: &std::path::Path| {
        Command::new(&jcmd)
            .arg(p.pid().to_string())
            .arg("JVMTI.agent_load")
            .arg(ctx.agent)
            // jcmd splits unquoted key=value words itself, hence the inner quotes.
            .arg(format!("\"out={}\"", out.display()))
            .output()
            .map(|o| String::from_utf8_lossy(&o.stdout).replace('\n', " | "))
            .map_err(|e| format!("cannot run jcmd: {e}"))
    };
    let mut refused = 0;
    let mut slowest = 0f64;
    let attaches = if ctx.quick { QUICK_ATTACHES } else { ATTACHES };
    for i in 1..=attaches {
        let out = if i % 2 == 1 {
            first.clone()
        } else {
            ctx.dir.join(format!("trace-{i}.xml"))
        };
        let before = std::fs::metadata(&first).map(|m| m.len()).unwrap_or(0);
        let t = std::time::Instant::now();
        let said = match attach(&out) {
            Ok(s) => s,
            Err(e) => return Verdict::Fail(e),
        };
        slowest = slowest.max(t.elapsed().as_secs_f64());
        let accepted = said.contains("return code: 0");
        if i == 1 {
            if !accepted {
                return Verdict::Fail(format!("the first attach failed: {said}"));
            }
            if !p.wait_line("PHASE2", Duration::from_secs(60)) {
                return Verdict::Fail("the target never saw the agent".to_string());
            }
            continue;
        }
        if accepted {
            return Verdict::Fail(format!(
                "attach {i} was accepted although one trace runs: {said}"
            ));
        }
        refused += 1;
        if out != first && out.exists() {
            return Verdict::Fail(format!("refused attach {i} created {}", out.display()));
        }
        let after = std::fs::metadata(&first).map(|m| m.len()).unwrap_or(0);
        if after < before {
            return Verdict::Fail(format!(
                "refused attach {i} truncated the running trace ({before} -> {after} bytes)"
            ));
        }
        if !p.signal("0") {
            return Verdict::Fail(format!("the JVM died after attach {i}"));
        }
    }
    if let Err(e) = std::fs::write(ctx.dir.join("stop"), b"") {
        return Verdict::Fail(e.to_string());
    }
    let done = p.finish(Duration::from_secs(120));
    std::fs::write(ctx.dir.join("stdout.txt"), &done.stdout).ok();
    std::fs::write(ctx.dir.join("stderr.txt"), &done.stderr).ok();
    if done.timed_out || done.code() != Some(0) {
        return Verdict::Fail(format!(
            "the JVM did not exit normally: {:?}; stderr: {}",
            done.code(),
            done.stderr_tail()
        ));
    }
    let said = done.stderr.matches(REFUSAL).count();
    if said != refused {
        return Verdict::Fail(format!(
            "{refused} attaches refused but stderr says {REFUSAL:?} {said} times"
        ));
    }
    let summary = match validate(&first) {
        Ok(s) => s,
        Err(e) => return Verdict::Fail(e),
    };
    let failures: Vec<String> = done
        .stdout
        .lines()
        .filter_map(|l| l.strip_prefix("EXPECT "))
        .filter_map(|e| expect::check_line(e, Some(&summary), done.code()).err())
        .collect();
    if !failures.is_empty() {
        return Verdict::Fail(failures.join("; "));
    }
    Verdict::Pass(format!(
        "{attaches} attaches: 1 traced, {refused} refused, slowest jcmd {slowest:.1}s; {}",
        super::figure(&done.stdout).unwrap_or_default()
    ))
}
