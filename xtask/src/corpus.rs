//! `cargo xtask corpus [--sample N]`: rewrites every class of the JDKs' modules and of the jars in
//! /usr/share/java with `jtrace::classfile` and has the JVM's own verifier judge the result.
//!
//! # What runs
//! 1. **Extract.** For every JDK >= 17 under /usr/lib/jvm: `jimage extract` of `lib/modules`
//!    (the same classes the `jrt:/` file system serves). The jars of /usr/share/java
//!    (symlinks and identical copies deduplicated) are unpacked once by
//!    `corpus/CorpusExtract.java` (one JVM for all of them; `META-INF/` variants left out).
//! 2. **Rewrite** in this process, as the agent would: `parse_info`, then `instrument` with an
//!    id for every method with code that is neither abstract nor native, tracker
//!    `jtrace/Tracker`, `lines: true` (the harder case; the lines-off outcome is counted too).
//!    One exception: an empty `finalize()V` (a lone `return`) gets no probes, because HotSpot
//!    decides from exactly that whether instances need finalization (`jtrace::classfile::traceable`, the agent's own rule).
//!    Classes are counted as rewritten, "nothing to probe" (no method with code) or skipped by
//!    reason (the error's text with numbers replaced by `N`). A skipped class keeps its bytes.
//! 3. **Verify** with `corpus/CorpusVerify.java` under `-Xverify:all -Xshare:off`: each class is
//!    loaded without initialisation and linked by `getDeclaredMethods()` (HotSpot links, hence
//!    verifies, there). `VerifyError`/`ClassFormatError` is a failure; any other error (a
//!    dependency that is not installed, say) is counted apart. Every run is repeated on the
//!    original classes, and only what the rewritten classes add counts against the rewriter.
//!    * **Jars**, on every JDK: a fresh loader per jar (parent: the platform loader) defines
//!      that jar's classes first and falls back to the other jars' classes (so that the
//!      verifier can resolve inter-jar dependencies), plus a stub `jtrace.Tracker` whose
//!      methods are empty Java instead of native.
//!    * **JDK modules**: no custom loader may define `java.*`, so the rewritten classes replace
//!      the originals with `--patch-module M=DIR` for every module, and the stub tracker is
//!      patched into `java.base` (exported to every module). The JVM then boots on rewritten
//!      classes and verifies every one of them, including the ones it loads before any agent
//!      could see them. HotSpot never verifies `java.lang.Object`, `Class`, `String` and
//!      `Throwable` (bootstrap classes), whatever the flags; `java.lang.Object` stays
//!      unpatched (C2 crashed compiling a rewritten `Object.<init>`; the agent never
//!      rewrites it either, since it loads before any load hook) and `module-info` too.
//!    * **The agent** (the real path): `-agentpath:libjtrace.so=include=*,lines=on` with the
//!      same list of JDK classes; the agent rewrites each class as it loads. The report takes
//!      the agent's own counts from the trace's `traceEnd` annotations. Classes the JVM loads
//!      before the agent's load hook is live are not rewritten by it (the patch run covers them).
//! 4. **Report**: per corpus, classes rewritten / skipped by reason, rewrite speed, and
//!    verification failures, which must be zero (the exit status says so; a JVM crash fails too).
//!
//! `--sample N` takes every k-th class of the sorted list, about N per JDK and N/3 of the jars
//! (all jar classes are still rewritten so that dependencies resolve); `cargo xtask test` runs
//! [`ci_sample`]. Work files live in `target/corpus/` (`target/corpus-sample/`) and are removed
//! after a clean run unless `--keep` is given.

use crate::java::{self, Jdk};
use crate::util;
use jtrace::classfile::{instrument, parse_info, traceable, ProbePlan};
use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// Classes per JDK in the sample `cargo xtask test` runs.
pub const CI_SAMPLE: usize = 1500;
/// Jars of /usr/share/java the CI sample rewrites (evenly spaced by name).
const SAMPLE_JARS: usize = 40;

const JARS_DIR: &str = "/usr/share/java";
const TRACKER: &str = "jtrace/Tracker";

/// `cargo xtask corpus [--sample N]`.
pub fn run(args: &[String]) -> bool {
    let mut sample = None;
    let mut keep = false;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        if a == "--keep" {
            keep = true;
            continue;
        }
        let n = match a.as_str() {
            "--sample" => it.next().map(String::as_str),
            other => other.strip_prefix("--sample="),
        };
        match n.and_then(|n| n.parse::<usize>().ok()) {
            Some(n) if n > 0 => sample = Some(n),
            _ => {
                eprintln!("usage: cargo xtask corpus [--sample N] [--keep]");
                return false;
            }
        }
    }
    match corpus(sample, keep) {
        Ok(()) => true,
        Err(e) => {
            println!("corpus: FAILED: {e}");
            false
        }
    }
}

/// The fixed sample for `cargo xtask test`; `Err` names what failed.
pub fn ci_sample() -> Result<(), String> {
    corpus(Some(CI_SAMPLE), false)
}

// ---------------------------------------------------------------------------------------------
// Rewriting

#[derive(Default)]
struct RewriteStats {
    classes: usize,
    rewritten: usize,
    nothing_to_probe: usize,
    /// Reason bucket -> (count, first class).
    skipped: BTreeMap<String, (usize, String)>,
    /// Classes refused with `lines: false` (counted, not written).
    skipped_lines_off: usize,
    methods_probed: usize,
    /// Empty `finalize()V` methods given no probes (`jtrace::classfile::traceable`).
    empty_finalizers: usize,
    bytes_in: u64,
    bytes_out: u64,
    /// parse_info + instrument (lines on), without file I/O.
    time: Duration,
}

impl RewriteStats {
    fn skipped_total(&self) -> usize {
        self.skipped.values().map(|(n, _)| n).sum()
    }

    fn report(&self, what: &str, out: &mut String) {
        let secs = self.time.as_secs_f64().max(1e-9);
        let _ = writeln!(
            out,
            "  rewrite {what}: {} classes: {} rewritten ({} methods), {} with nothing to probe, \
             {} skipped; lines=off: {} skipped; {:.0} classes/s, {:.1} MB/s in ({} build), \
             size +{:.1}%",
            self.classes,
            self.rewritten,
            self.methods_probed,
            self.nothing_to_probe,
            self.skipped_total(),
            self.skipped_lines_off,
            self.classes as f64 / secs,
            self.bytes_in as f64 / secs / 1e6,
            if cfg!(debug_assertions) {
                "debug"
            } else {
                "release"
            },
            (self.bytes_out as f64 / self.bytes_in.max(1) as f64 - 1.0) * 100.0
        );
        if self.empty_finalizers > 0 {
            let _ = writeln!(
                out,
                "    {} empty finalize() methods left without probes",
                self.empty_finalizers
            );
        }
        for (why, (n, first)) in &self.skipped {
            let _ = writeln!(out, "    skipped {n:>5}  {why}  (e.g. {first})");
        }
    }
}

/// Numbers in an error message replaced by `N`, so that messages bucket.
fn bucket(msg: &str) -> String {
    let mut s = String::with_capacity(msg.len());
    let mut in_num = false;
    for c in msg.chars() {
        if c.is_ascii_digit() {
            if !in_num {
                s.push('N');
            }
            in_num = true;
        } else {
            in_num = false;
            s.push(c);
        }
    }
    s
}

/// Rewrites one class; the bytes to load (the original when skipped).
fn rewrite_class(bytes: &[u8], name: &str, st: &mut RewriteStats) -> Vec<u8> {
    st.classes += 1;
    st.bytes_in += bytes.len() as u64;
    let t = Instant::now();
    let info = match parse_info(bytes) {
        Ok(i) => i,
        Err(e) => {
            st.time += t.elapsed();
            let e = st
                .skipped
                .entry(bucket(&format!("parse: {e}")))
                .or_insert((0, name.to_string()));
            e.0 += 1;
            st.skipped_lines_off += 1;
            st.bytes_out += bytes.len() as u64;
            return bytes.to_vec();
        }
    };
    // The agent's own rule decides which methods get probes.
    let ids: Vec<Option<u32>> = info
        .methods
        .iter()
        .enumerate()
        .map(|(i, m)| {
            if m.name == "finalize" && m.has_code && !traceable(m) {
                st.empty_finalizers += 1;
            }
            traceable(m).then_some(i as u32 + 1)
        })
        .collect();
    let probed = ids.iter().flatten().count();
    let plan = |lines| ProbePlan {
        tracker: TRACKER,
        method_ids: &ids,
        lines,
        // As the agent instruments while a trace records (`inline=auto`).
        pad: true,
        windows: &[],
    };
    let result = instrument(bytes, &plan(true));
    st.time += t.elapsed();
    if instrument(bytes, &plan(false)).is_err() {
        st.skipped_lines_off += 1;
    }
    let out = match result {
        Ok(b) if probed == 0 => {
            st.nothing_to_probe += 1;
            b
        }
        Ok(b) => {
            st.rewritten += 1;
            st.methods_probed += probed;
            b
        }
        Err(e) => {
            let e = st
                .skipped
                .entry(bucket(&e.to_string()))
                .or_insert((0, name.to_string()));
            e.0 += 1;
            bytes.to_vec()
        }
    };
    st.bytes_out += out.len() as u64;
    out
}

/// Relative paths of the `.class` files under `dir`, sorted.
fn class_files(dir: &Path) -> Result<Vec<PathBuf>, String> {
    fn walk(root: &Path, dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), String> {
        let entries = std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        for e in entries {
            let e = e.map_err(|e| e.to_string())?;
            let p = e.path();
            let ft = e.file_type().map_err(|e| e.to_string())?;
            if ft.is_dir() {
                walk(root, &p, out)?;
            } else if ft.is_file() && p.extension().is_some_and(|x| x == "class") {
                out.push(
                    p.strip_prefix(root)
                        .map_err(|e| e.to_string())?
                        .to_path_buf(),
                );
            }
        }
        Ok(())
    }
    let mut out = Vec::new();
    if dir.is_dir() {
        walk(dir, dir, &mut out)?;
    }
    out.sort();
    Ok(out)
}

/// `a/b/C$D.class` -> `a.b.C$D`.
fn binary_name(rel: &Path) -> String {
    let s = rel.to_string_lossy();
    s.strip_suffix(".class").unwrap_or(&s).replace('/', ".")
}

/// Whether the verifier harness should link this class (module-info and package-info
/// are not classes one can load by name).
fn linkable(name: &str) -> bool {
    !(name.ends_with("module-info") || name.ends_with("package-info"))
}

/// Rewrites `from/rel` into `to/rel` for every `rel` in `files`.
fn rewrite_files(
    from: &Path,
    to: &Path,
    files: &[PathBuf],
    st: &mut RewriteStats,
) -> Result<(), String> {
    let mut made = HashSet::new();
    for rel in files {
        let src = from.join(rel);
        let bytes = std::fs::read(&src).map_err(|e| format!("{}: {e}", src.display()))?;
        let out = rewrite_class(&bytes, &binary_name(rel), st);
        let dst = to.join(rel);
        if let Some(parent) = dst.parent() {
            if made.insert(parent.to_path_buf()) {
                std::fs::create_dir_all(parent).map_err(|e| e.to_string())?;
            }
        }
        std::fs::write(&dst, out).map_err(|e| format!("{}: {e}", dst.display()))?;
    }
    Ok(())
}

/// Every k-th element, about `n` of them (all when `n` is None).
fn every_kth<T: Clone>(all: &[T], n: Option<usize>) -> Vec<T> {
    match n {
        Some(n) if n < all.len() => {
            let k = all.len().div_ceil(n);
            all.iter().step_by(k).cloned().collect()
        }
        _ => all.to_vec(),
    }
}

// ---------------------------------------------------------------------------------------------
// Running the harness

/// What one CorpusVerify run said.
#[derive(Default)]
struct Verdict {
    linked: usize,
    /// (class, message) of VerifyError / ClassFormatError.
    fails: Vec<(String, String)>,
    /// (class, message) of any other error.
    others: Vec<(String, String)>,
    /// Problems of the run itself (crash, no DONE line, agent complaints).
    broken: Vec<String>,
    stderr: String,
    secs: f64,
}

impl Verdict {
    fn fail_names(&self) -> BTreeSet<&str> {
        self.fails.iter().map(|(n, _)| n.as_str()).collect()
    }

    fn other_names(&self) -> BTreeSet<&str> {
        self.others.iter().map(|(n, _)| n.as_str()).collect()
    }
}

fn java(jdk: &Jdk, args: &[String]) -> Verdict {
    let t = Instant::now();
    let mut v = Verdict::default();
    let out = match java::Run::new(jdk).args(args).output() {
        Ok(o) => o,
        Err(e) => {
            v.broken.push(e);
            return v;
        }
    };
    v.secs = t.elapsed().as_secs_f64();
    v.stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let mut done = false;
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let split = |rest: &str| {
            let (n, m) = rest.split_once('\t').unwrap_or((rest, ""));
            (n.to_string(), m.to_string())
        };
        if let Some(rest) = line.strip_prefix("FAIL ") {
            v.fails.push(split(rest));
        } else if let Some(rest) = line.strip_prefix("OTHER ") {
            v.others.push(split(rest));
        } else if let Some(rest) = line.strip_prefix("DONE linked=") {
            done = true;
            v.linked = rest
                .split_whitespace()
                .next()
                .and_then(|n| n.parse().ok())
                .unwrap_or(0);
        }
    }
    if !out.status.success() || !done {
        // A crash report goes to stdout ("# SIGSEGV ...", "# Problematic frame:", "# V [...]").
        let stdout = String::from_utf8_lossy(&out.stdout);
        let crash: Vec<&str> = stdout
            .lines()
            .filter(|l| l.starts_with("# ") && l.len() > 3)
            .take(8)
            .collect();
        let tail: Vec<&str> = v
            .stderr
            .lines()
            .filter(|l| !l.starts_with("WARNING:"))
            .rev()
            .take(6)
            .collect();
        let tail: Vec<&str> = crash.into_iter().chain(tail.into_iter().rev()).collect();
        v.broken.push(format!(
            "JVM ended with {} {}: {}",
            out.status,
            if done { "" } else { "before the end" },
            util::clip(&tail.join(" | "), 600)
        ));
    }
    v
}

fn base_args(extra: &[&str]) -> Vec<String> {
    let mut a: Vec<String> = ["-Xshare:off", "-Xverify:all", "-XX:-UsePerfData"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    a.extend(extra.iter().map(|s| s.to_string()));
    a
}

fn path_str(p: &Path) -> String {
    p.to_string_lossy().into_owned()
}

fn write_list(path: &Path, lines: &[String]) -> Result<(), String> {
    let mut s = lines.join("\n");
    s.push('\n');
    std::fs::write(path, s).map_err(|e| format!("{}: {e}", path.display()))
}

fn print_examples(out: &mut String, what: &str, list: &[(String, String)], max: usize) {
    for (n, m) in list.iter().take(max) {
        let _ = writeln!(out, "      {what} {n}: {}", util::clip(m, 300));
    }
    if list.len() > max {
        let _ = writeln!(out, "      ... and {} more", list.len() - max);
    }
}

/// Compares a run on rewritten classes with one on the originals; `Err` lines are
/// failures attributable to the rewriter.
fn judge(what: &str, orig: &Verdict, new: &Verdict, out: &mut String) -> Vec<String> {
    let mut bad = Vec::new();
    let of = orig.fail_names();
    let oo = orig.other_names();
    let ours: Vec<(String, String)> = new
        .fails
        .iter()
        .filter(|(n, _)| !of.contains(n.as_str()))
        .cloned()
        .collect();
    let new_other: Vec<(String, String)> = new
        .others
        .iter()
        .filter(|(n, _)| !oo.contains(n.as_str()) && !of.contains(n.as_str()))
        .cloned()
        .collect();
    let _ = writeln!(
        out,
        "  verify {what}: {} linked, {} verification failures ({} also without rewriting), \
         {} other errors ({} also without rewriting, e.g. missing dependencies); \
         {:.1} s (originals {:.1} s)",
        new.linked,
        new.fails.len(),
        new.fails.len() - ours.len(),
        new.others.len(),
        new.others.len() - new_other.len(),
        new.secs,
        orig.secs
    );
    print_examples(out, "REWRITER FAILURE", &ours, 20);
    print_examples(out, "NEW ERROR", &new_other, 20);
    let others_shared: Vec<(String, String)> = new
        .others
        .iter()
        .filter(|(n, _)| oo.contains(n.as_str()))
        .cloned()
        .collect();
    print_examples(out, "(also original)", &others_shared, 3);
    for (n, m) in ours.iter().chain(&new_other) {
        bad.push(format!("{what}: {n}: {}", util::clip(m, 200)));
    }
    for b in orig.broken.iter().chain(&new.broken) {
        let _ = writeln!(out, "      BROKEN RUN {b}");
        bad.push(format!("{what}: {b}"));
    }
    bad
}

// ---------------------------------------------------------------------------------------------
// The corpus

struct Env {
    work: PathBuf,
    /// Compiled CorpusExtract / CorpusVerify.
    harness: PathBuf,
    /// Compiled stub jtrace/Tracker.
    stub: PathBuf,
}

fn recreate(dir: &Path) -> Result<(), String> {
    let _ = std::fs::remove_dir_all(dir);
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))
}

fn compile_harness(jdk: &Jdk, env: &Env) -> Result<(), String> {
    let src = util::root().join("corpus");
    for (dir, files) in [
        (
            &env.harness,
            &["CorpusExtract.java", "CorpusVerify.java"][..],
        ),
        (&env.stub, &["jtrace/Tracker.java"][..]),
    ] {
        let sources: Vec<PathBuf> = files.iter().map(|f| src.join(f)).collect();
        java::javac(jdk, dir, &["--release", "17"], &sources)
            .map_err(|e| format!("corpus/: {e}"))?;
    }
    Ok(())
}

/// Distinct jars of /usr/share/java: symlinks resolved, identical files once.
fn jars() -> Vec<(String, PathBuf)> {
    let Ok(entries) = std::fs::read_dir(JARS_DIR) else {
        return Vec::new();
    };
    let mut paths = BTreeSet::new();
    for e in entries.flatten() {
        let p = e.path();
        if p.extension().is_some_and(|x| x == "jar") {
            if let Ok(c) = p.canonicalize() {
                if c.is_file() {
                    paths.insert(c);
                }
            }
        }
    }
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    for p in paths {
        let Ok(bytes) = std::fs::read(&p) else {
            continue;
        };
        if !seen.insert(bytes) {
            continue;
        }
        let stem = p
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        out.push((stem, p));
    }
    out
}

fn corpus(sample: Option<usize>, keep: bool) -> Result<(), String> {
    let started = Instant::now();
    let jdks = java::discover();
    if jdks.is_empty() {
        return Err(format!(
            "no JDK >= {} under {}",
            java::MIN_FEATURE,
            java::JVM_DIR
        ));
    }
    let root = util::root();
    let work = root.join(if sample.is_some() {
        "target/corpus-sample"
    } else {
        "target/corpus"
    });
    let env = Env {
        harness: work.join("harness"),
        stub: work.join("stub"),
        work,
    };
    compile_harness(&jdks[0], &env)?;
    util::build_release()?;
    let agent = root.join("target/release/libjtrace.so");
    if !agent.is_file() {
        return Err("cargo build --release -p jtrace failed".to_string());
    }

    let mut report = String::new();
    let mut bad: Vec<String> = Vec::new();
    let _ = writeln!(
        report,
        "corpus ({}):",
        match sample {
            Some(n) => format!("sample of about {n} classes per JDK, {} of the jars", n / 3),
            None => "every class".to_string(),
        }
    );

    // Jars: extract and rewrite once, verify on every JDK. The sample takes evenly
    // spaced jars, at most SAMPLE_JARS of them: /usr/share/java grows with every
    // package installed (the real-program corpus brings hundreds of jars), and the
    // sample must stay a few minutes whatever the machine holds.
    let mut jars = jars();
    if sample.is_some() && jars.len() > SAMPLE_JARS {
        let step = jars.len() as f64 / SAMPLE_JARS as f64;
        jars = (0..SAMPLE_JARS)
            .map(|i| jars[(i as f64 * step) as usize].clone())
            .collect();
    }
    let jar_lists = if jars.is_empty() {
        let _ = writeln!(report, "  jars: none in {JARS_DIR}");
        None
    } else {
        let r = jar_corpus(&jdks[0], &env, &jars, sample, &mut report)?;
        Some(r)
    };
    for jdk in &jdks {
        let _ = writeln!(report, "{} (feature {}):", jdk.name, jdk.feature);
        if let Some((orig_list, new_list)) = &jar_lists {
            let cp = format!("{}:{}", path_str(&env.harness), path_str(&env.stub));
            let run = |list: &Path| {
                let mut a = base_args(&["-cp", &cp, "CorpusVerify", "jars"]);
                a.push(path_str(list));
                java(jdk, &a)
            };
            let orig = run(orig_list);
            let new = run(new_list);
            bad.extend(judge("jars", &orig, &new, &mut report));
        }
        bad.extend(jdk_corpus(jdk, &env, &agent, sample, &mut report)?);
    }
    let _ = writeln!(
        report,
        "corpus: {} rewriter failures, {:.0} s",
        bad.len(),
        started.elapsed().as_secs_f64()
    );
    print!("{report}");
    if bad.is_empty() {
        if !keep {
            let _ = std::fs::remove_dir_all(&env.work);
        }
        Ok(())
    } else {
        Err(util::clip(&bad.join("; "), 1500))
    }
}

/// Extracts and rewrites the jars; returns the harness lists (originals, rewritten).
fn jar_corpus(
    jdk: &Jdk,
    env: &Env,
    jars: &[(String, PathBuf)],
    sample: Option<usize>,
    report: &mut String,
) -> Result<(PathBuf, PathBuf), String> {
    let orig = env.work.join("jars/orig");
    let new = env.work.join("jars/rewritten");
    recreate(&orig)?;
    recreate(&new)?;
    let mut args = vec![
        "-cp".to_string(),
        path_str(&env.harness),
        "CorpusExtract".to_string(),
    ];
    for (stem, p) in jars {
        args.push(path_str(p));
        args.push(path_str(&orig.join(stem)));
    }
    let out = java::Run::new(jdk).args(&args).output()?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    if !out.status.success() {
        return Err(format!(
            "CorpusExtract: {}",
            util::clip(&String::from_utf8_lossy(&out.stderr), 400)
        ));
    }
    for l in stdout.lines().filter(|l| l.starts_with("ERROR ")) {
        let _ = writeln!(report, "  jars: {l}");
    }

    let mut st = RewriteStats::default();
    // (jar stem, class names) for the verify lists.
    let mut names: Vec<(String, String)> = Vec::new();
    for (stem, _) in jars {
        let files = class_files(&orig.join(stem))?;
        rewrite_files(&orig.join(stem), &new.join(stem), &files, &mut st)?;
        for f in &files {
            let n = binary_name(f);
            if linkable(&n) {
                names.push((stem.clone(), n));
            }
        }
    }
    st.report(&format!("{} jars of {JARS_DIR}", jars.len()), report);
    let chosen = every_kth(&names, sample.map(|n| (n / 3).max(1)));
    let list = |base: &Path| -> Vec<String> {
        let mut lines = Vec::new();
        let mut current = None;
        for (stem, name) in &chosen {
            if current != Some(stem) {
                current = Some(stem);
                let mut dirs = vec![path_str(&base.join(stem))];
                dirs.extend(
                    jars.iter()
                        .filter(|(s, _)| s != stem)
                        .map(|(s, _)| path_str(&base.join(s))),
                );
                lines.push(format!("@{}", dirs.join(":")));
            }
            lines.push(name.clone());
        }
        lines
    };
    let orig_list = env.work.join("jars/orig.list");
    let new_list = env.work.join("jars/rewritten.list");
    write_list(&orig_list, &list(&orig))?;
    write_list(&new_list, &list(&new))?;
    let _ = writeln!(report, "  jars: {} classes to link per JDK", chosen.len());
    Ok((orig_list, new_list))
}

/// One JDK's modules: extract, rewrite, verify patched in, then through the agent.
fn jdk_corpus(
    jdk: &Jdk,
    env: &Env,
    agent: &Path,
    sample: Option<usize>,
    report: &mut String,
) -> Result<Vec<String>, String> {
    let base = env.work.join(&jdk.name);
    let orig = base.join("orig");
    let patch = base.join("patch");
    recreate(&base)?;
    let ex = Command::new(jdk.home.join("bin/jimage"))
        .arg("extract")
        .arg("--dir")
        .arg(&orig)
        .arg(jdk.home.join("lib/modules"))
        .output()
        .map_err(|e| format!("cannot run jimage: {e}"))?;
    if !ex.status.success() {
        return Err(format!(
            "jimage extract: {}",
            util::clip(&String::from_utf8_lossy(&ex.stderr), 400)
        ));
    }
    // (module, relative path), sorted.
    let mut all: Vec<(String, PathBuf)> = Vec::new();
    let mut modules: Vec<String> = std::fs::read_dir(&orig)
        .map_err(|e| e.to_string())?
        .flatten()
        .filter(|e| e.path().is_dir())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    modules.sort();
    for m in &modules {
        for f in class_files(&orig.join(m))? {
            all.push((m.clone(), f));
        }
    }
    let linkables: Vec<(String, PathBuf)> = all
        .iter()
        .filter(|(_, f)| linkable(&binary_name(f)))
        .cloned()
        .collect();
    let chosen = every_kth(&linkables, sample);
    // Full run: rewrite everything (module-info and package-info too); sample: the chosen.
    let to_rewrite = if sample.is_some() { &chosen } else { &all };
    let mut st = RewriteStats::default();
    let mut by_module: BTreeMap<&str, Vec<PathBuf>> = BTreeMap::new();
    for (m, f) in to_rewrite {
        by_module.entry(m).or_default().push(f.clone());
    }
    for (m, files) in &by_module {
        rewrite_files(&orig.join(m), &patch.join(m), files, &mut st)?;
    }
    st.report(&format!("{} modules", modules.len()), report);
    // Not patched in: module-info (the JVM ignores it in a patch) and java.lang.Object, which
    // HotSpot special-cases everywhere (it never verifies it, C2 crashed compiling a rewritten
    // Object.<init>); the agent never sees Object either (it loads before any load hook).
    for m in by_module.keys() {
        let _ = std::fs::remove_file(patch.join(m).join("module-info.class"));
    }
    let _ = std::fs::remove_file(patch.join("java.base/java/lang/Object.class"));

    // The stub tracker goes into java.base.
    let stub_dst = patch.join("java.base/jtrace");
    std::fs::create_dir_all(&stub_dst).map_err(|e| e.to_string())?;
    std::fs::copy(
        env.stub.join("jtrace/Tracker.class"),
        stub_dst.join("Tracker.class"),
    )
    .map_err(|e| format!("stub tracker: {e}"))?;

    let list_path = base.join("classes.list");
    let lines: Vec<String> = chosen
        .iter()
        .map(|(m, f)| format!("{m}\t{}", binary_name(f)))
        .collect();
    write_list(&list_path, &lines)?;
    let _ = writeln!(report, "  jdk: {} classes to link", chosen.len());

    let cp = path_str(&env.harness);
    let tail = ["-cp", &cp, "CorpusVerify", "jdk"];
    let mut plain = base_args(&["--add-modules", "ALL-SYSTEM"]);
    plain.extend(tail.iter().map(|s| s.to_string()));
    plain.push(path_str(&list_path));
    let orig_v = java(jdk, &plain);

    let mut patched = base_args(&["--add-modules", "ALL-SYSTEM"]);
    let mut patched_modules: Vec<&str> = by_module.keys().copied().collect();
    if !patched_modules.contains(&"java.base") {
        patched_modules.push("java.base");
    }
    for m in &patched_modules {
        patched.push(format!("--patch-module={m}={}", path_str(&patch.join(m))));
    }
    let mut export_to = vec!["ALL-UNNAMED".to_string()];
    export_to.extend(modules.iter().filter(|m| *m != "java.base").cloned());
    patched.push(format!(
        "--add-exports=java.base/jtrace={}",
        export_to.join(",")
    ));
    patched.extend(tail.iter().map(|s| s.to_string()));
    patched.push(path_str(&list_path));
    let new_v = java(jdk, &patched);
    let mut bad = judge("jdk (patched in)", &orig_v, &new_v, report);

    // The agent, rewriting as classes load.
    let trace = base.join("agent-trace.xml");
    let mut with_agent = base_args(&["--add-modules", "ALL-SYSTEM"]);
    with_agent.push(java::agent_arg(
        agent,
        &format!("out={},include=*,lines=on", path_str(&trace)),
    ));
    with_agent.extend(tail.iter().map(|s| s.to_string()));
    with_agent.push(path_str(&list_path));
    let mut agent_v = java(jdk, &with_agent);
    for l in agent_v.stderr.lines() {
        if l.starts_with("jtrace:") && l.contains("retransform") {
            agent_v.broken.push(l.to_string());
        }
    }
    let ((counts, untouched), invalid) = match trace_end(&trace) {
        Ok(t) => (t, None),
        Err(e) => (((None, None), Vec::new()), Some(e)),
    };
    if let Some(e) = invalid {
        agent_v.broken.push(format!(
            "the agent's trace is not valid: {}",
            util::clip(&e, 600)
        ));
    }
    let _ = std::fs::remove_file(&trace);
    let _ = writeln!(
        report,
        "  agent (include=*, lines=on): {} classes instrumented, {} left untouched",
        counts.0.map_or("?".to_string(), |n| n.to_string()),
        counts.1.map_or("?".to_string(), |n| n.to_string()),
    );
    for u in untouched.iter().take(10) {
        let _ = writeln!(report, "      untouched {}", util::clip(u, 300));
    }
    for l in agent_v.stderr.lines().filter(|l| l.starts_with("jtrace:")) {
        let _ = writeln!(report, "      agent says: {}", util::clip(l, 300));
    }
    if counts.0.is_none() {
        agent_v
            .broken
            .push("the trace has no traceEnd counts".to_string());
    }
    bad.extend(judge("jdk (agent)", &orig_v, &agent_v, report));
    Ok(bad)
}

/// (instrumentedClasses, uninstrumentedClasses) and the `uninstrumentedClass` values.
type TraceEnd = ((Option<u64>, Option<u64>), Vec<String>);

/// From a trace's `traceEnd`: its counts and notes, read by tracecheck, which validates the trace on the
/// way (`Err`: its first violations).
fn trace_end(trace: &Path) -> Result<TraceEnd, String> {
    let summary = tracecheck::check(trace).map_err(|v| util::first_three(&v, 400))?;
    let count = |k: &str| summary.end_counts.get(k).copied();
    let untouched = summary
        .end_notes
        .iter()
        .filter(|(n, _)| n == "uninstrumentedClass")
        .map(|(_, v)| v.clone())
        .collect();
    Ok((
        (count("instrumentedClasses"), count("uninstrumentedClasses")),
        untouched,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_numbers() {
        assert_eq!(
            bucket("bad constant pool entry #123"),
            "bad constant pool entry #N"
        );
        assert_eq!(bucket("a1b22c"), "aNbNc");
    }

    #[test]
    fn samples_every_kth() {
        let v: Vec<u32> = (0..10).collect();
        assert_eq!(every_kth(&v, Some(5)), vec![0, 2, 4, 6, 8]);
        assert_eq!(every_kth(&v, Some(20)), v);
        assert_eq!(every_kth(&v, None), v);
    }

    #[test]
    fn binary_names() {
        assert_eq!(binary_name(Path::new("a/b/C$D.class")), "a.b.C$D");
        assert!(!linkable("a.b.package-info"));
        assert!(linkable("a.b.C"));
    }
}
