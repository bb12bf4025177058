//! Aggregates over a valid trace, keyed by readable names, for tests to compare with ground truth.
//!
//! Method keys come in two forms:
//! * full: `pkg.Class.method(signature)`, e.g. `Fib.fib(I)I` or `a.B.-init-()V`;
//! * short: `pkg.Class.method`, which sums (or, for depths, maxes) over all overloads.
//!
//! Every lookup helper accepts either form.

use std::collections::{BTreeMap, BTreeSet};

/// Per-method figures. Several `methodDef`s with the same full key (a class loaded twice)
/// are merged.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MethodStats {
    /// `methodEntry` elements.
    pub entries: u64,
    /// `methodExit` elements.
    pub exits: u64,
    /// Exits of frames an exception was propagating through: the frame had a `throw`
    /// (or a callee exited that way) and no `catch`, callee entry or `line` since.
    pub exception_exits: u64,
    /// Largest `stackDepth` of any entry.
    pub max_depth: u64,
    /// `throw` elements naming this method.
    pub throws: u64,
    /// `catch` elements naming this method.
    pub catches: u64,
    /// Sum of `methodCount@count` (normally exactly one element).
    pub method_count: Option<u64>,
    /// `line@line_number` values seen in this method.
    pub lines: BTreeSet<u64>,
    /// `line` elements per `line_number`.
    pub line_counts: BTreeMap<u64, u64>,
}

/// A window the trace kept (`window` tags): its id, thread, the entries in it, how it
/// ended and the rules that kept it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WindowInfo {
    pub id: String,
    pub thread: String,
    pub calls: u64,
    pub outcome: String,
    pub kept: String,
    /// The test whose window it is (`keep=failed`), "" for a window method's.
    pub test: String,
}

/// One thread of the trace.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ThreadInfo {
    pub id: u64,
    pub name: String,
    pub group: String,
    /// `methodEntry` elements of this thread.
    pub entries: u64,
    /// Frames still open at its `threadEnd` (only possible after `runtimeShutdown`).
    pub open_frames_at_end: u64,
    /// Whether its `threadEnd` came after `runtimeShutdown`.
    pub ended_after_shutdown: bool,
}

/// Allocation figures for one (class name, `isArray`) pair.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AllocStats {
    /// `objAlloc` elements.
    pub count: u64,
    /// Sum of their `size`.
    pub bytes: u64,
    /// Their `aLineNr` values (allocation site lines).
    pub lines: BTreeSet<u64>,
}

/// `monWaited` figures of one thread name (waits on objects; `objIdRef="-1"`, sleeps, aside).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct WaitStats {
    /// `monWaited` elements.
    pub waits: u64,
    /// Sum of `monWaited@timeout` (ms actually waited).
    pub waited_ms: u64,
    /// Those with `isTimedOut="true"`.
    pub timed_out: u64,
}

/// What a valid trace contains.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Summary {
    /// Number of elements of each name, at any depth.
    pub elements: BTreeMap<String, u64>,
    /// Keyed by full method key.
    pub methods: BTreeMap<String, MethodStats>,
    /// `methodEntry` count per (thread name, full method key).
    pub thread_entries: BTreeMap<(String, String), u64>,
    /// In `threadStart` order.
    pub threads: Vec<ThreadInfo>,
    /// Classes defined (dotted names), in `classDef` order, duplicates kept.
    pub classes: Vec<String>,
    /// `classLoader` of each `classDef`, per dotted class name, in `classDef` order.
    pub class_loaders: BTreeMap<String, Vec<String>>,
    /// Numeric `annotation`s of `traceEnd` (the agent's own counts: dropped record
    /// bytes, repaired exits, records of undefined methods or unknown threads).
    pub end_counts: BTreeMap<String, u64>,
    /// The other `annotation`s of `traceEnd`, in order (`uninstrumentedClass`: a class
    /// the agent left alone, and why).
    pub end_notes: Vec<(String, String)>,
    /// Windows (`window` tags), in the order they closed.
    pub windows: Vec<WindowInfo>,
    /// Keyed by (dotted class name, `isArray` code). Class id 0 gives the name `""`.
    pub allocs: BTreeMap<(String, u32), AllocStats>,
    /// Sum of `objAlloc@size`.
    pub alloc_bytes: u64,
    /// `option` elements: key to value (last one wins).
    pub options: BTreeMap<String, String>,
    /// Largest `stackDepth` in the trace.
    pub max_depth: u64,
    /// Whether the trace has a `runtimeShutdown`.
    pub runtime_shutdown: bool,
    /// Classes named by `classUnload` (dotted names), in trace order.
    pub unloaded: Vec<String>,
    /// `monContendedEnter` count per (contending thread name, owner thread name); the owner
    /// is `""` for `threadOwner="0"` (unknown).
    pub contended: BTreeMap<(String, String), u64>,
    /// `monContendedEnter` count per class of the monitor object (`""` when the object's
    /// defining objAlloc/objDef names no class).
    pub contended_classes: BTreeMap<String, u64>,
    /// Per thread name.
    pub waits: BTreeMap<String, WaitStats>,
    /// `methodEntry` count of each `methodDef`, per full method key, in method-id order:
    /// a class defined by several loaders has one entry per definition.
    pub method_defs: BTreeMap<String, Vec<u64>>,
    /// Distinct exception objects thrown (first `throw` of each object id while it is
    /// live), per class of the object (`""` when unknown).
    pub thrown: BTreeMap<String, u64>,
}

fn matches_key(full: &str, key: &str) -> bool {
    if key.contains('(') {
        full == key
    } else {
        full.len() > key.len() && full.starts_with(key) && full.as_bytes()[key.len()] == b'('
    }
}

/// `traceEnd` annotations that count what the agent had to repair or drop: each is 0
/// in an exact trace.
pub const REPAIR_COUNTS: [&str; 4] = [
    "droppedRecordBytes",
    "mismatchedExits",
    "recordsOfUndefinedMethods",
    "recordsOfUnknownThreads",
];

impl Summary {
    /// One line for a valid trace: threads, classes, methods, entries, elements.
    pub fn describe(&self) -> String {
        let entries: u64 = self.methods.values().map(|m| m.entries).sum();
        format!(
            "{} threads, {} classes, {} methods, {entries} method entries, {} elements",
            self.threads.len(),
            self.classes.len(),
            self.methods.len(),
            self.elements.values().sum::<u64>()
        )
    }

    /// The repair counts that are not 0, as `name=value`.
    pub fn repairs(&self) -> Vec<String> {
        REPAIR_COUNTS
            .iter()
            .filter_map(|k| {
                self.end_counts
                    .get(*k)
                    .filter(|&&v| v > 0)
                    .map(|v| format!("{k}={v}"))
            })
            .collect()
    }

    /// Stats of every method matching `key` (full or short form).
    pub fn methods_matching<'a>(&'a self, key: &'a str) -> impl Iterator<Item = &'a MethodStats> {
        self.methods
            .iter()
            .filter(move |(full, _)| matches_key(full, key))
            .map(|(_, m)| m)
    }

    fn sum(&self, key: &str, f: impl Fn(&MethodStats) -> u64) -> u64 {
        self.methods_matching(key).map(f).sum()
    }

    /// Whether any method matches `key`.
    pub fn has_method(&self, key: &str) -> bool {
        self.methods_matching(key).next().is_some()
    }

    pub fn entries(&self, key: &str) -> u64 {
        self.sum(key, |m| m.entries)
    }

    pub fn exits(&self, key: &str) -> u64 {
        self.sum(key, |m| m.exits)
    }

    pub fn exception_exits(&self, key: &str) -> u64 {
        self.sum(key, |m| m.exception_exits)
    }

    pub fn throws(&self, key: &str) -> u64 {
        self.sum(key, |m| m.throws)
    }

    pub fn catches(&self, key: &str) -> u64 {
        self.sum(key, |m| m.catches)
    }

    pub fn method_count(&self, key: &str) -> u64 {
        self.sum(key, |m| m.method_count.unwrap_or(0))
    }

    /// Largest `stackDepth` over the matching methods (0 if none).
    pub fn max_depth_of(&self, key: &str) -> u64 {
        self.methods_matching(key)
            .map(|m| m.max_depth)
            .max()
            .unwrap_or(0)
    }

    /// Union of the line numbers seen in the matching methods.
    pub fn lines_of(&self, key: &str) -> BTreeSet<u64> {
        self.methods_matching(key)
            .flat_map(|m| m.lines.iter().copied())
            .collect()
    }

    /// Entries of `key` made by threads named `thread`.
    pub fn thread_entries_of(&self, thread: &str, key: &str) -> u64 {
        self.thread_entries
            .iter()
            .filter(|((t, full), _)| t == thread && matches_key(full, key))
            .map(|(_, n)| *n)
            .sum()
    }

    /// Number of elements named `name`.
    pub fn count(&self, name: &str) -> u64 {
        self.elements.get(name).copied().unwrap_or(0)
    }

    /// Names of all threads, in start order.
    pub fn thread_names(&self) -> Vec<&str> {
        self.threads.iter().map(|t| t.name.as_str()).collect()
    }

    /// Allocations of class `class` (dotted name; `""` for primitive arrays) with
    /// `isArray` code `is_array`.
    pub fn allocs_of(&self, class: &str, is_array: u32) -> AllocStats {
        self.allocs
            .get(&(class.to_string(), is_array))
            .cloned()
            .unwrap_or_default()
    }

    /// `line` elements with `line_number` `n` in the methods matching `key`.
    pub fn line_count(&self, key: &str, n: u64) -> u64 {
        self.sum(key, |m| m.line_counts.get(&n).copied().unwrap_or(0))
    }

    /// Number of threads whose name starts with `prefix`.
    pub fn threads_named(&self, prefix: &str) -> u64 {
        self.threads
            .iter()
            .filter(|t| t.name.starts_with(prefix))
            .count() as u64
    }

    /// Entries of `key` per thread name, for the threads whose name starts with `prefix`
    /// (threads without such entries included, with 0).
    pub fn entries_by_thread(&self, prefix: &str, key: &str) -> BTreeMap<String, u64> {
        let mut out: BTreeMap<String, u64> = self
            .threads
            .iter()
            .filter(|t| t.name.starts_with(prefix))
            .map(|t| (t.name.clone(), 0))
            .collect();
        for ((thread, full), n) in &self.thread_entries {
            if thread.starts_with(prefix) && matches_key(full, key) {
                *out.entry(thread.clone()).or_default() += n;
            }
        }
        out
    }

    /// `monContendedEnter` elements of threads named `thread` while a thread named
    /// `owner` held the monitor.
    pub fn contended_count(&self, thread: &str, owner: &str) -> u64 {
        self.contended
            .get(&(thread.to_string(), owner.to_string()))
            .copied()
            .unwrap_or(0)
    }

    /// Wait figures of threads named `thread`.
    pub fn waits_of(&self, thread: &str) -> WaitStats {
        self.waits.get(thread).copied().unwrap_or_default()
    }

    /// `gcStart` elements (one per collection).
    pub fn gc_count(&self) -> u64 {
        self.count("gcStart")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_keys_sum_over_overloads_only() {
        let mut s = Summary::default();
        for (k, n) in [("A.f(I)V", 2), ("A.f(J)V", 3), ("A.fg()V", 7)] {
            s.methods.insert(
                k.to_string(),
                MethodStats {
                    entries: n,
                    max_depth: n,
                    ..Default::default()
                },
            );
        }
        assert_eq!(s.entries("A.f"), 5);
        assert_eq!(s.entries("A.f(J)V"), 3);
        assert_eq!(s.entries("A.fg"), 7);
        assert_eq!(s.max_depth_of("A.f"), 3);
        assert!(!s.has_method("A"));
    }
}
