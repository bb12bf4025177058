//! Runs one Java test case in a fresh JVM under the agent and judges the result.

use crate::cases::{Case, ExitExpect};
use crate::expect;
use crate::java::{self, Jdk};
use crate::proc::Done;
use crate::util::{self, CLOSING};
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus};
use std::time::Instant;

/// Everything one run needs.
pub struct Job<'a> {
    pub jdk: &'a Jdk,
    pub mode: &'a str,
    pub case: &'a Case,
    pub classes: &'a Path,
    pub agent: &'a Path,
    /// Scratch directory for this run (emptied first).
    pub dir: PathBuf,
}

/// The agent option string for a job: `out=` and `jtr=` beside it (unless the case
/// sets its own `out`), `mode=`, then the case's options.
pub fn agent_options(case: &Case, mode: &str, trace: &Path) -> String {
    let mut opts = Vec::new();
    let own_out = case.options.split(',').any(|o| o.starts_with("out="));
    if !own_out {
        opts.push(format!("out={}", trace.display()));
        opts.push(format!("jtr={}", trace.with_extension("jtr").display()));
    }
    opts.push(format!("mode={mode}"));
    // The cases' expectations (and the jvmti=bci comparison) are of the program's own
    // calls: the JDK's blocking methods only where a case asks (`waits=on`).
    if !case.options.split(',').any(|o| o.starts_with("waits=")) {
        opts.push("waits=off".to_string());
    }
    if !case.options.is_empty() {
        opts.push(case.options.clone());
    }
    opts.join(",")
}

/// A jar whose manifest makes `class` (from the test classes) a retransforming
/// java.lang.instrument agent; the class itself loads from the class path.
fn javaagent_jar(job: &Job, class: &str) -> Result<PathBuf, String> {
    let manifest = job.dir.join("javaagent.mf");
    std::fs::write(
        &manifest,
        format!("Premain-Class: {class}\nCan-Retransform-Classes: true\n"),
    )
    .map_err(|e| format!("{}: {e}", manifest.display()))?;
    let jar = job.dir.join("javaagent.jar");
    let out = Command::new(job.jdk.home.join("bin/jar"))
        .arg("--create")
        .arg("--file")
        .arg(&jar)
        .arg("--manifest")
        .arg(&manifest)
        .arg("-C")
        .arg(&job.dir)
        .arg("javaagent.mf")
        .output()
        .map_err(|e| format!("cannot run jar: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "jar failed: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    Ok(jar)
}

fn execute(job: &Job, trace: &Path) -> Result<Done, String> {
    let opts = agent_options(job.case, job.mode, trace);
    let javaagent = match &job.case.javaagent {
        Some((class, first)) => Some((javaagent_jar(job, class)?, *first)),
        None => None,
    };
    // The test's own Java agent goes before or after ours, as the case says.
    let javaagent_at = |first: bool| match &javaagent {
        Some((jar, f)) if *f == first => Some(java::javaagent_arg(jar, "")),
        _ => None,
    };
    let child = java::Run::new(job.jdk)
        .check_jni()
        // Rewritten classes must pass the JVM's own verifier, all of them.
        .args((job.mode == "bci").then_some("-Xverify:all"))
        .args(javaagent_at(true))
        .args((!job.case.attach).then(|| java::agent_arg(job.agent, &opts)))
        .args(javaagent_at(false))
        .args(&job.case.jvm_args)
        .class_path(job.classes)
        .main(&job.case.name)
        .envs(job.case.env.iter().map(|(k, v)| (k, v)))
        .spawn(&job.dir)?;
    let started = Instant::now();
    let mut problem = None;
    if job.case.attach {
        // Load the agent into the running JVM the way a user would. jcmd splits
        // unquoted key=value words itself, hence the inner quotes.
        if child.wait_line("READY", job.case.timeout) {
            let jcmd = job.jdk.home.join("bin/jcmd");
            let out = Command::new(&jcmd)
                .arg(child.pid().to_string())
                .arg("JVMTI.agent_load")
                .arg(job.agent)
                .arg(format!("\"{opts}\""))
                .output();
            let accepted = |o: &std::process::Output| {
                String::from_utf8_lossy(&o.stdout).contains("return code: 0")
            };
            match out {
                Ok(o) if accepted(&o) != job.case.attach_refused => {}
                Ok(o) if job.case.attach_refused => {
                    problem = Some(format!(
                        "jcmd JVMTI.agent_load should have failed: {}",
                        String::from_utf8_lossy(&o.stdout)
                            .trim()
                            .replace('\n', " | ")
                    ))
                }
                Ok(o) => {
                    problem = Some(format!(
                        "jcmd JVMTI.agent_load failed: {}",
                        String::from_utf8_lossy(&o.stdout)
                            .trim()
                            .replace('\n', " | ")
                    ))
                }
                Err(e) => problem = Some(format!("cannot run {}: {e}", jcmd.display())),
            }
        } else {
            problem = Some("the program never printed READY".to_string());
        }
    }
    if job.case.signal_term {
        if child.wait_line("READY", job.case.timeout) {
            if !child.signal("TERM") {
                problem = Some("could not send SIGTERM".to_string());
            }
        } else {
            problem = Some("the program never printed READY".to_string());
        }
    }
    let finished = child.finish(job.case.timeout.saturating_sub(started.elapsed()));
    if finished.timed_out {
        problem.get_or_insert(format!(
            "timeout: killed after {} s",
            job.case.timeout.as_secs()
        ));
    }
    std::fs::write(job.dir.join("stdout.txt"), &finished.stdout).ok();
    std::fs::write(job.dir.join("stderr.txt"), &finished.stderr).ok();
    match problem {
        Some(p) => Err(p),
        None => Ok(finished),
    }
}

/// The agent says once on stderr where the trace went: `jtrace: trace written to PATH:
/// N bytes, M elements, K events[, drops and repairs]`. PATH must be the trace's absolute
/// path, N its size and M the number of elements in it (start tags, one per line), K
/// (event elements) at most M; VERSION this build's.
fn closing_line(stderr: &str, trace: &Path) -> Result<(), String> {
    let n = stderr.lines().filter(|l| l.starts_with(CLOSING)).count();
    if n != 1 {
        return Err(format!(
            "stderr has {n} line(s) starting {CLOSING:?}, wanted exactly one"
        ));
    }
    let Some((line, version)) = util::closing_line(stderr) else {
        return Err(format!(
            "the closing line does not end with (jtrace VERSION): {stderr:?}"
        ));
    };
    if version != trace::VERSION {
        return Err(format!(
            "the closing line names jtrace {version}, this build is {}",
            trace::VERSION
        ));
    }
    let path = std::fs::canonicalize(trace).map_err(|e| format!("{}: {e}", trace.display()))?;
    let rest = line[CLOSING.len()..]
        .strip_prefix(&format!("{}: ", path.display()))
        .ok_or_else(|| format!("closing line names another file: {line:?}"))?;
    let figures: Vec<&str> = rest.split(", ").collect();
    let figure = |i: usize, unit: &str| -> Result<u64, String> {
        figures
            .get(i)
            .and_then(|f| f.strip_suffix(unit))
            .and_then(|n| n.parse().ok())
            .ok_or_else(|| format!("closing line lacks the{unit} figure: {line:?}"))
    };
    let size = std::fs::metadata(trace).map_err(|e| e.to_string())?.len();
    let text = std::fs::read_to_string(trace).map_err(|e| e.to_string())?;
    let elements = text
        .lines()
        .filter(|l| l.starts_with('<') && !l.starts_with("</") && !l.starts_with("<?"))
        .count() as u64;
    if figure(0, " bytes")? != size {
        return Err(format!(
            "closing line says {line:?} but the file has {size} bytes"
        ));
    }
    if figure(1, " elements")? != elements {
        return Err(format!(
            "closing line says {line:?} but the file has {elements} elements"
        ));
    }
    // Events are elements the file holds (not records replayed: with lines=on a line
    // record on its frame's current line writes nothing).
    let events = figure(2, " events")?;
    if events > elements {
        return Err(format!(
            "closing line says {line:?}: more events than the file's {elements} elements"
        ));
    }
    Ok(())
}

/// A `jtrace-stdout:` pattern matches its line exactly, or as a prefix if it ends with `*`.
fn stdout_matches(pattern: &str, line: &str) -> bool {
    match pattern.strip_suffix('*') {
        Some(prefix) => line.starts_with(prefix),
        None => pattern == line,
    }
}

fn exit_code(status: ExitStatus) -> Option<i32> {
    status.code().or_else(|| status.signal().map(|s| 128 + s))
}

/// Runs the job; `Err` is the reason it failed.
pub fn run(job: &Job) -> Result<(), String> {
    let _ = std::fs::remove_dir_all(&job.dir);
    std::fs::create_dir_all(&job.dir).map_err(|e| format!("{}: {e}", job.dir.display()))?;
    let trace = job.dir.join("trace.xml");
    let done = execute(job, &trace)?;
    let code = exit_code(done.status);
    let stderr_tail = || {
        let last = done
            .stderr
            .lines()
            .rev()
            .find(|l| !l.trim().is_empty() && !l.starts_with(CLOSING));
        util::clip(last.unwrap_or(""), 160)
    };

    // Exit code.
    let exit_ok = match job.case.exit {
        ExitExpect::Code(c) => code == Some(c),
        ExitExpect::NonZero => code.is_some_and(|c| c != 0),
    };
    if !exit_ok {
        return Err(format!(
            "exit code {code:?}, expected {:?}; stderr: {}",
            job.case.exit,
            stderr_tail()
        ));
    }

    // stderr fragments.
    for frag in &job.case.stderr {
        if !done.stderr.contains(frag.as_str()) {
            return Err(format!(
                "stderr lacks {frag:?}; stderr: {}",
                util::clip(&done.stderr.replace('\n', " | "), 200)
            ));
        }
    }

    // stdout: only the program's own lines; the agent must never write there.
    let mut expects = Vec::new();
    let mut in_jni_capacity_warning = false;
    for line in done.stdout.lines() {
        // JDK < 20 with -Xcheck:jni prints "WARNING: JNI local refs: N, exceeds
        // capacity: 32" plus a Java stack when the JVM's own natives (lambda class
        // spinning) run with method events enabled; HotSpot has no such limit and
        // JDK-8297106 removed the check in JDK 20. That JVM diagnostic is tolerated
        // on those JDKs only; anything else on stdout still fails the case.
        if job.jdk.feature < 20 {
            if line.starts_with("WARNING: JNI local refs: ")
                && line.contains(", exceeds capacity: ")
            {
                in_jni_capacity_warning = true;
                continue;
            }
            if in_jni_capacity_warning && (line.starts_with("\tat ") || line.starts_with("\t- ")) {
                continue;
            }
        }
        in_jni_capacity_warning = false;
        if let Some(e) = line.strip_prefix("EXPECT ") {
            expects.push(e.to_string());
        } else if let Some(e) = line.strip_prefix("EXPECT-BCI ") {
            // Only where classes are rewritten (mode=bci).
            if job.mode == "bci" {
                expects.push(e.to_string());
            }
        } else if line != "READY"
            && !job
                .case
                .stdout_lines
                .iter()
                .any(|l| stdout_matches(l, line))
        {
            return Err(format!("unexpected stdout line: {}", util::clip(line, 120)));
        }
    }

    // The trace.
    let summary = if job.case.trace {
        if !trace.is_file() {
            return Err(format!("no trace written; stderr: {}", stderr_tail()));
        }
        util::xmllint(&trace).map_err(|e| format!("xmllint: {}", util::clip(&e, 300)))?;
        closing_line(&done.stderr, &trace)?;
        same_as_rendered_jtr(job, &trace)?;
        let spill = PathBuf::from(format!("{}.spill", trace.display()));
        if spill.exists() {
            return Err(format!(
                "the spool's spill file {} was left behind",
                spill.display()
            ));
        }
        match tracecheck::check(&trace) {
            // An exact trace repairs and drops nothing (see tracecheck::REPAIR_COUNTS).
            Ok(s) if !s.repairs().is_empty() => {
                return Err(format!(
                    "the agent repaired or dropped records: {}",
                    s.repairs().join(", ")
                ));
            }
            Ok(s) => Some(s),
            Err(v) => {
                return Err(format!(
                    "tracecheck: {} violation(s): {}",
                    v.len(),
                    util::first_three(&v, 400)
                ));
            }
        }
    } else {
        if let Some(l) = done.stderr.lines().find(|l| l.starts_with(CLOSING)) {
            return Err(format!("no trace may be written, yet stderr says {l:?}"));
        }
        let own_out = job
            .case
            .options
            .split(',')
            .find_map(|o| o.strip_prefix("out="))
            .map(PathBuf::from);
        for p in [Some(trace.clone()), own_out].into_iter().flatten() {
            if p.exists() {
                return Err(format!(
                    "a trace was written to {} but none may be",
                    p.display()
                ));
            }
        }
        let stray: Vec<String> = std::fs::read_dir(&job.dir)
            .map(|d| {
                d.flatten()
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .filter(|n| n.ends_with(".xml"))
                    .collect()
            })
            .unwrap_or_default();
        if !stray.is_empty() {
            return Err(format!(
                "trace file(s) written although none may be: {stray:?}"
            ));
        }
        None
    };

    let failures: Vec<String> = expects
        .iter()
        .filter_map(|e| expect::check_line(e, summary.as_ref(), code).err())
        .collect();
    if !failures.is_empty() {
        return Err(format!(
            "{} EXPECT mismatch(es): {}",
            failures.len(),
            util::clip(&failures.join("; "), 500)
        ));
    }
    if job.case.trace && expects.is_empty() {
        return Err("the program printed no EXPECT lines".to_string());
    }
    Ok(())
}

/// The run's `.jtr` (written beside the XML with `jtr=`), rendered by `jtrace xml`,
/// must be the agent's own XML byte for byte: one renderer, two places it runs.
fn same_as_rendered_jtr(job: &Job, trace: &Path) -> Result<(), String> {
    let jtr = trace.with_extension("jtr");
    if !jtr.is_file() {
        // A case with its own out= keeps no records beside it.
        return Ok(());
    }
    let rendered = job.dir.join("rendered.xml");
    let jtrace = job.agent.with_file_name("jtrace");
    let out = Command::new(&jtrace)
        .arg("xml")
        .arg(&jtr)
        .arg("-o")
        .arg(&rendered)
        .output()
        .map_err(|e| format!("cannot run {}: {e}", jtrace.display()))?;
    if !out.status.success() {
        return Err(format!(
            "jtrace xml {}: {}",
            jtr.display(),
            util::clip(String::from_utf8_lossy(&out.stderr).trim(), 300)
        ));
    }
    let (a, b) = (
        std::fs::read(trace).map_err(|e| e.to_string())?,
        std::fs::read(&rendered).map_err(|e| e.to_string())?,
    );
    if a != b {
        let at = a
            .iter()
            .zip(&b)
            .position(|(x, y)| x != y)
            .unwrap_or(a.len().min(b.len()));
        let line = a[..at].iter().filter(|&&c| c == b'\n').count() + 1;
        return Err(format!(
            "jtrace xml of the run's .jtr differs from the agent's XML at line {line} \
             (byte {at}; {} vs {} bytes)",
            a.len(),
            b.len()
        ));
    }
    let _ = std::fs::remove_file(&rendered);
    Ok(())
}

/// [`run`] with its result reported to `tally` under `label`; whether it passed.
pub fn reported(tally: &mut crate::tally::Tally, job: &Job, label: &str) -> bool {
    let r = run(job);
    let passed = r.is_ok();
    tally.report(r, &job.jdk.name, label);
    passed
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_string() {
        let mut case = crate::cases::parse("X", "").unwrap();
        let t = Path::new("/tmp/t.xml");
        assert_eq!(
            agent_options(&case, "jvmti", t),
            "out=/tmp/t.xml,jtr=/tmp/t.jtr,mode=jvmti,waits=off"
        );
        case.options = "out=/x/y.xml,alloc=exact".to_string();
        assert_eq!(
            agent_options(&case, "bci", t),
            "mode=bci,waits=off,out=/x/y.xml,alloc=exact"
        );
    }

    #[test]
    fn stdout_patterns() {
        assert!(stdout_matches("a b", "a b"));
        assert!(!stdout_matches("a b", "a bc"));
        assert!(stdout_matches("a *", "a bc"));
        assert!(!stdout_matches("a *", "b"));
    }
}
