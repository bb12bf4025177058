//! The harness floor for Java: finds the JDKs (every JDK >= 17 under /usr/lib/jvm, symlinks deduplicated), compiles Java, and builds every "run java with the agent" command.

use crate::util;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

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
