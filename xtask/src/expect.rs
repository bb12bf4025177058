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
//! | `EXPECT elements NAME N`               | number of NAME elements                        |
//! | `EXPECT exit-code N`                   | the JVM's exit code                            |
//!
//! KEY is `Class.method` (all overloads) or `Class.method(signature)`; nested classes use `$`.

use tracecheck::Summary;

fn num(s: &str) -> Result<u64, String> {
    s.parse().map_err(|_| format!("{s:?} is not a number"))
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
    let (what, want, got) = match w.as_slice() {
        ["calls", key, n] => (format!("calls {key}"), num(n)?, s.entries(key)),
        ["exits", key, n] => (format!("exits {key}"), num(n)?, s.exits(key)),
        ["exception-exits", key, n] => (
            format!("exception-exits {key}"),
            num(n)?,
            s.exception_exits(key),
        ),
        ["throws", key, n] => (format!("throws {key}"), num(n)?, s.throws(key)),
        ["catches", key, n] => (format!("catches {key}"), num(n)?, s.catches(key)),
        ["max-depth", key, n] => (format!("max-depth {key}"), num(n)?, s.max_depth_of(key)),
        ["thread-calls", thread, key, n] => (
            format!("thread-calls {thread} {key}"),
            num(n)?,
            s.thread_entries_of(thread, key),
        ),
        ["thread", name] => (
            format!("thread {name}"),
            1,
            u64::from(s.threads.iter().any(|t| t.name == *name)),
        ),
        ["line", key, n] => (
            format!("line {key} {n}"),
            1,
            u64::from(s.lines_of(key).contains(&num(n)?)),
        ),
        ["alloc", class, is_array, n] => (
            format!("alloc {class} {is_array}"),
            num(n)?,
            s.allocs_of(
                class,
                u32::try_from(num(is_array)?).map_err(|e| e.to_string())?,
            )
            .count,
        ),
        ["elements", name, n] => (format!("elements {name}"), num(n)?, s.count(name)),
        _ => return Err(format!("unknown EXPECT line {line:?}")),
    };
    if want == got {
        Ok(())
    } else {
        Err(format!("{what}: program says {want}, trace has {got}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tracecheck::MethodStats;

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
}
