//! A full disk: the trace goes to a 1 MiB tmpfs mounted for the run (root only; without
//! permission to mount the case is skipped and says so). stress/StressDisk.java makes
//! tens of MB of trace. The application must go on and exit normally with the same
//! output as without the agent, stderr must say the trace is incomplete, and what was
//! written must be a readable prefix ("cut short").

use super::{harness, Ctx, Verdict};
use crate::java;
use std::path::{Path, PathBuf};
use std::process::Command;

const SIZE: &str = "1m";

/// Unmounts on drop, so that no path out of the case leaves the mount behind.
struct Mount(PathBuf);

impl Mount {
    fn new(at: &Path) -> Result<Mount, String> {
        let out = Command::new("mount")
            .args([
                "-t",
                "tmpfs",
                "-o",
                &format!("size={SIZE},mode=0777"),
                "jtrace-stress",
            ])
            .arg(at)
            .output()
            .map_err(|e| format!("cannot run mount: {e}"))?;
        if out.status.success() {
            Ok(Mount(at.to_path_buf()))
        } else {
            Err(String::from_utf8_lossy(&out.stderr).trim().to_string())
        }
    }
}

impl Drop for Mount {
    fn drop(&mut self) {
        let ok = Command::new("umount")
            .arg(&self.0)
            .status()
            .is_ok_and(|s| s.success());
        if !ok {
            // Busy (a JVM we could not kill?): detach it lazily rather than leave it.
            let _ = Command::new("umount").arg("-l").arg(&self.0).status();
        }
    }
}

pub fn run(ctx: &Ctx) -> Verdict {
    let case = match harness::case("StressDisk") {
        Ok(c) => c,
        Err(e) => return Verdict::Fail(e),
    };
    let java = |agent: Option<&Path>| {
        let options = agent.map(|t| format!("out={}", t.display()));
        java::Run::new(ctx.jdk)
            .agent_if(ctx.agent, options.as_deref())
            .class_path(ctx.classes)
            .main("StressDisk")
            .finish(&ctx.dir, case.timeout)
    };
    let base = match java(None) {
        Ok(d) if d.code() == Some(0) => d,
        Ok(d) => return Verdict::Fail(format!("without the agent: exit {:?}", d.code())),
        Err(e) => return Verdict::Fail(e),
    };
    let mnt = ctx.dir.join("out");
    if let Err(e) = std::fs::create_dir_all(&mnt) {
        return Verdict::Fail(e.to_string());
    }
    let mount = match Mount::new(&mnt) {
        Ok(m) => m,
        Err(e) => {
            return Verdict::Skip(format!(
                "cannot mount a tmpfs ({e}); full-disk case not run"
            ))
        }
    };
    let trace = mnt.join("trace.xml");
    let done = match java(Some(&trace)) {
        Ok(d) => d,
        Err(e) => return Verdict::Fail(e),
    };
    // Read what is there before the mount goes away.
    let prefix = tracecheck::check_prefix(&trace);
    let size = std::fs::metadata(&trace).map(|m| m.len()).unwrap_or(0);
    let _ = std::fs::copy(&trace, ctx.dir.join("trace-prefix.xml"));
    drop(mount);
    std::fs::write(ctx.dir.join("stderr.txt"), &done.stderr).ok();
    if done.timed_out || done.code() != Some(0) {
        return Verdict::Fail(format!(
            "the application did not exit normally: exit {:?}{}; stderr: {}",
            done.code(),
            if done.timed_out { " (timeout)" } else { "" },
            done.stderr_tail()
        ));
    }
    if done.stdout != base.stdout {
        return Verdict::Fail(format!(
            "stdout differs from the run without the agent: {:?} vs {:?}",
            done.stdout, base.stdout
        ));
    }
    let said = done
        .stderr
        .lines()
        .find(|l| l.starts_with("jtrace:") && l.contains("incomplete"));
    let Some(said) = said else {
        return Verdict::Fail(format!(
            "stderr does not say the trace is incomplete: {}",
            done.stderr_tail()
        ));
    };
    match prefix {
        Ok(tracecheck::Checked::CutShort { lines, .. }) => Verdict::Pass(format!(
            "fs={SIZE}, trace cut short at {size} bytes after line {lines}, stderr: {}",
            crate::util::clip(said, 120)
        )),
        Ok(tracecheck::Checked::Complete(_)) => Verdict::Fail(format!(
            "the trace ({size} bytes) fit in {SIZE}: make it bigger"
        )),
        Err(v) => Verdict::Fail(format!(
            "what was written is not a readable prefix: {}",
            v.first().map(|v| v.to_string()).unwrap_or_default()
        )),
    }
}
