//! `jtrace record -- COMMAND...`: runs a command (a build tool, a test runner, `java
//! -jar`) with the agent in every JVM it starts, through `JAVA_TOOL_OPTIONS`, then lists
//! the traces those JVMs wrote and exits with the command's exit code.
//!
//! `JAVA_TOOL_OPTIONS` reaches every HotSpot JVM the command starts, however deep
//! (Maven's forked surefire JVMs, Gradle's workers, Ant's forked `<junit>`, a JVM that
//! starts JVMs), and is merged with what the user already has there. Beside the agent
//! it loads `jtrace-record.jar` as a Java agent: in a JVM whose class path has the JUnit
//! Platform launcher it appends `jtrace.jar` (the test listener, registered through
//! `ServiceLoader`) to the class path, so that every test is marked in the trace; in every
//! JVM it patches JUnit 3's `TestResult` and JUnit 4's `RunNotifier` so that tests run
//! outside the Platform (Ant's `<junit>`, Gradle's JUnit 4 runner) are marked too.

use crate::model::filter::Pattern;
use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::SystemTime;

#[derive(clap::Args, Debug)]
#[command(after_help = "Example: jtrace record -o 'target/jtrace-%p.jtr' lines=on -- mvn -o test")]
pub struct Args {
    /// Trace file pattern for every JVM (`%p` pid, `%t` start time, `%n` trace number;
    /// `.jtr` compact records, `.xml`, `.xml.zst`, `.xml.gz`); relative to the current directory
    #[arg(
        short = 'o',
        long = "out",
        value_name = "PATTERN",
        default_value = "jtrace-%p.jtr"
    )]
    pub out: String,
    /// The agent library (default: libjtrace.so next to the jtrace command)
    #[arg(long, value_name = "PATH")]
    pub agent: Option<PathBuf>,
    /// Do not mark JUnit tests (no jtrace-record.jar Java agent)
    #[arg(long, conflicts_with = "tests_only")]
    pub no_tests: bool,
    /// Trace only the JVMs that run JUnit Platform tests (the agent loads idle in the others,
    /// such as the build tool's own JVM)
    #[arg(long)]
    pub tests_only: bool,
    /// Agent options (`lines=on`, `include=com.example.*`, ...; see docs/OPTIONS.md), then `--` and the command
    #[arg(value_name = "AGENT-OPTION")]
    pub options: Vec<String>,
    /// The command to run, after `--`
    #[arg(last = true, required = true, value_name = "COMMAND")]
    pub command: Vec<String>,
}

/// With `alloc=exact` every object the traced code creates is to be counted, and the JVM
/// reports none that C2 kept off the heap: objects escape analysis scalar-replaced, and
/// the `StringBuilder`s and strings of a concatenation C2 fused into one. Which ones
/// depends on when the JIT compiled what (a loaded machine compiles later), so counts
/// differed between identical runs (examples/gate with H2 traced: `String` 822..830 over
/// 7 runs; 4 runs without either optimisation agreed). Unless the user names a flag, the
/// JVMs run without them: (flag, name).
const EXACT_ALLOC_FLAGS: [(&str, &str); 2] = [
    ("-XX:-DoEscapeAnalysis", "DoEscapeAnalysis"),
    ("-XX:-OptimizeStringConcat", "OptimizeStringConcat"),
];

/// A file shipped with the `jtrace` command: next to it (a build's target/release), or in
/// the release archive's `lib/` beside its `bin/`.
fn beside_self(name: &str) -> Option<PathBuf> {
    let exe = std::env::current_exe().ok()?;
    let dir = exe.parent()?;
    [dir.join(name), dir.join("../lib").join(name)]
        .into_iter()
        .find(|p| p.exists())
}

/// The agent's option string: `out=` first, then the user's items.
fn agent_options(out: &str, items: &[String]) -> Result<String, String> {
    let mut opts = vec![format!("out={out}")];
    for item in items {
        let (key, _) = item.split_once('=').ok_or_else(|| {
            format!(
                "\"{item}\" is not an agent option (KEY=VALUE, e.g. lines=on, include=com.example.*); \
                 the command goes after --"
            )
        })?;
        if key == "out" {
            return Err("give the trace file with -o PATTERN, not out=".to_string());
        }
        if item.contains(',') || item.contains(char::is_whitespace) {
            return Err(format!(
                "agent option \"{item}\": one option per argument, without commas or spaces \
                 (include rules are separated by ;)"
            ));
        }
        opts.push(item.clone());
    }
    Ok(opts.join(","))
}

/// One `JAVA_TOOL_OPTIONS` word, quoted when it holds a space (HotSpot reads quotes there).
fn word(s: &str) -> String {
    if s.contains(char::is_whitespace) {
        format!("'{s}'")
    } else {
        s.to_string()
    }
}

/// The user's `JAVA_TOOL_OPTIONS` with ours appended.
pub fn tool_options(
    existing: Option<&str>,
    agent: &Path,
    options: &str,
    javaagent: Option<(&Path, &Path)>,
    start_in_tests: Option<&str>,
) -> String {
    let mut words: Vec<String> = Vec::new();
    if let Some(e) = existing.map(str::trim).filter(|e| !e.is_empty()) {
        words.push(e.to_string());
    }
    words.push(word(&format!("-agentpath:{}={options}", agent.display())));
    if let Some((rec, jar)) = javaagent {
        let start = start_in_tests.map_or(String::new(), |o| format!(";{o}"));
        words.push(word(&format!(
            "-javaagent:{}={}{start}",
            rec.display(),
            jar.display()
        )));
    }
    words.join(" ")
}

/// The output pattern as an absolute path (the build tool's JVMs run in other
/// directories), and a file-name pattern that matches what it expands to.
fn out_pattern(out: &str) -> Result<(String, PathBuf, Pattern), String> {
    if out.is_empty() {
        return Err("-o: empty trace file pattern".to_string());
    }
    if !out.contains("%p") {
        return Err(format!(
            "-o {out}: the pattern needs %p (the pid): every JVM the command starts writes its own trace"
        ));
    }
    let abs = std::path::absolute(out).map_err(|e| format!("-o {out}: {e}"))?;
    let dir = abs.parent().map(Path::to_path_buf).unwrap_or_default();
    if dir.to_string_lossy().contains('%') {
        return Err(format!(
            "-o {out}: %p, %t and %n go in the file name, not in its directory"
        ));
    }
    if !dir.is_dir() {
        return Err(format!("-o {out}: {} is not a directory", dir.display()));
    }
    let name = abs
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .ok_or_else(|| format!("-o {out}: no file name"))?;
    let glob = name
        .replace("%p", "*")
        .replace("%t", "*")
        .replace("%n", "*")
        .replace("%%", "%");
    Ok((abs.to_string_lossy().into_owned(), dir, Pattern::new(&glob)))
}

/// Files of `dir` matching `p` with their modification times (spill files aside).
fn matching(dir: &Path, p: &Pattern) -> BTreeMap<PathBuf, SystemTime> {
    let mut out = BTreeMap::new();
    let Ok(rd) = std::fs::read_dir(dir) else {
        return out;
    };
    for e in rd.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if name.ends_with(".spill") || !p.matches(&name) {
            continue;
        }
        if let Ok(m) = e.metadata().and_then(|m| m.modified()) {
            out.insert(e.path(), m);
        }
    }
    out
}

pub fn run(a: Args) -> ExitCode {
    match record(a) {
        Ok(code) => code,
        Err(msg) => {
            eprintln!("jtrace record: {msg}");
            ExitCode::from(2)
        }
    }
}

fn record(a: Args) -> Result<ExitCode, String> {
    let agent = match &a.agent {
        Some(p) if p.is_file() => std::path::absolute(p).map_err(|e| e.to_string())?,
        Some(p) => return Err(format!("--agent {}: no such file", p.display())),
        None => beside_self("libjtrace.so")
            .ok_or("libjtrace.so is not next to the jtrace command nor in ../lib; give it with --agent PATH")?,
    };
    let (out, dir, glob) = out_pattern(&a.out)?;
    let mut options = agent_options(&out, &a.options)?;
    if a.tests_only {
        if a.options.iter().any(|o| o.starts_with("start=")) {
            return Err("--tests-only starts the trace itself; drop start=".to_string());
        }
        options.push_str(",start=off");
    }
    let jars = if a.no_tests {
        None
    } else {
        match (beside_self("jtrace-record.jar"), beside_self("jtrace.jar")) {
            (Some(r), Some(j)) => Some((r, j)),
            _ => {
                return Err(
                    "jtrace-record.jar and jtrace.jar are not next to the jtrace command \
                     (cargo xtask jar builds them); --no-tests records without marking tests"
                        .to_string(),
                )
            }
        }
    };
    let existing = std::env::var("JAVA_TOOL_OPTIONS").ok();
    if existing.as_deref().is_some_and(|e| e.contains("libjtrace")) {
        return Err("JAVA_TOOL_OPTIONS already loads libjtrace; unset it first".to_string());
    }
    let mut env = tool_options(
        existing.as_deref(),
        &agent,
        &options,
        jars.as_ref().map(|(r, j)| (r.as_path(), j.as_path())),
        a.tests_only.then(|| format!("out={out}")).as_deref(),
    );
    if a.options.iter().any(|o| o == "alloc=exact") {
        let off: Vec<&str> = EXACT_ALLOC_FLAGS
            .iter()
            .filter(|(_, name)| !env.contains(name))
            .map(|(flag, _)| *flag)
            .collect();
        if !off.is_empty() {
            env.push(' ');
            env.push_str(&off.join(" "));
            eprintln!(
                "jtrace record: alloc=exact: the JVMs run with {} so that every object is \
                 counted whatever the JIT did (the flag's + form in JAVA_TOOL_OPTIONS keeps it)",
                off.join(" ")
            );
        }
    }
    let before = matching(&dir, &glob);
    let started = SystemTime::now();
    let status = std::process::Command::new(&a.command[0])
        .args(&a.command[1..])
        .env("JAVA_TOOL_OPTIONS", &env)
        .status()
        .map_err(|e| format!("cannot run {}: {e}", a.command[0]))?;
    let made: Vec<PathBuf> = matching(&dir, &glob)
        .into_iter()
        .filter(|(p, m)| before.get(p).is_none_or(|old| old != m) && *m >= started)
        .map(|(p, _)| p)
        .collect();
    summarize(&made);
    Ok(exit_code(&status))
}

/// The command's exit code; a signal `s` becomes 128 + s, as in the shell.
fn exit_code(status: &std::process::ExitStatus) -> ExitCode {
    use std::os::unix::process::ExitStatusExt;
    let code = status
        .code()
        .or_else(|| status.signal().map(|s| 128 + s))
        .unwrap_or(1);
    ExitCode::from(code.clamp(0, 255) as u8)
}

/// One line per trace on stderr: file, the JVM's command line, events, drops (XML
/// traces are checked by tracecheck on the way).
fn summarize(made: &[PathBuf]) {
    if made.is_empty() {
        eprintln!("jtrace record: no trace was written (did the command start a JVM?)");
        return;
    }
    eprintln!("jtrace record: {} trace(s):", made.len());
    for p in made {
        eprintln!("  {}", describe(p));
    }
}

/// A `.jtr` read block by block, records counted by their lengths (no rendering: a
/// build tool's own trace can hold tens of millions of events).
fn describe_jtr(p: &Path) -> Result<String, String> {
    use trace::defs::Msg;
    let file = std::fs::File::open(p).map_err(|e| e.to_string())?;
    let mut r =
        trace::jtr::JtrReader::open(std::io::BufReader::new(file)).map_err(|e| e.to_string())?;
    let cmdline = shorten(&r.header.command_line, 160);
    let (mut events, mut dropped, mut finished) = (0u64, 0u64, false);
    while let Some(msg) = r.next_msg().map_err(|e| e.to_string())? {
        match msg {
            Msg::Chunk { data, .. } => events += trace::record::count(&data),
            Msg::Chunks(v) => events += v.iter().map(|(_, d)| trace::record::count(d)).sum::<u64>(),
            Msg::Finish { dropped_bytes, .. } => {
                dropped += dropped_bytes;
                finished = true;
                break;
            }
            Msg::Defs(_) | Msg::Mark(_) => {}
        }
    }
    let end = match (finished, r.cut_short()) {
        (_, Some(why)) => format!("cut short ({why})"),
        (false, None) => "not finished".to_string(),
        _ if dropped > 0 => format!("{dropped} bytes of records dropped"),
        _ => "nothing dropped".to_string(),
    };
    Ok(format!(
        "{}: {cmdline}: {events} events, {end}",
        p.display()
    ))
}

fn describe(p: &Path) -> String {
    if p.extension().is_some_and(|e| e == "jtr") {
        return describe_jtr(p).unwrap_or_else(|e| format!("{}: {e}", p.display()));
    }
    let name = p.display();
    let cmdline = command_line(p).unwrap_or_else(|| "?".to_string());
    let input = match crate::read::Trace::open(p).and_then(|t| t.input(None)) {
        Ok(i) => i,
        Err(e) => return format!("{name}: {e}"),
    };
    let doc = match input.into_xml() {
        Ok(d) => d,
        Err(e) => return format!("{name}: {e}"),
    };
    match tracecheck::check_reader(doc.reader) {
        Ok(s) => {
            let events: u64 = s
                .elements
                .iter()
                .filter(|(k, _)| {
                    !k.ends_with("Def")
                        && !matches!(
                            k.as_str(),
                            "methodCount" | "annotation" | "option" | "filter"
                        )
                })
                .map(|(_, v)| v)
                .sum();
            let repairs = s.repairs();
            format!(
                "{name}: {cmdline}: {events} events, {}",
                if repairs.is_empty() {
                    "nothing dropped".to_string()
                } else {
                    repairs.join(", ")
                }
            )
        }
        Err(v) => format!(
            "{name}: {cmdline}: NOT VALID ({} violation(s), see jtrace check)",
            v.len()
        ),
    }
}

/// The JVM's command line (`processCreate application_executable`), from the first
/// bytes of the document.
fn command_line(p: &Path) -> Option<String> {
    let doc = crate::read::Trace::open(p)
        .ok()?
        .input(None)
        .ok()?
        .into_xml()
        .ok()?;
    let mut head = Vec::new();
    doc.reader.take(64 * 1024).read_to_end(&mut head).ok()?;
    let text = String::from_utf8_lossy(&head);
    let at = text.find("application_executable=\"")? + "application_executable=\"".len();
    let end = text[at..].find('"')? + at;
    let raw = &text[at..end];
    let s = quick_xml::escape::unescape(raw).map_or_else(|_| raw.to_string(), |c| c.into_owned());
    Some(shorten(&s, 160))
}

fn shorten(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.to_string();
    }
    let cut: String = s.chars().take(max).collect();
    format!("{cut}...")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_are_merged_after_the_users() {
        let s = tool_options(
            Some("-Xmx1g"),
            Path::new("/a/libjtrace.so"),
            "out=/t/x-%p.jtr",
            None,
            None,
        );
        assert_eq!(s, "-Xmx1g -agentpath:/a/libjtrace.so=out=/t/x-%p.jtr");
        let s = tool_options(
            None,
            Path::new("/a b/libjtrace.so"),
            "out=x",
            Some((Path::new("/r.jar"), Path::new("/j.jar"))),
            Some("out=x"),
        );
        assert_eq!(
            s,
            "'-agentpath:/a b/libjtrace.so=out=x' -javaagent:/r.jar=/j.jar;out=x"
        );
    }

    #[test]
    fn bad_agent_options() {
        assert!(agent_options("o", &["mvn".into()])
            .unwrap_err()
            .contains("after --"));
        assert!(agent_options("o", &["out=x".into()])
            .unwrap_err()
            .contains("-o"));
        assert!(agent_options("o", &["a=1,b=2".into()])
            .unwrap_err()
            .contains("commas"));
        assert_eq!(
            agent_options("o", &["lines=on".into()]).unwrap(),
            "out=o,lines=on"
        );
    }

    #[test]
    fn the_pattern_finds_what_it_expands_to() {
        let (_, _, g) = out_pattern("/tmp/jt-%p.jtr").unwrap();
        assert!(g.matches("jt-123.jtr"));
        assert!(!g.matches("other-1.jtr"));
        assert!(out_pattern("/tmp/%p/x.jtr").is_err());
        assert!(out_pattern("/tmp/x.jtr").unwrap_err().contains("%p"));
    }
}
