//! Compares a program's `EXPECT` lines (its own ground truth) with the trace's Summary.
//!
//! | line                                   | compared with                                  |
//! |----------------------------------------|------------------------------------------------|
//! | `EXPECT calls KEY N`                   | methodEntry elements of KEY                    |
//! | `EXPECT exits KEY N`                   | methodExit elements of KEY                     |
//! | `EXPECT exception-exits KEY N`         | exits while an exception propagated (Summary)  |
//! | `EXPECT throws KEY N`                  | throw elements naming KEY                      |
//! | `EXPECT catches KEY N`                 | catch elements naming KEY                      |
//! | `EXPECT max-depth KEY N`               | largest stackDepth of an entry of KEY          |
//! | `EXPECT thread-calls THREAD KEY N`     | entries of KEY on threads named THREAD         |
//! | `EXPECT thread NAME`                   | a threadStart with that threadName exists      |
//! | `EXPECT line KEY N`                    | a line element with line_number N in KEY       |
//! | `EXPECT alloc CLASS ISARRAY N`         | objAlloc count of that class and isArray code  |
//! | `EXPECT allocs CLASS ISARRAY N`        | the same (alias)                               |
//! | `EXPECT allocs-at-most CLASS ISARRAY N`| objAlloc count <= N (sampled mode)             |
//! | `EXPECT alloc-size CLASS ISARRAY BYTES`| sum of their objAlloc@size                     |
//! | `EXPECT alloc-lines CLASS ISARRAY L,L` | exactly this set of aLineNr values             |
//! | `EXPECT alloc-estimate CLASS ISARRAY BYTES PCT` | samples x interval (option `alloc=sampled:INTERVAL`) within PCT % of BYTES |
//! | `EXPECT thrown CLASS N`                | distinct exception objects of CLASS thrown     |
//! | `EXPECT contended THREAD OWNER N`      | monContendedEnter of THREAD, owner named OWNER |
//! | `EXPECT contended-class CLASS N`       | monContendedEnter on objects of CLASS          |
//! | `EXPECT waits THREAD N`                | monWaited of THREAD on objects (not sleeps)    |
//! | `EXPECT waited-at-least THREAD MS`     | sum of THREAD's monWaited@timeout >= MS        |
//! | `EXPECT timed-out THREAD N`            | THREAD's monWaited with isTimedOut="true"      |
//! | `EXPECT gc-at-least N`                 | gcStart elements >= N                          |
//! | `EXPECT unloaded CLASS`                | a classUnload of a class named CLASS           |
//! | `EXPECT classdefs CLASS N`             | classDef elements named CLASS                  |
//! | `EXPECT class-loader CLASS LOADER`     | every classDef of CLASS names LOADER           |
//! | `EXPECT class-calls CLASS METHOD N,N`  | entries of each methodDef of CLASS.METHOD (a multiset) |
//! | `EXPECT lines KEY L,L,...`             | exactly this set of line numbers in KEY        |
//! | `EXPECT line-count KEY LINE N`         | line elements with that line_number in KEY     |
//! | `EXPECT threads-named PREFIX N`        | threadStarts whose name starts with PREFIX     |
//! | `EXPECT prefix-calls PREFIX KEY N`     | entries of KEY on threads named PREFIX...      |
//! | `EXPECT each-thread-calls PREFIX KEY N`| every thread named PREFIX... has N entries of KEY |
//! | `EXPECT elements NAME N`               | number of NAME elements                        |
//! | `EXPECT unloaded-count CLASS N`        | classUnload elements of classes named CLASS    |
//! | `EXPECT per-def-calls KEY DEFS N`      | KEY has DEFS methodDefs, each with N entries   |
//! | `EXPECT exit-code N`                   | the JVM's exit code                            |
//! | `EXPECT end-count NAME N`              | traceEnd's annotation NAME (absent: 0)         |
//! | `EXPECT end-note NAME TEXT...`         | a traceEnd annotation NAME whose value starts with TEXT |
//! | `EXPECT windows THREAD C:O,C:O`        | the windows kept on THREAD, in order: each one's calls and outcome (`-`: none) |
//! | `EXPECT windows-tail THREAD C:O,...`   | a ring's dump: THREAD's kept windows end with these |
//! | `EXPECT windows-at-most THREAD N`      | THREAD has at most N kept windows              |
//! | `EXPECT end-count-at-least NAME N`     | traceEnd's annotation NAME is at least N       |
//!
//! `EXPECT-BCI ...` lines are checked in mode=bci only (what rewriting classes decides).
//!
//! CLASS is a dotted class name (`java.lang.String`, `Outer$Inner`); for primitive arrays
//! (isArray 4..11, which name no class) it is `-`. Line lists are comma-separated without
//! spaces; an empty list is `-`.
//! KEY is `Class.method` (all overloads) or `Class.method(signature)`; nested classes use `$`.

use std::collections::BTreeSet;
use tracecheck::Summary;

fn num(s: &str) -> Result<u64, String> {
    s.parse().map_err(|_| format!("{s:?} is not a number"))
}

/// `-` (primitive arrays) is the class name `""`.
fn class(s: &str) -> &str {
    if s == "-" {
        ""
    } else {
        s
    }
}

fn code(s: &str) -> Result<u32, String> {
    u32::try_from(num(s)?).map_err(|e| e.to_string())
}

/// `L1,L2,...` (or `-` for none) as a set.
fn list(s: &str) -> Result<BTreeSet<u64>, String> {
    if s == "-" {
        return Ok(BTreeSet::new());
    }
    s.split(',').map(num).collect()
}

fn show(set: &BTreeSet<u64>) -> String {
    if set.is_empty() {
        return "-".to_string();
    }
    set.iter().map(u64::to_string).collect::<Vec<_>>().join(",")
}

/// How the trace's figure must relate to the program's.
enum Cmp {
    Eq,
    AtLeast,
    AtMost,
}

/// The sampling interval of `alloc=sampled:BYTES`, from the trace's option elements.
fn sampling_interval(s: &Summary) -> Result<u64, String> {
    let opt = s
        .options
        .get("alloc")
        .ok_or("the trace has no alloc option")?;
    let bytes = opt
        .strip_prefix("sampled:")
        .ok_or_else(|| format!("alloc={opt} is not sampled:BYTES"))?;
    num(bytes)
}

/// Checks one `EXPECT` line (without the `EXPECT ` prefix). `Err` explains the mismatch.
pub fn check_line(
    line: &str,
    summary: Option<&Summary>,
    exit_code: Option<i32>,
) -> Result<(), String> {
    let w: Vec<&str> = line.split_whitespace().collect();
    if let ["exit-code", n] = w.as_slice() {
        let want: i32 = n
            .parse()
            .map_err(|_| format!("{n:?} is not an exit code"))?;
        return if exit_code == Some(want) {
            Ok(())
        } else {
            Err(format!(
                "exit-code: want {want}, JVM exited with {exit_code:?}"
            ))
        };
    }
    let s = summary.ok_or("no trace to compare with")?;
    if let ["end-note", name, ..] = w.as_slice() {
        // The value's text as the line gives it (words joined by one space).
        let want = line
            .split_once(name)
            .map_or(String::new(), |(_, rest)| rest.trim_start().to_string());
        return if s
            .end_notes
            .iter()
            .any(|(n, v)| n == name && v.starts_with(&want))
        {
            Ok(())
        } else {
            Err(format!(
                "end-note {name}: no traceEnd annotation starting {want:?} (has {:?})",
                s.end_notes
            ))
        };
    }
    let windows_of = |thread: &str| -> Vec<String> {
        s.windows
            .iter()
            .filter(|x| x.thread == thread)
            .map(|x| format!("{}:{}", x.calls, x.outcome))
            .collect()
    };
    if let ["windows-tail", thread, list] = w.as_slice() {
        // A ring's dump: the newest windows, in order, end the thread's list.
        let got = windows_of(thread);
        let want: Vec<&str> = list.split(',').collect();
        let tail = &got[got.len().saturating_sub(want.len())..];
        return if tail == want.as_slice() {
            Ok(())
        } else {
            Err(format!(
                "windows-tail {thread}: program's newest are {list}, trace ends {}",
                tail.join(",")
            ))
        };
    }
    if let ["windows-at-most", thread, n] = w.as_slice() {
        let got = windows_of(thread).len() as u64;
        let want = num(n)?;
        return if got <= want {
            Ok(())
        } else {
            Err(format!(
                "windows-at-most {thread}: want at most {want}, trace has {got}"
            ))
        };
    }
    if let ["end-count-at-least", name, n] = w.as_slice() {
        let want = num(n)?;
        let got = s.end_counts.get(*name).copied().unwrap_or(0);
        return if got >= want {
            Ok(())
        } else {
            Err(format!(
                "end-count-at-least {name}: want at least {want}, traceEnd says {got}"
            ))
        };
    }
    if let ["windows", thread, list] = w.as_slice() {
        let got = windows_of(thread);
        let got = if got.is_empty() {
            "-".to_string()
        } else {
            got.join(",")
        };
        return if got == *list {
            Ok(())
        } else {
            Err(format!(
                "windows {thread}: program says {list}, trace has {got}"
            ))
        };
    }
    if let ["end-count", name, n] = w.as_slice() {
        let want = num(n)?;
        let got = s.end_counts.get(*name).copied().unwrap_or(0);
        return if got == want {
            Ok(())
        } else {
            Err(format!(
                "end-count {name}: want {want}, traceEnd says {got}"
            ))
        };
    }
    // Set-valued and relative kinds first.
    match w.as_slice() {
        ["alloc-lines", c, is_array, l] => {
            let want = list(l)?;
            let got = s.allocs_of(class(c), code(is_array)?).lines;
            return if want == got {
                Ok(())
            } else {
                Err(format!(
                    "alloc-lines {c} {is_array}: program says {}, trace has {}",
                    show(&want),
                    show(&got)
                ))
            };
        }
        ["lines", key, l] => {
            let want = list(l)?;
            let got = s.lines_of(key);
            return if want == got {
                Ok(())
            } else {
                Err(format!(
                    "lines {key}: program says {}, trace has {}",
                    show(&want),
                    show(&got)
                ))
            };
        }
        ["alloc-estimate", c, is_array, bytes, pct] => {
            let truth = num(bytes)?;
            let pct = num(pct.trim_end_matches('%'))?;
            let interval = sampling_interval(s)?;
            let samples = s.allocs_of(class(c), code(is_array)?).count;
            let estimate = samples * interval;
            let diff = estimate.abs_diff(truth);
            return if diff * 100 <= truth * pct {
                Ok(())
            } else {
                Err(format!(
                    "alloc-estimate {c} {is_array}: {samples} samples x {interval} B = {estimate} B, program allocated {truth} B (off by {:.1}%, tolerance {pct}%)",
                    diff as f64 * 100.0 / truth.max(1) as f64
                ))
            };
        }
        ["class-calls", c, method, l] => {
            // Entries of each methodDef of CLASS.METHOD, sorted: one figure per class
            // definition (per loader) of a method without overloads.
            let prefix = format!("{c}.{method}(");
            let mut got: Vec<u64> = s
                .method_defs
                .iter()
                .filter(|(k, _)| k.starts_with(&prefix))
                .flat_map(|(_, v)| v.iter().copied())
                .collect();
            got.sort_unstable();
            let mut want: Vec<u64> = l.split(',').map(num).collect::<Result<_, _>>()?;
            want.sort_unstable();
            let show = |v: &[u64]| v.iter().map(u64::to_string).collect::<Vec<_>>().join(",");
            return if want == got {
                Ok(())
            } else {
                Err(format!(
                    "class-calls {c} {method}: program says {} per class, trace has {}",
                    show(&want),
                    show(&got)
                ))
            };
        }
        ["class-loader", c, loader] => {
            let got = s.class_loaders.get(*c).cloned().unwrap_or_default();
            return if !got.is_empty() && got.iter().all(|l| l == loader) {
                Ok(())
            } else {
                Err(format!(
                    "class-loader {c}: program says {loader}, trace's classDefs say {got:?}"
                ))
            };
        }
        ["each-thread-calls", prefix, key, n] => {
            let want = num(n)?;
            let by = s.entries_by_thread(prefix, key);
            let off: Vec<String> = by
                .iter()
                .filter(|(_, &got)| got != want)
                .map(|(t, got)| format!("{t}: {got}"))
                .collect();
            return if off.is_empty() {
                Ok(())
            } else {
                Err(format!(
                    "each-thread-calls {prefix} {key}: program says {want} each, trace has {} of {} threads off (e.g. {})",
                    off.len(),
                    by.len(),
                    crate::util::first_three(&off, 300)
                ))
            };
        }
        ["per-def-calls", key, defs, n] => {
            let (want_defs, want) = (num(defs)?, num(n)?);
            let full: Vec<(&String, &Vec<u64>)> = s
                .method_defs
                .iter()
                .filter(|(k, _)| {
                    *k == key
                        || (!key.contains('(')
                            && k.strip_prefix(*key).is_some_and(|r| r.starts_with('(')))
                })
                .collect();
            let counts: Vec<u64> = full.iter().flat_map(|(_, v)| v.iter().copied()).collect();
            let off = counts.iter().filter(|&&c| c != want).count();
            return if counts.len() as u64 == want_defs && off == 0 {
                Ok(())
            } else {
                let total: u64 = counts.iter().sum();
                Err(format!(
                    "per-def-calls {key}: program says {want_defs} definitions with {want} entries each, \
                     trace has {} definition(s), {off} with another count, {total} entries in all",
                    counts.len()
                ))
            };
        }
        _ => {}
    }
    let (what, want, got, cmp) = match w.as_slice() {
        ["calls", key, n] => (format!("calls {key}"), num(n)?, s.entries(key), Cmp::Eq),
        ["exits", key, n] => (format!("exits {key}"), num(n)?, s.exits(key), Cmp::Eq),
        ["exception-exits", key, n] => (
            format!("exception-exits {key}"),
            num(n)?,
            s.exception_exits(key),
            Cmp::Eq,
        ),
        ["throws", key, n] => (format!("throws {key}"), num(n)?, s.throws(key), Cmp::Eq),
        ["catches", key, n] => (format!("catches {key}"), num(n)?, s.catches(key), Cmp::Eq),
        ["max-depth", key, n] => (
            format!("max-depth {key}"),
            num(n)?,
            s.max_depth_of(key),
            Cmp::Eq,
        ),
        ["thread-calls", thread, key, n] => (
            format!("thread-calls {thread} {key}"),
            num(n)?,
            s.thread_entries_of(thread, key),
            Cmp::Eq,
        ),
        ["thread", name] => (
            format!("thread {name}"),
            1,
            u64::from(s.threads.iter().any(|t| t.name == *name)),
            Cmp::Eq,
        ),
        ["line", key, n] => (
            format!("line {key} {n}"),
            1,
            u64::from(s.lines_of(key).contains(&num(n)?)),
            Cmp::Eq,
        ),
        ["line-count", key, l, n] => (
            format!("line-count {key} {l}"),
            num(n)?,
            s.line_count(key, num(l)?),
            Cmp::Eq,
        ),
        [kind @ ("alloc" | "allocs" | "allocs-at-most"), c, is_array, n] => (
            format!("{kind} {c} {is_array}"),
            num(n)?,
            s.allocs_of(class(c), code(is_array)?).count,
            if *kind == "allocs-at-most" {
                Cmp::AtMost
            } else {
                Cmp::Eq
            },
        ),
        ["alloc-size", c, is_array, n] => (
            format!("alloc-size {c} {is_array}"),
            num(n)?,
            s.allocs_of(class(c), code(is_array)?).bytes,
            Cmp::Eq,
        ),
        ["thrown", c, n] => (
            format!("thrown {c}"),
            num(n)?,
            s.thrown.get(*c).copied().unwrap_or(0),
            Cmp::Eq,
        ),
        ["contended", thread, owner, n] => (
            format!("contended {thread} {owner}"),
            num(n)?,
            s.contended_count(thread, owner),
            Cmp::Eq,
        ),
        ["contended-class", c, n] => (
            format!("contended-class {c}"),
            num(n)?,
            s.contended_classes.get(*c).copied().unwrap_or(0),
            Cmp::Eq,
        ),
        ["waits", thread, n] => (
            format!("waits {thread}"),
            num(n)?,
            s.waits_of(thread).waits,
            Cmp::Eq,
        ),
        ["waited-at-least", thread, ms] => (
            format!("waited-at-least {thread} (ms)"),
            num(ms)?,
            s.waits_of(thread).waited_ms,
            Cmp::AtLeast,
        ),
        ["timed-out", thread, n] => (
            format!("timed-out {thread}"),
            num(n)?,
            s.waits_of(thread).timed_out,
            Cmp::Eq,
        ),
        ["gc-at-least", n] => (
            "gc-at-least (gcStart elements)".to_string(),
            num(n)?,
            s.gc_count(),
            Cmp::AtLeast,
        ),
        ["classdefs", c, n] => (
            format!("classdefs {c}"),
            num(n)?,
            s.classes.iter().filter(|x| x.as_str() == *c).count() as u64,
            Cmp::Eq,
        ),
        ["unloaded", c] => (
            format!("unloaded {c}"),
            1,
            u64::from(s.unloaded.iter().any(|u| u == c)),
            Cmp::Eq,
        ),
        ["threads-named", prefix, n] => (
            format!("threads-named {prefix}"),
            num(n)?,
            s.threads_named(prefix),
            Cmp::Eq,
        ),
        ["prefix-calls", prefix, key, n] => (
            format!("prefix-calls {prefix} {key}"),
            num(n)?,
            s.entries_by_thread(prefix, key).values().sum(),
            Cmp::Eq,
        ),
        ["unloaded-count", c, n] => (
            format!("unloaded-count {c}"),
            num(n)?,
            s.unloaded.iter().filter(|u| u == c).count() as u64,
            Cmp::Eq,
        ),
        ["elements", name, n] => (format!("elements {name}"), num(n)?, s.count(name), Cmp::Eq),
        _ => return Err(format!("unknown EXPECT line {line:?}")),
    };
    let (ok, rel) = match cmp {
        Cmp::Eq => (got == want, ""),
        Cmp::AtLeast => (got >= want, "at least "),
        Cmp::AtMost => (got <= want, "at most "),
    };
    if ok {
        Ok(())
    } else {
        Err(format!("{what}: program says {rel}{want}, trace has {got}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tracecheck::{AllocStats, MethodStats};

    #[test]
    fn compares() {
        let mut s = Summary::default();
        s.methods.insert(
            "A.f(I)V".to_string(),
            MethodStats {
                entries: 3,
                exits: 3,
                ..Default::default()
            },
        );
        s.thread_entries
            .insert(("w-1".to_string(), "A.f(I)V".to_string()), 3);
        assert!(check_line("calls A.f 3", Some(&s), None).is_ok());
        assert!(check_line("calls A.f(I)V 3", Some(&s), None).is_ok());
        assert!(check_line("calls A.f 4", Some(&s), None).is_err());
        assert!(check_line("thread-calls w-1 A.f 3", Some(&s), None).is_ok());
        assert!(check_line("thread-calls w-2 A.f 0", Some(&s), None).is_ok());
        assert!(check_line("exit-code 3", None, Some(3)).is_ok());
        assert!(check_line("exit-code 3", None, Some(0)).is_err());
        assert!(check_line("frobs A.f 3", Some(&s), None).is_err());
    }

    #[test]
    fn families() {
        let mut s = Summary::default();
        s.options
            .insert("alloc".to_string(), "sampled:1000".to_string());
        s.allocs.insert(
            ("".to_string(), 10),
            AllocStats {
                count: 9,
                bytes: 504,
                lines: [12, 14].into_iter().collect(),
            },
        );
        s.unloaded.push("V".to_string());
        s.contended.insert(("b".to_string(), "h".to_string()), 1);
        s.waits.insert(
            "w".to_string(),
            tracecheck::WaitStats {
                waits: 2,
                waited_ms: 250,
                timed_out: 1,
            },
        );
        s.elements.insert("gcStart".to_string(), 3);
        let ok = |l: &str| check_line(l, Some(&s), None);
        assert!(ok("allocs - 10 9").is_ok());
        assert!(ok("allocs-at-most - 10 9").is_ok());
        assert!(ok("allocs-at-most - 10 8").is_err());
        assert!(ok("alloc-size - 10 504").is_ok());
        assert!(ok("alloc-lines - 10 12,14").is_ok());
        assert!(ok("alloc-lines - 10 12").is_err());
        // 9 samples x 1000 B = 9000 B.
        assert!(ok("alloc-estimate - 10 10000 10").is_ok());
        assert!(ok("alloc-estimate - 10 10000 9").is_err());
        assert!(ok("unloaded V").is_ok());
        assert!(ok("unloaded W").is_err());
        assert!(ok("contended b h 1").is_ok());
        assert!(ok("contended h b 1").is_err());
        assert!(ok("waits w 2").is_ok());
        assert!(ok("waited-at-least w 250").is_ok());
        assert!(ok("waited-at-least w 251").is_err());
        assert!(ok("timed-out w 1").is_ok());
        assert!(ok("gc-at-least 3").is_ok());
        assert!(ok("gc-at-least 4").is_err());
        assert!(ok("lines A.f -").is_ok());
        assert!(ok("unloaded-count V 1").is_ok());
        assert!(ok("unloaded-count V 2").is_err());
        let mut s = s.clone();
        s.method_defs.insert("V.f(I)I".to_string(), vec![1, 1, 1]);
        s.classes.extend(["V".to_string(), "V".to_string()]);
        let ok = |l: &str| check_line(l, Some(&s), None);
        assert!(ok("per-def-calls V.f 3 1").is_ok());
        assert!(ok("per-def-calls V.f(I)I 3 1").is_ok());
        assert!(ok("per-def-calls V.f 2 1").is_err());
        assert!(ok("per-def-calls V.f 3 2").is_err());
        assert!(ok("classdefs V 2").is_ok());
    }
}
