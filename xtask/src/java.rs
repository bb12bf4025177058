//! The harness floor for Java: finds the JDKs (every JDK >= 17 under /usr/lib/jvm, symlinks deduplicated), compiles Java, and builds every "run java with the agent" command.

use crate::util;
use std::collections::BTreeSet;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

pub const JVM_DIR: &str = "/usr/lib/jvm";
pub const MIN_FEATURE: u32 = 17;

#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Jdk {
    pub feature: u32,
    /// Canonical home directory.
    pub home: PathBuf,
    /// Short name for reports (the home's directory name).
    pub name: String,
}

impl Jdk {
    pub fn java(&self) -> PathBuf {
        self.home.join("bin/java")
    }

    pub fn javac(&self) -> PathBuf {
        self.home.join("bin/javac")
    }
}

/// The feature version from a JDK's `release` file (`JAVA_VERSION="17.0.15"` gives 17,
/// `"1.8.0_402"` gives 8).
fn feature_version(home: &Path) -> Option<u32> {
    let release = std::fs::read_to_string(home.join("release")).ok()?;
    let line = release
        .lines()
        .find_map(|l| l.strip_prefix("JAVA_VERSION="))?;
    let v = line.trim().trim_matches('"');
    let mut parts = v.split(['.', '_', '+', '-']);
    let first: u32 = parts.next()?.parse().ok()?;
    if first == 1 {
        parts.next()?.parse().ok()
    } else {
        Some(first)
    }
}

pub fn discover() -> Vec<Jdk> {
    let Ok(entries) = std::fs::read_dir(JVM_DIR) else {
        return Vec::new();
    };
    let mut homes = BTreeSet::new();
    for e in entries.flatten() {
        if let Ok(home) = e.path().canonicalize() {
            if home.join("bin/java").is_file() && home.join("bin/javac").is_file() {
                homes.insert(home);
            }
        }
    }
    let mut jdks: Vec<Jdk> = homes
        .into_iter()
        .filter_map(|home| {
            let feature = feature_version(&home)?;
            let name = home.file_name()?.to_string_lossy().into_owned();
            (feature >= MIN_FEATURE).then_some(Jdk {
                feature,
                home,
                name,
            })
        })
        .collect();
    jdks.sort();
    jdks
}

/// JVMs run at the same time (the CI machines have two cores).
pub const PARALLEL: usize = 2;

/// `javac -g` of `sources` into a fresh `out` (also the CLI tests' programs).
pub fn compile_sources(jdk: &Jdk, out: &Path, sources: &[PathBuf]) -> Result<(), String> {
    javac(jdk, out, &[], sources)
}

/// `javac -g -encoding UTF-8 EXTRA -d OUT SOURCES` into a fresh `out`: the one way the
/// harness compiles Java. `Err` carries javac's complaint.
pub fn javac(jdk: &Jdk, out: &Path, extra: &[&str], sources: &[PathBuf]) -> Result<(), String> {
    let _ = std::fs::remove_dir_all(out);
    std::fs::create_dir_all(out).map_err(|e| format!("{}: {e}", out.display()))?;
    let result = Command::new(jdk.javac())
        .args(["-g", "-encoding", "UTF-8"])
        .args(extra)
        .arg("-d")
        .arg(out)
        .args(sources)
        .output()
        .map_err(|e| format!("cannot run javac: {e}"))?;
    if result.status.success() {
        Ok(())
    } else {
        Err(format!(
            "javac failed: {}",
            util::clip(
                &String::from_utf8_lossy(&result.stderr).replace('\n', " | "),
                400
            )
        ))
    }
}

/// `-agentpath:AGENT=OPTIONS`: the one spelling of loading the agent at JVM start.
pub fn agent_arg(agent: &Path, options: &str) -> String {
    format!("-agentpath:{}={options}", agent.display())
}

/// `JDK/bin/java`, with the agent and its options when given, and `-Xcheck:jni` when
/// asked (the test cases: a JNI misuse of the agent then fails the run). The caller
/// adds the class path, the main class and its arguments.
pub fn command(jdk: &Jdk, agent: Option<(&Path, &str)>, check_jni: bool) -> Command {
    let mut c = Command::new(jdk.java());
    if check_jni {
        c.arg("-Xcheck:jni");
    }
    if let Some((path, options)) = agent {
        c.arg(agent_arg(path, options));
    }
    c
}

/// What a process left: its exit status and everything it printed.
pub struct Finished {
    pub status: ExitStatus,
    pub stdout: String,
    pub stderr: String,
}

/// A child with both outputs drained by reader threads (a full pipe can never stall
/// it), `READY` lines on stdout signalled, and a deadline: the one process runner of
/// the test steps.
pub struct Running {
    child: Child,
    out: thread::JoinHandle<String>,
    err: thread::JoinHandle<String>,
    ready: mpsc::Receiver<()>,
}

fn drain<R: Read + Send + 'static>(
    r: R,
    ready: Option<mpsc::Sender<()>>,
) -> thread::JoinHandle<String> {
    thread::spawn(move || {
        let mut out = String::new();
        let mut reader = BufReader::new(r);
        let mut line = String::new();
        while reader.read_line(&mut line).unwrap_or(0) > 0 {
            if line.trim_end() == "READY" {
                if let Some(tx) = &ready {
                    let _ = tx.send(());
                }
            }
            out.push_str(&line);
            line.clear();
        }
        out
    })
}

impl Running {
    /// Starts `cmd` with no stdin and both outputs captured.
    pub fn spawn(cmd: &mut Command) -> Result<Running, String> {
        let mut child = cmd
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("cannot start {}: {e}", cmd.get_program().to_string_lossy()))?;
        let (tx, ready) = mpsc::channel();
        let out = drain(child.stdout.take().expect("piped"), Some(tx));
        let err = drain(child.stderr.take().expect("piped"), None);
        Ok(Running {
            child,
            out,
            err,
            ready,
        })
    }

    pub fn id(&self) -> u32 {
        self.child.id()
    }

    /// Waits for a `READY` line on stdout; false if none came within `timeout`.
    pub fn ready(&self, timeout: Duration) -> bool {
        self.ready.recv_timeout(timeout).is_ok()
    }

    /// Waits for the end until `deadline`, calling `tick` with the pid every `poll`; at
    /// the deadline the child is killed and `None` returned.
    pub fn wait_until(
        &mut self,
        deadline: Instant,
        poll: Duration,
        mut tick: impl FnMut(u32),
    ) -> Option<ExitStatus> {
        let pid = self.child.id();
        loop {
            tick(pid);
            match self.child.try_wait() {
                Ok(Some(status)) => return Some(status),
                Ok(None) if Instant::now() < deadline => thread::sleep(poll),
                _ => {
                    let _ = self.child.kill();
                    let _ = self.child.wait();
                    return None;
                }
            }
        }
    }

    /// The child's exit status (it has ended) and everything it printed.
    pub fn finish(mut self) -> Result<Finished, String> {
        let status = self.child.wait().map_err(|e| e.to_string())?;
        Ok(Finished {
            status,
            stdout: self.out.join().unwrap_or_default(),
            stderr: self.err.join().unwrap_or_default(),
        })
    }
}

/// Runs `cmd` to its end: `Err` if it cannot start or is still running after
/// `timeout` (then it is killed).
pub fn run_with_timeout(cmd: &mut Command, timeout: Duration) -> Result<Finished, String> {
    let mut r = Running::spawn(cmd)?;
    if r.wait_until(Instant::now() + timeout, Duration::from_millis(20), |_| {})
        .is_none()
    {
        return Err(format!("timeout: killed after {} s", timeout.as_secs()));
    }
    r.finish()
}
