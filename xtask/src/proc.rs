//! The one process runner of the harness: a child (a JVM, a tool) watched from outside, stdout line by line, stderr collected, a deadline, a kill always followed by a wait.
//!
//! Stdout is read line by line (to react to `READY`), both outputs are drained by
//! threads so that a full pipe never stalls the child, and a process dropped early is
//! killed and waited for, so that none is left behind.

use std::io::{BufRead, BufReader, Read};
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

pub struct Proc {
    child: Child,
    lines: Receiver<String>,
    out: Option<JoinHandle<String>>,
    err: Option<JoinHandle<String>>,
}

/// What a finished (or killed) process left.
pub struct Done {
    pub status: ExitStatus,
    pub stdout: String,
    pub stderr: String,
    /// Whether we had to kill it at the deadline.
    pub timed_out: bool,
}

impl Done {
    /// The exit code, or 128 + signal as a shell reports it.
    pub fn code(&self) -> Option<i32> {
        self.status
            .code()
            .or_else(|| self.status.signal().map(|s| 128 + s))
    }

    /// A JVM crash: killed by a signal we did not send, or HotSpot's own abort code
    /// (134 = SIGABRT after an hs_err report).
    pub fn crashed(&self) -> bool {
        self.status.signal().is_some() || self.status.code() == Some(134)
    }

    pub fn stderr_tail(&self) -> String {
        let tail: Vec<&str> = self
            .stderr
            .lines()
            .filter(|l| !l.trim().is_empty())
            .collect();
        let from = tail.len().saturating_sub(3);
        crate::util::clip(&tail[from..].join(" | "), 300)
    }
}

fn reader<R: Read + Send + 'static>(
    r: R,
    lines: Option<mpsc::Sender<String>>,
) -> JoinHandle<String> {
    thread::spawn(move || {
        let mut all = String::new();
        let mut r = BufReader::new(r);
        let mut line = String::new();
        while r.read_line(&mut line).unwrap_or(0) > 0 {
            if let Some(tx) = &lines {
                let _ = tx.send(line.trim_end().to_string());
            }
            all.push_str(&line);
            line.clear();
        }
        all
    })
}

impl Proc {
    /// Starts `cmd` in `dir` with stdin closed and both outputs piped.
    pub fn spawn(mut cmd: Command, dir: &Path) -> Result<Proc, String> {
        let mut child = cmd
            .current_dir(dir)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("cannot start {:?}: {e}", cmd.get_program()))?;
        let (tx, rx) = mpsc::channel();
        let out = reader(child.stdout.take().expect("piped"), Some(tx));
        let err = reader(child.stderr.take().expect("piped"), None);
        Ok(Proc {
            child,
            lines: rx,
            out: Some(out),
            err: Some(err),
        })
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// The exit status if the process has ended (without waiting).
    pub fn exited(&mut self) -> Option<ExitStatus> {
        self.child.try_wait().ok().flatten()
    }

    /// Waits for a stdout line equal to `want`; false on timeout or end of output.
    pub fn wait_line(&self, want: &str, timeout: Duration) -> bool {
        let deadline = Instant::now() + timeout;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(l) if l == want => return true,
                Ok(_) => {}
                Err(_) => return false,
            }
        }
    }

    pub fn signal(&self, sig: &str) -> bool {
        Command::new("kill")
            .arg(format!("-{sig}"))
            .arg(self.pid().to_string())
            .status()
            .is_ok_and(|s| s.success())
    }

    /// Waits until the process ends or `timeout` passes (then kills it and waits).
    pub fn finish(self, timeout: Duration) -> Done {
        self.finish_watching(timeout, Duration::from_millis(20), |_| {})
    }

    /// `finish`, calling `tick` with the pid every `poll` while the process runs (the
    /// hygiene step reads its open files that way).
    pub fn finish_watching(
        mut self,
        timeout: Duration,
        poll: Duration,
        mut tick: impl FnMut(u32),
    ) -> Done {
        let deadline = Instant::now() + timeout;
        let mut timed_out = false;
        let pid = self.child.id();
        let status = loop {
            tick(pid);
            match self.child.try_wait() {
                Ok(Some(s)) => break s,
                Ok(None) if Instant::now() < deadline => thread::sleep(poll),
                _ => {
                    timed_out = true;
                    let _ = self.child.kill();
                    match self.child.wait() {
                        Ok(s) => break s,
                        Err(_) => break ExitStatus::from_raw(9),
                    }
                }
            }
        };
        let stdout = self
            .out
            .take()
            .and_then(|h| h.join().ok())
            .unwrap_or_default();
        let stderr = self
            .err
            .take()
            .and_then(|h| h.join().ok())
            .unwrap_or_default();
        Done {
            status,
            stdout,
            stderr,
            timed_out,
        }
    }
}

impl Drop for Proc {
    /// A case that returns early (an error) must not leave its JVM running.
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}
