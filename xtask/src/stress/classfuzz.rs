//! Class-file robustness: the rewriter (`jtrace::classfile`) fed truncated and mutated
//! class files (seeded from the compiled stress programs, reproducible).
//!
//! 1. In this process, for every mutant: `parse_info` and `instrument` never panic
//!    (caught and counted); an `Err` is the agent's cue to load the original bytes
//!    untouched (agent/src/events/classes.rs).
//! 2. Through the JVM: every mutant is loaded and linked by stress/StressVerifyMutants.java
//!    under `-Xverify:all`, once without the agent and once with it (the agent rewrites
//!    each mutant as it loads, or leaves it alone). A class the verifier accepts without
//!    the agent must be accepted with it, and the trace of that run must be valid.
//!
//! The property tests in agent/src/classfile/fuzz.rs cover the same ground at unit level.

use super::{validate, Ctx, Verdict};
use crate::java;
use jtrace::classfile::{instrument, parse_info, ProbePlan};
use std::collections::BTreeMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;
use std::time::Duration;

const FULL: usize = 3000;
const QUICK: usize = 400;

struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        // xorshift64: reproducible without a dependency.
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n.max(1) as u64) as usize
    }
}

fn mutate(r: &mut Rng, b: &[u8]) -> Vec<u8> {
    let mut m = b.to_vec();
    if r.below(4) == 0 {
        m.truncate(r.below(b.len()));
        return m;
    }
    for _ in 0..1 + r.below(4) {
        let at = r.below(m.len());
        m[at] = match r.below(4) {
            0 => 0,
            1 => 0xff,
            2 => m[at].wrapping_add(1),
            _ => r.below(256) as u8,
        };
    }
    m
}

/// What the rewriter did with one mutant, in this process.
#[derive(PartialEq, Eq, PartialOrd, Ord, Clone, Copy, Debug)]
enum Rewrite {
    Panicked,
    Unparsable,
    Refused,
    Rewritten,
}

fn rewrite(bytes: &[u8]) -> Rewrite {
    let r = catch_unwind(AssertUnwindSafe(|| {
        let Ok(info) = parse_info(bytes) else {
            return Rewrite::Unparsable;
        };
        let ids: Vec<Option<u32>> = info
            .methods
            .iter()
            .enumerate()
            .map(|(i, m)| (m.has_code && m.access & 0x0500 == 0).then_some(i as u32 + 1))
            .collect();
        let plan = ProbePlan {
            tracker: "jtrace/Tracker",
            method_ids: &ids,
            lines: true,
            pad: true,
            windows: &[],
        };
        match instrument(bytes, &plan) {
            // What it emits must at least parse again, with the same methods.
            Ok(out) => match parse_info(&out) {
                Ok(again) if again.methods.len() == info.methods.len() => Rewrite::Rewritten,
                _ => Rewrite::Panicked,
            },
            Err(_) => Rewrite::Refused,
        }
    }));
    r.unwrap_or(Rewrite::Panicked)
}

fn verdicts(stdout: &str) -> BTreeMap<usize, String> {
    stdout
        .lines()
        .filter_map(|l| {
            let (i, v) = l.split_once(' ')?;
            Some((i.parse().ok()?, v.to_string()))
        })
        .collect()
}

fn verify(ctx: &Ctx, list: &Path, trace: Option<&Path>) -> Result<BTreeMap<usize, String>, String> {
    let options = trace.map(|t| format!("out={},lines=on", t.display()));
    let d = java::Run::new(ctx.jdk)
        .agent_if(ctx.agent, options.as_deref())
        .args(["-Xverify:all", "-Xshare:off", "-XX:-UsePerfData"])
        .class_path(ctx.classes)
        .main("StressVerifyMutants")
        .arg(list)
        .finish(&ctx.dir, Duration::from_secs(600))?;
    if d.timed_out || d.code() != Some(0) {
        return Err(format!(
            "{} run: exit {:?}; {}",
            if trace.is_some() { "agent" } else { "plain" },
            d.code(),
            d.stderr_tail()
        ));
    }
    Ok(verdicts(&d.stdout))
}

pub fn run(ctx: &Ctx) -> Verdict {
    let n = if ctx.quick { QUICK } else { FULL };
    let mut seeds: Vec<(String, Vec<u8>)> = std::fs::read_dir(ctx.classes)
        .map(|d| {
            d.flatten()
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|x| x == "class"))
                .filter_map(|p| {
                    let name = p.file_stem()?.to_string_lossy().into_owned();
                    Some((name, std::fs::read(&p).ok()?))
                })
                .collect()
        })
        .unwrap_or_default();
    // The verifier helper itself must stay intact.
    seeds.retain(|(n, _)| !n.starts_with("StressVerifyMutants"));
    seeds.sort();
    if seeds.len() < 5 {
        return Verdict::Fail(format!(
            "only {} seed classes in {}",
            seeds.len(),
            ctx.classes.display()
        ));
    }
    let mut r = Rng(0x2545_F491_4F6C_DD1D ^ u64::from(ctx.jdk.feature));
    let mut counts: BTreeMap<Rewrite, usize> = BTreeMap::new();
    let mut list = String::new();
    let mut panicked = Vec::new();
    for i in 0..n {
        let (name, bytes) = &seeds[r.below(seeds.len())];
        let m = mutate(&mut r, bytes);
        let what = rewrite(&m);
        *counts.entry(what).or_default() += 1;
        let dir = ctx.dir.join("m").join(i.to_string());
        if std::fs::create_dir_all(&dir)
            .and_then(|()| std::fs::write(dir.join(format!("{name}.class")), &m))
            .is_err()
        {
            return Verdict::Fail(format!("cannot write {}", dir.display()));
        }
        if what == Rewrite::Panicked {
            panicked.push(format!("{}/{name}.class", dir.display()));
        }
        list.push_str(&format!("{i}\t{}\t{name}\n", dir.display()));
    }
    if !panicked.is_empty() {
        return Verdict::Fail(format!(
            "the rewriter panicked (or emitted an unparsable class) on {} mutant(s), e.g. {}",
            panicked.len(),
            panicked[0]
        ));
    }
    let list_path = ctx.dir.join("mutants.list");
    if let Err(e) = std::fs::write(&list_path, list) {
        return Verdict::Fail(e.to_string());
    }
    let plain = match verify(ctx, &list_path, None) {
        Ok(v) => v,
        Err(e) => return Verdict::Fail(e),
    };
    let trace = ctx.dir.join("trace.xml");
    let traced = match verify(ctx, &list_path, Some(&trace)) {
        Ok(v) => v,
        Err(e) => return Verdict::Fail(e),
    };
    if plain.len() != n || traced.len() != n {
        return Verdict::Fail(format!(
            "verdicts for {} / {} of {n} mutants",
            plain.len(),
            traced.len()
        ));
    }
    let accepted = plain.values().filter(|v| *v == "OK").count();
    let broken: Vec<String> = plain
        .iter()
        .filter(|(i, v)| *v == "OK" && traced.get(i).is_some_and(|t| t != "OK"))
        .map(|(i, _)| format!("mutant {i}: {}", traced[i]))
        .collect();
    if !broken.is_empty() {
        return Verdict::Fail(format!(
            "{} mutant(s) the JVM accepts untraced were rejected under the agent, e.g. {}",
            broken.len(),
            crate::util::clip(&broken[0], 300)
        ));
    }
    if let Err(e) = validate(&trace) {
        return Verdict::Fail(format!("trace of the agent run: {e}"));
    }
    let c = |k| counts.get(&k).copied().unwrap_or(0);
    let _ = std::fs::remove_dir_all(ctx.dir.join("m"));
    Verdict::Pass(format!(
        "{n} mutants: 0 panics; {} unparsable, {} refused, {} rewritten in-process; \
         {accepted} accepted by the verifier untraced, all of them accepted traced",
        c(Rewrite::Unparsable),
        c(Rewrite::Refused),
        c(Rewrite::Rewritten)
    ))
}
