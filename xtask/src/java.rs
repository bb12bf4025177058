//! The harness floor for Java: finds the JDKs (every JDK >= 17 under /usr/lib/jvm, symlinks deduplicated), compiles Java, and builds every JVM's command line (`Run`: the one place that starts `java`).

use crate::proc::{Done, Proc};
use crate::util;
use std::collections::BTreeSet;
use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Output};
use std::time::Duration;

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
    /// The JDK at `home` as given (a benchmark's `--jdk`), whatever its version (0 when
    /// its `release` file does not say).
    pub fn at(home: &Path) -> Jdk {
        Jdk {
            feature: feature_version(home).unwrap_or(0),
            home: home.to_path_buf(),
            name: home.file_name().map_or_else(
                || home.display().to_string(),
                |n| n.to_string_lossy().into_owned(),
            ),
        }
    }

    pub fn java(&self) -> PathBuf {
        java_in(&self.home)
    }

    pub fn javac(&self) -> PathBuf {
        self.home.join("bin/javac")
    }
}

/// `HOME/bin/java`: the launcher of the JDK at `home` (a benchmark's `--jdk`), for
/// naming it or asking whether it is there; [`Run`] starts it.
pub fn java_in(home: &Path) -> PathBuf {
    home.join("bin/java")
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
            if java_in(&home).is_file() && home.join("bin/javac").is_file() {
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
    util::run_tool(
        Command::new(jdk.javac())
            .args(["-g", "-encoding", "UTF-8"])
            .args(extra)
            .arg("-d")
            .arg(out)
            .args(sources),
        "javac",
    )
}

/// `-agentpath:AGENT=OPTIONS` (`-agentpath:AGENT` for none: the agent's defaults): the
/// one spelling of loading the agent at JVM start.
pub fn agent_arg(agent: &Path, options: &str) -> String {
    if options.is_empty() {
        format!("-agentpath:{}", agent.display())
    } else {
        format!("-agentpath:{}={options}", agent.display())
    }
}

/// `-javaagent:JAR=OPTIONS` (`-javaagent:JAR` for none): the agent jar, or a test's own
/// Java agent, loaded at JVM start.
pub fn javaagent_arg(jar: &Path, options: &str) -> String {
    if options.is_empty() {
        format!("-javaagent:{}", jar.display())
    } else {
        format!("-javaagent:{}={options}", jar.display())
    }
}

/// One JVM to start: `JDK/bin/java` and its arguments, each in the order the builder
/// was given them (what a step checks depends on that order: an agent before or after
/// another, `-Xcheck:jni` first), with a working directory and environment. The one
/// place in xtask that starts `java` (tidy holds every other file to it:
/// `tidy::starts_java`).
#[must_use]
pub struct Run {
    java: PathBuf,
    args: Vec<OsString>,
    dir: Option<PathBuf>,
    /// `None`: removed from the inherited environment.
    envs: Vec<(OsString, Option<OsString>)>,
}

impl Run {
    pub fn new(jdk: &Jdk) -> Run {
        Run::home(&jdk.home)
    }

    /// The JDK at `home`, as a benchmark is given it (`--jdk PATH`).
    pub fn home(home: &Path) -> Run {
        Run {
            java: java_in(home),
            args: Vec::new(),
            dir: None,
            envs: Vec::new(),
        }
    }

    pub fn arg(mut self, arg: impl AsRef<OsStr>) -> Run {
        self.args.push(arg.as_ref().to_os_string());
        self
    }

    /// Arguments in order (an `Option` gives one or none).
    pub fn args<I, S>(mut self, args: I) -> Run
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        self.args
            .extend(args.into_iter().map(|a| a.as_ref().to_os_string()));
        self
    }

    /// The agent with `options` ([`agent_arg`]).
    pub fn agent(self, agent: &Path, options: &str) -> Run {
        self.arg(agent_arg(agent, options))
    }

    /// The agent with `options` when they are given, else nothing (the run without it).
    pub fn agent_if(self, agent: &Path, options: Option<&str>) -> Run {
        self.args(options.map(|o| agent_arg(agent, o)))
    }

    /// A Java agent jar with `options` ([`javaagent_arg`]).
    pub fn javaagent(self, jar: &Path, options: &str) -> Run {
        self.arg(javaagent_arg(jar, options))
    }

    /// `-Xcheck:jni` (the test cases: a JNI misuse of the agent then fails the run).
    pub fn check_jni(self) -> Run {
        self.arg("-Xcheck:jni")
    }

    /// `-cp CP`.
    pub fn class_path(self, cp: impl AsRef<OsStr>) -> Run {
        self.arg("-cp").arg(cp)
    }

    /// The main class (its arguments follow with [`Run::arg`], [`Run::args`]).
    pub fn main(self, class: impl AsRef<OsStr>) -> Run {
        self.arg(class)
    }

    /// `-jar JAR` (its arguments follow with [`Run::args`]).
    pub fn jar(self, jar: impl AsRef<OsStr>) -> Run {
        self.arg("-jar").arg(jar)
    }

    /// The working directory.
    pub fn dir(mut self, dir: &Path) -> Run {
        self.dir = Some(dir.to_path_buf());
        self
    }

    pub fn env(mut self, key: impl AsRef<OsStr>, value: impl AsRef<OsStr>) -> Run {
        self.envs.push((
            key.as_ref().to_os_string(),
            Some(value.as_ref().to_os_string()),
        ));
        self
    }

    pub fn envs<I, K, V>(self, vars: I) -> Run
    where
        I: IntoIterator<Item = (K, V)>,
        K: AsRef<OsStr>,
        V: AsRef<OsStr>,
    {
        vars.into_iter().fold(self, |r, (k, v)| r.env(k, v))
    }

    pub fn env_remove(mut self, key: impl AsRef<OsStr>) -> Run {
        self.envs.push((key.as_ref().to_os_string(), None));
        self
    }

    /// The `java` command, for a caller that spawns or pipes it itself.
    pub fn command(self) -> Command {
        let mut c = Command::new(&self.java);
        self.onto(&mut c);
        c
    }

    /// `java ARGS` appended to `outer`, which starts it (`/usr/bin/time -o FILE`,
    /// `jtrace record -o OUT --`); the directory and environment go to `outer`.
    pub fn under(self, outer: &mut Command) -> &mut Command {
        outer.arg(&self.java);
        self.onto(outer)
    }

    fn onto(self, c: &mut Command) -> &mut Command {
        c.args(&self.args);
        if let Some(d) = &self.dir {
            c.current_dir(d);
        }
        for (k, v) in &self.envs {
            match v {
                Some(v) => c.env(k, v),
                None => c.env_remove(k),
            };
        }
        c
    }

    /// Runs it to its end, both outputs captured; `Err` only when it cannot start.
    pub fn output(self) -> Result<Output, String> {
        let java = self.java.clone();
        self.command()
            .output()
            .map_err(|e| format!("cannot run {}: {e}", java.display()))
    }

    /// Runs it to its end with the caller's stdin, stdout and stderr.
    pub fn status(self) -> Result<ExitStatus, String> {
        let java = self.java.clone();
        self.command()
            .status()
            .map_err(|e| format!("cannot run {}: {e}", java.display()))
    }

    /// Starts it in `dir` under [`Proc`] (stdout line by line, a deadline later).
    pub fn spawn(self, dir: &Path) -> Result<Proc, String> {
        Proc::spawn(self.command(), dir)
    }

    /// Runs it in `dir` to its end, killed after `timeout` ([`Proc::finish`]).
    pub fn finish(self, dir: &Path, timeout: Duration) -> Result<Done, String> {
        Ok(self.spawn(dir)?.finish(timeout))
    }
}
