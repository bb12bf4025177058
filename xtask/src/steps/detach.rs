//! Step `detach` of `cargo xtask test`: no agent thread is still attached to the JVM when it exits, read from the JVM's own thread log.
//!
//! Why: on its way out HotSpot's VM thread waits up to 300 ms for every attached
//! thread that sits in native code (`VM_Exit::wait_for_threads_in_native_to_block`);
//! an agent thread waiting on a Rust lock is such a thread, and it made every JVM with
//! the agent take ~320 ms more to exit. The check is about attachment, not time:
//! `-Xlog:os+thread=info` logs `Thread attached (tid: N, ...)` when a thread attaches
//! and `JavaThread detaching (... tid: N)` when it detaches. Replaying those lines in
//! order leaves the threads still attached at the end; with the agent (a trace
//! running, `gc=on` for the heap thread, `duration=` for the timer thread) they must
//! be exactly those of the same program without it (the launcher's `DestroyJavaVM`).

use crate::java::{self, Jdk};
use std::collections::BTreeSet;
use std::path::Path;

/// The tids attached and never detached, by the JVM's `os+thread` log.
fn left_attached(log: &str) -> BTreeSet<u64> {
    let tid_after = |l: &str, key: &str| -> Option<u64> {
        let rest = &l[l.find(key)? + key.len()..];
        rest.split(|c: char| !c.is_ascii_digit())
            .next()?
            .parse()
            .ok()
    };
    let mut attached = BTreeSet::new();
    for l in log.lines() {
        if l.contains("Thread attached (") {
            attached.extend(tid_after(l, "tid: "));
        } else if l.contains("JavaThread detaching (") {
            if let Some(t) = tid_after(l, "tid: ") {
                attached.remove(&t);
            }
        }
    }
    attached
}

/// Runs `Hello` with `agent` (none: no agent) and returns how many threads were left
/// attached, how many attached, and the log's lines about attaching.
fn run(
    jdk: &Jdk,
    classes: &Path,
    dir: &Path,
    agent: Option<String>,
) -> Result<(usize, usize, String), String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let log = dir.join("threads.log");
    let o = java::Run::new(jdk)
        .arg(format!("-Xlog:os+thread=info:file={}", log.display()))
        .args(agent)
        .class_path(classes)
        .main("Hello")
        .dir(dir)
        .output()?;
    if !o.status.success() {
        return Err(format!(
            "Hello ended with {}: {}",
            o.status,
            String::from_utf8_lossy(&o.stderr)
        ));
    }
    let text = std::fs::read_to_string(&log).map_err(|e| format!("{}: {e}", log.display()))?;
    let lines: Vec<&str> = text
        .lines()
        .filter(|l| l.contains("Thread attached (") || l.contains("JavaThread detaching ("))
        .collect();
    let attaches = lines
        .iter()
        .filter(|l| l.contains("Thread attached ("))
        .count();
    Ok((left_attached(&text).len(), attaches, lines.join(" | ")))
}

/// The check on one JDK.
pub fn check(jdk: &Jdk, classes: &Path, agent: &Path, work: &Path) -> Result<(), String> {
    let (plain, plain_attaches, _) = run(jdk, classes, &work.join("plain"), None)?;
    let dir = work.join("agent");
    let opts = java::agent_arg(
        agent,
        &format!("out={}/trace.jtr,gc=on,duration=60s", dir.display()),
    );
    let (with, attaches, lines) = run(jdk, classes, &dir, Some(opts))?;
    if with != plain {
        return Err(format!(
            "{with} threads still attached at exit with the agent, {plain} without: {lines}"
        ));
    }
    // The heap and timer threads attached: the log does show them.
    if attaches < plain_attaches + 2 {
        return Err(format!(
            "the JVM's thread log shows {attaches} attaches with the agent, {plain_attaches} without (2 more expected: the heap and timer threads): {lines}"
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replays_attach_and_detach() {
        let log = "[0.001s][info][os,thread] Thread attached (tid: 10, pthread id: 1, stack: x).\n\
                   [0.1s][info][os,thread] Thread attached (tid: 12, pthread id: 2, stack: y).\n\
                   [0.2s][info][os,thread] JavaThread detaching (tid: 10).\n\
                   [0.2s][info][os,thread] Thread attached (tid: 10, pthread id: 1, stack: x).\n\
                   [0.3s][info][os,thread] JavaThread detaching (name: \"jtrace-heap\", tid: 12).\n";
        assert_eq!(left_attached(log), BTreeSet::from([10]));
    }
}
