//! Option fuzzing through real JVMs: mutated option strings (seeded, reproducible) given to
//! `-agentpath:libjtrace.so=OPTIONS` with stress/StressFuzzTarget.java. The agent's own
//! parser (`jtrace::options::parse`, called here in-process) is the oracle: a string it
//! accepts must run the program unchanged and leave one valid trace (or, for `help`,
//! print the table and stop); a string it rejects must stop the JVM with a non-zero exit
//! and each of its messages on stderr. Zero crashes, zero hangs. The parser itself is
//! under a property test in agent/src/options.rs.
//!
//! Generated strings never contain `/` or `..`, so every `out` stays inside the
//! case's scratch directory.

use super::{validate, Ctx, Verdict};
use crate::java;
use std::collections::BTreeSet;
use std::path::Path;
use std::time::Duration;

const FULL: usize = 500;
const QUICK: usize = 40;
const TIMEOUT: Duration = Duration::from_secs(60);

const SEEDS: &[&str] = &[
    "mode=bci",
    "mode=jvmti",
    "alloc=exact",
    "alloc=sampled:64k",
    "alloc=sampled:1M",
    "include=StressFuzz*",
    "exclude=*Target;include=*Fuzz*",
    "gc=off,monitors=off",
    "exceptions=off,lines=on",
    "out=t-%p.xml",
    "out=t-%t.xml,mode=bci",
    "lines=on,alloc=sampled:512",
    "include=StressFuzzTarget,exclude=*",
    "help",
    "",
];

const VALUES: &[&str] = &[
    "",
    "-1",
    "0",
    "99999999999999999999999",
    "sampled:0",
    "sampled:k",
    "sampled:18446744073709551615k",
    "%",
    "%q",
    "on",
    "off",
    "ON",
    "*",
    "**",
    "a*b",
    "é",
    "x;;y",
];

const ALPHABET: &[char] = &[
    '=', ',', ';', ':', '*', '%', '.', 'a', 'e', 'o', 'x', 'K', 'm', '0', '1', '9', ' ', '\t', '-',
    '_', '"', '\'', '\\', 'é', '中', '\u{7f}', '\u{1}',
];

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        // xorshift64: reproducible without a dependency.
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

fn mutate(r: &mut Rng, s: &str) -> String {
    let mut chars: Vec<char> = s.chars().collect();
    match r.below(8) {
        0 if !chars.is_empty() => {
            let at = r.below(chars.len());
            chars.remove(at);
        }
        1 => {
            let at = r.below(chars.len() + 1);
            chars.insert(at, ALPHABET[r.below(ALPHABET.len())]);
        }
        2 if !chars.is_empty() => {
            let at = r.below(chars.len());
            chars[at] = ALPHABET[r.below(ALPHABET.len())];
        }
        3 => {
            // Replace a value (or append one to a key without).
            let items: Vec<String> = s.split(',').map(str::to_string).collect();
            let i = r.below(items.len());
            let key = items[i].split('=').next().unwrap_or("").to_string();
            let mut items = items;
            items[i] = format!("{key}={}", VALUES[r.below(VALUES.len())]);
            return items.join(",");
        }
        4 => {
            // Duplicate an item (keys given twice).
            let items: Vec<&str> = s.split(',').collect();
            let i = r.below(items.len());
            return format!("{s},{}", items[i]);
        }
        5 => {
            let other = SEEDS[r.below(SEEDS.len())];
            return format!("{s},{other}");
        }
        6 if !chars.is_empty() => {
            let at = r.below(chars.len());
            chars.truncate(at);
        }
        _ => {
            return s.to_uppercase();
        }
    }
    chars.into_iter().collect()
}

/// `n` distinct mutated strings, none with `/`, `..` or NUL.
fn strings(seed: u64, n: usize) -> Vec<String> {
    let mut r = Rng(seed);
    let mut out = Vec::new();
    let mut seen = BTreeSet::new();
    while out.len() < n {
        let mut s = SEEDS[r.below(SEEDS.len())].to_string();
        for _ in 0..1 + r.below(3) {
            s = mutate(&mut r, &s);
        }
        if s.contains('/') || s.contains("..") || s.contains('\0') || !seen.insert(s.clone()) {
            continue;
        }
        out.push(s);
    }
    out
}

#[derive(Default)]
struct Counts {
    traced: usize,
    refused: usize,
    help: usize,
}

fn files(dir: &Path) -> Vec<std::path::PathBuf> {
    std::fs::read_dir(dir)
        .map(|d| d.flatten().map(|e| e.path()).collect())
        .unwrap_or_default()
}

/// Runs one string; `Err` says what went wrong.
fn one(ctx: &Ctx, dir: &Path, opts: &str, counts: &mut Counts) -> Result<(), String> {
    let d = java::Run::new(ctx.jdk)
        .agent(ctx.agent, opts)
        .arg("-XX:-UsePerfData")
        .class_path(ctx.classes)
        .main("StressFuzzTarget")
        .finish(dir, TIMEOUT)?;
    let crash_log = files(dir).into_iter().find(|p| {
        p.file_name()
            .is_some_and(|n| n.to_string_lossy().starts_with("hs_err"))
    });
    if d.timed_out {
        return Err("hang: killed after 60 s".to_string());
    }
    if d.crashed() || crash_log.is_some() {
        return Err(format!("crash: exit {:?}; {}", d.code(), d.stderr_tail()));
    }
    let written = files(dir);
    match jtrace::options::parse(opts) {
        Ok(o) if o.help => {
            if d.code() != Some(0) || !d.stderr.contains("jtrace options:") || !written.is_empty() {
                return Err(format!(
                    "help: exit {:?}, {} file(s); stderr: {}",
                    d.code(),
                    written.len(),
                    d.stderr_tail()
                ));
            }
            counts.help += 1;
        }
        Ok(_) if d.code() != Some(0) && d.stderr.starts_with("jtrace: cannot write the trace") => {
            // An `out` the file system refuses (a name too long, say): a clear refusal.
            counts.refused += 1;
        }
        Ok(_) => {
            if d.code() != Some(0) || d.stdout != "fuzz 100\n" {
                return Err(format!(
                    "accepted options but exit {:?}, stdout {:?}; stderr: {}",
                    d.code(),
                    crate::util::clip(&d.stdout, 80),
                    d.stderr_tail()
                ));
            }
            let [trace] = written.as_slice() else {
                return Err(format!("{} files written, want one trace", written.len()));
            };
            // Without out= the trace is compact records: rendered, then judged.
            if trace.extension().is_some_and(|e| e == "jtr") {
                let xml = dir.with_extension("rendered.xml");
                crate::util::validate_jtr(&ctx.agent.with_file_name("jtrace"), trace, &xml)?;
            } else {
                validate(trace)?;
            }
            counts.traced += 1;
        }
        Err(errors) => {
            // HotSpot's own two lines when an agent's Agent_OnLoad fails.
            let jvm_only = d.stdout.lines().all(|l| {
                l == "Error occurred during initialization of VM"
                    || l.starts_with("agent library failed")
            });
            if d.code() == Some(0) || !jvm_only {
                return Err(format!(
                    "rejected options but exit {:?}, stdout {:?}",
                    d.code(),
                    crate::util::clip(&d.stdout, 80)
                ));
            }
            if !d.stderr.starts_with("jtrace: invalid agent options:") {
                return Err(format!("refusal does not say why: {}", d.stderr_tail()));
            }
            for e in &errors {
                if !d.stderr.contains(&e.message) {
                    return Err(format!("stderr lacks the problem {:?}", e.message));
                }
            }
            if !written.is_empty() {
                return Err(format!("refused, yet {} file(s) written", written.len()));
            }
            counts.refused += 1;
        }
    }
    Ok(())
}

pub fn run(ctx: &Ctx) -> Verdict {
    let n = if ctx.quick { QUICK } else { FULL };
    // Different strings on each JDK, the same on every run.
    let seed = 0x9E37_79B9_7F4A_7C15 ^ u64::from(ctx.jdk.feature);
    let mut counts = Counts::default();
    let mut failures = Vec::new();
    for (i, opts) in strings(seed, n).iter().enumerate() {
        let dir = ctx.dir.join(format!("run-{i}"));
        if let Err(e) = std::fs::create_dir_all(&dir) {
            return Verdict::Fail(e.to_string());
        }
        match one(ctx, &dir, opts, &mut counts) {
            Ok(()) => {
                let _ = std::fs::remove_dir_all(&dir);
            }
            Err(e) => {
                std::fs::write(dir.join("options.txt"), opts).ok();
                failures.push(format!("{opts:?}: {e}"));
            }
        }
    }
    if failures.is_empty() {
        Verdict::Pass(format!(
            "{n} option strings: {} traced, {} refused, {} help; 0 crashes, 0 hangs",
            counts.traced, counts.refused, counts.help
        ))
    } else {
        Verdict::Fail(format!(
            "{} of {n} failed, e.g. {}",
            failures.len(),
            crate::util::first_three(&failures, 500)
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_are_safe_distinct_and_reproducible() {
        let a = strings(7, 300);
        assert_eq!(a, strings(7, 300));
        assert_eq!(a.iter().collect::<BTreeSet<_>>().len(), 300);
        assert!(a.iter().all(|s| !s.contains('/') && !s.contains("..")));
        // Both outcomes are well represented.
        let ok = a
            .iter()
            .filter(|s| jtrace::options::parse(s).is_ok())
            .count();
        assert!(ok > 30 && ok < 270, "{ok} of 300 accepted");
    }
}
