//! Test cases: one Java program per file in java-tests/, configured by comment directives.
//!
//! Directives (comment lines anywhere in the file, usually at the top):
//!
//! | directive                        | meaning                                              |
//! |----------------------------------|------------------------------------------------------|
//! | `// jtrace-options: k=v,k=v`     | extra agent options (a given `out=` replaces ours)   |
//! | `// jtrace-expect-exit: N`       | JVM exit code (default 0); `nonzero` = anything but 0 |
//! | `// jtrace-expect-stderr: text`  | stderr must contain `text` (repeatable)              |
//! | `// jtrace-trace: none`          | no trace file may be written (default: one must be)  |
//! | `// jtrace-signal: TERM`         | send SIGTERM once the program prints `READY`         |
//! | `// jtrace-stdout: text`         | an allowed stdout line besides EXPECTs (`*` at the end: prefix) |
//! | `// jtrace-timeout: SECONDS`     | kill and fail after this long (default 60)           |
//! | `// jtrace-min-jdk: N`           | run only on JDKs with feature version >= N (e.g. 21) |
//! | `// jtrace-compare-modes: no`    | skip the jvmti=bci story comparison (timing-dependent work) |
//! | `// jtrace-javaagent: CLASS first` | also run a java.lang.instrument agent (Premain-Class CLASS, from the test classes), before (`first`) or after (`last`) jtrace |
//! | `// jtrace-jvm-args: -Xmx48m ...` | extra JVM options before the class name (space-separated) |
//! | `// jtrace-env: K=V ...` | extra environment variables of the JVM (space-separated) |
//!
//! The program itself prints its ground truth as `EXPECT ...` lines (see `expect.rs`).

use std::path::{Path, PathBuf};
use std::time::Duration;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExitExpect {
    Code(i32),
    NonZero,
}

#[derive(Debug, Clone)]
pub struct Case {
    /// Class name = file stem.
    pub name: String,
    pub options: String,
    pub exit: ExitExpect,
    pub stderr: Vec<String>,
    pub trace: bool,
    pub signal_term: bool,
    /// Start the JVM without the agent and load it with `jcmd JVMTI.agent_load`
    /// once the program prints READY: `// jtrace-attach: yes` (runs in bci mode) or
    /// `// jtrace-attach: refused` (runs in jvmti mode, which a running JVM cannot
    /// serve: jcmd must report the failure and the program must run on unharmed).
    pub attach: bool,
    pub attach_refused: bool,
    /// Whether jvmti and bci traces of this case must tell the same story
    /// (`// jtrace-compare-modes: no` for programs whose work depends on timing).
    pub compare_modes: bool,
    pub stdout_lines: Vec<String>,
    pub timeout: Duration,
    /// Lowest JDK feature version the case runs on (`// jtrace-min-jdk: 21`; default 0).
    pub min_jdk: u32,
    /// A second, java.lang.instrument agent: its Premain-Class, and whether it comes
    /// before jtrace on the command line.
    pub javaagent: Option<(String, bool)>,
    /// Extra JVM options (`// jtrace-jvm-args: -Xmx48m`), e.g. a small heap.
    pub jvm_args: Vec<String>,
    /// Extra environment of the JVM (`// jtrace-env: K=V K=V`).
    pub env: Vec<(String, String)>,
}

impl Case {
    /// Whether the case runs on a JDK with this feature version.
    /// Whether the case runs in agent mode `mode` (attach cases: see `attach`).
    pub fn runs_in(&self, mode: &str) -> bool {
        match (self.attach, self.attach_refused) {
            (true, false) => mode == "bci",
            (true, true) => mode == "jvmti",
            _ => true,
        }
    }

    pub fn runs_on(&self, feature: u32) -> bool {
        feature >= self.min_jdk
    }
}

pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);

pub fn dir() -> PathBuf {
    crate::util::root().join("java-tests")
}

/// Every `*.java` file in java-tests/, sorted by name.
pub fn sources() -> Result<Vec<PathBuf>, String> {
    java_files(&dir())
}

/// Every `*.java` file in `dir`, sorted by name.
pub fn java_files(dir: &Path) -> Result<Vec<PathBuf>, String> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "java"))
        .collect();
    v.sort();
    Ok(v)
}

pub fn load_all() -> Result<Vec<Case>, String> {
    sources()?.iter().map(|p| load(p)).collect()
}

pub fn load(path: &Path) -> Result<Case, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let name = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .ok_or_else(|| format!("{}: no file name", path.display()))?;
    parse(&name, &text).map_err(|e| format!("{}: {e}", path.display()))
}

pub fn parse(name: &str, text: &str) -> Result<Case, String> {
    let mut case = Case {
        name: name.to_string(),
        options: String::new(),
        exit: ExitExpect::Code(0),
        stderr: Vec::new(),
        trace: true,
        signal_term: false,
        attach: false,
        attach_refused: false,
        compare_modes: true,
        stdout_lines: Vec::new(),
        timeout: DEFAULT_TIMEOUT,
        min_jdk: 0,
        javaagent: None,
        jvm_args: Vec::new(),
        env: Vec::new(),
    };
    for (i, line) in text.lines().enumerate() {
        let Some(rest) = line.trim().strip_prefix("// jtrace-") else {
            continue;
        };
        let (key, value) = rest
            .split_once(':')
            .ok_or_else(|| format!("line {}: directive without ':'", i + 1))?;
        let value = value.trim();
        let bad = || format!("line {}: bad value for jtrace-{key}: {value:?}", i + 1);
        match key {
            "options" => case.options = value.to_string(),
            "expect-exit" => {
                case.exit = if value == "nonzero" {
                    ExitExpect::NonZero
                } else {
                    ExitExpect::Code(value.parse().map_err(|_| bad())?)
                }
            }
            "expect-stderr" => case.stderr.push(value.to_string()),
            "trace" if value == "none" => case.trace = false,
            "signal" if value == "TERM" => case.signal_term = true,
            "compare-modes" if value == "no" => case.compare_modes = false,
            "attach" if value == "yes" => case.attach = true,
            "attach" if value == "refused" => {
                case.attach = true;
                case.attach_refused = true;
            }
            "stdout" => case.stdout_lines.push(value.to_string()),
            "timeout" => case.timeout = Duration::from_secs(value.parse().map_err(|_| bad())?),
            "min-jdk" => case.min_jdk = value.parse().map_err(|_| bad())?,
            "javaagent" => {
                let (class, order) = value.split_once(' ').ok_or_else(bad)?;
                let first = match order.trim() {
                    "first" => true,
                    "last" => false,
                    _ => return Err(bad()),
                };
                case.javaagent = Some((class.to_string(), first));
            }
            "jvm-args" => case.jvm_args = value.split_whitespace().map(str::to_string).collect(),
            "env" => {
                for kv in value.split_whitespace() {
                    let (k, v) = kv
                        .split_once('=')
                        .ok_or_else(|| format!("{name}: jtrace-env item {kv:?} is not K=V"))?;
                    case.env.push((k.to_string(), v.to_string()));
                }
            }
            _ => return Err(bad()),
        }
    }
    Ok(case)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn directives() {
        let c = parse(
            "X",
            "// jtrace-options: alloc=exact\n// jtrace-expect-exit: nonzero\n\
             // jtrace-expect-stderr: a b\n// jtrace-expect-stderr: c\n// jtrace-trace: none\n\
             // jtrace-signal: TERM\n// jtrace-stdout: hi there\n// jtrace-timeout: 5\n\
             // jtrace-min-jdk: 21\nclass X {}\n",
        )
        .unwrap();
        assert_eq!(c.options, "alloc=exact");
        assert_eq!(c.exit, ExitExpect::NonZero);
        assert_eq!(c.stderr, vec!["a b", "c"]);
        assert!(!c.trace && c.signal_term);
        assert_eq!(c.stdout_lines, vec!["hi there"]);
        assert_eq!(c.timeout, Duration::from_secs(5));
        assert_eq!(c.min_jdk, 21);
        assert!(!c.runs_on(17) && c.runs_on(21) && c.runs_on(25));
        assert!(parse("X", "").unwrap().runs_on(17));
        assert!(parse("X", "// jtrace-min-jdk: new\n").is_err());
        assert!(parse("X", "// jtrace-trace: maybe\n").is_err());
    }

    #[test]
    fn every_java_test_parses() {
        let cases = load_all().unwrap();
        assert!(cases.iter().any(|c| c.name == "Hello"));
    }
}
