//! SIGKILL mid-run (stress/StressKill.java): once the trace file holds a few MB, the JVM is
//! killed; nothing can close the document, so what remains must be a readable prefix:
//! tracecheck's `check_prefix` names it "cut short" (every whole element up to the cut
//! well-formed and consistent) rather than invalid. The `.jtr` written beside it
//! (`jtr=`) must render up to its last whole block into a complete, valid document
//! that says it was cut short.

use super::{Ctx, Verdict};
use crate::java;
use std::time::{Duration, Instant};

/// Kill once the trace is at least this long (the writer flushes 1 MiB at a time).
const KILL_AT: u64 = 4 << 20;

pub fn run(ctx: &Ctx) -> Verdict {
    let trace = ctx.dir.join("trace.xml");
    let jtr = ctx.dir.join("trace.jtr");
    let options = format!("out={},jtr={}", trace.display(), jtr.display());
    let p = match java::Run::new(ctx.jdk)
        .agent(ctx.agent, &options)
        .class_path(ctx.classes)
        .main("StressKill")
        .spawn(&ctx.dir)
    {
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
            match jtr_renders(&jtr) {
                Ok(jtr_entries) => Verdict::Pass(format!(
                    "killed at >= {} MiB; cut short after line {lines}, {entries} method entries readable; .jtr renders {jtr_entries}",
                    at >> 20
                )),
                Err(e) => Verdict::Fail(format!("{}: {e}", jtr.display())),
            }
        }
        Ok(tracecheck::Checked::CutShort { .. }) => {
            Verdict::Fail("the file holds no whole line".to_string())
        }
        Ok(tracecheck::Checked::Complete(_)) => {
            Verdict::Fail("a killed JVM left a complete trace?".to_string())
        }
        Err(v) => Verdict::Fail(format!(
            "not a readable prefix: {}",
            crate::util::first_three(&v, 300)
        )),
    }
}

/// Renders the killed run's `.jtr` (up to its last whole block): the document must be
/// complete and valid, say `recordingCutShort`, and hold method entries. Their count.
fn jtr_renders(jtr: &std::path::Path) -> Result<u64, String> {
    let file = std::fs::File::open(jtr).map_err(|e| e.to_string())?;
    let mut xml = Vec::new();
    let done = trace::jtr::to_xml(std::io::BufReader::new(file), &mut xml)
        .map_err(|e| format!("does not render: {e}"))?;
    if done.cut_short.is_none() {
        return Err("a killed JVM left a complete .jtr?".to_string());
    }
    let s = tracecheck::check_reader(&xml[..])
        .map_err(|v| format!("rendered, not valid: {}", crate::util::first_three(&v, 400)))?;
    if s.end_counts.get("recordingCutShort") != Some(&1) {
        return Err("the rendered document does not say recordingCutShort=1".to_string());
    }
    let entries: u64 = s.methods.values().map(|m| m.entries).sum();
    if entries == 0 {
        return Err("no method entry rendered".to_string());
    }
    Ok(entries)
}
