//! Windows (`window=`, `keep=`): which methods open one, a thread's open window and the rules that decide, while recording, whether it is written; the counts the trace ends with.
//!
//! With `window=`, a thread records only while it is inside a call of a window method
//! (a window call nested in another is part of the outer one). The records of a window
//! whose fate is open wait in its thread's memory (`Open::held`) until a rule decides:
//! kept, they go to the sink behind a `window` tag that opens it; dropped, they are
//! discarded. A window is written as it grows once it can only be kept (its thread's
//! clock past `over:`). `sample:1/N` decides when the window opens, so a window it does
//! not choose (and no other rule could keep) records nothing at all.
//!
//! This module is the decisions and the counts; `buffer.rs` owns the per-thread state
//! (touched under the buffer's busy flag, as its chunk is) and moves the records.

use crate::options::{Keep, Options};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock};
use trace::defs::TagDef;

/// Method ids up to this many can be window methods (a bit each: 2 MiB).
const MAX_METHODS: usize = 1 << 24;

/// Windows are in force (`window=` given).
static ON: AtomicBool = AtomicBool::new(false);
/// One bit per method id: the method opens a window.
static METHODS: OnceLock<Box<[AtomicU64]>> = OnceLock::new();
static RULES: OnceLock<Rules> = OnceLock::new();

/// Counts of the trace being recorded (taken and reset at its close).
static SEEN: AtomicU64 = AtomicU64::new(0);
static KEPT: AtomicU64 = AtomicU64::new(0);
static KEPT_OVER: AtomicU64 = AtomicU64::new(0);
static KEPT_EXCEPTION: AtomicU64 = AtomicU64::new(0);
static KEPT_SAMPLE: AtomicU64 = AtomicU64::new(0);
static KEPT_FAILED: AtomicU64 = AtomicU64::new(0);
static TOO_LARGE: AtomicU64 = AtomicU64::new(0);
static OPEN_AT_CLOSE: AtomicU64 = AtomicU64::new(0);
/// Window ids, counting up from 1 over the whole run (never reused).
static NEXT_ID: AtomicU64 = AtomicU64::new(1);
/// Windows opened, for `sample:1/N`.
static OPENED: AtomicU64 = AtomicU64::new(0);
/// Some window method was defined (else the close says window= matched nothing).
static MATCHED: AtomicBool = AtomicBool::new(false);

/// Threads inside a window that records (Kept, or whose fate is open), and the hook
/// that tells the tracker's probes whether there are any (`windows` != 0: the probes of
/// other methods call the agent). Changed under this lock, so the field the probes read
/// is 0 exactly when the count is (a window opens or closes once per request: rare).
static RECORDING: Mutex<u64> = Mutex::new(0);
static GATE: OnceLock<fn(bool)> = OnceLock::new();

/// Installs the hook that sets the tracker's `windows` field (mode=bci).
pub fn set_gate(hook: fn(bool)) {
    let _ = GATE.set(hook);
}

/// A thread's window began to record (counted in `Open::counted`).
pub fn entered() {
    if let Ok(mut n) = RECORDING.lock() {
        *n += 1;
        if *n == 1 {
            if let Some(g) = GATE.get() {
                g(true);
            }
        }
    }
}

/// A thread's recording window ended or was dropped.
pub fn left() {
    if let Ok(mut n) = RECORDING.lock() {
        *n = n.saturating_sub(1);
        if *n == 0 {
            if let Some(g) = GATE.get() {
                g(false);
            }
        }
    }
}

/// A new trace begins with no window open (every thread's window was settled or
/// discarded).
pub fn reset_gate() {
    if let Ok(mut n) = RECORDING.lock() {
        if *n != 0 {
            *n = 0;
            if let Some(g) = GATE.get() {
                g(false);
            }
        }
    }
}

/// The rules in force.
#[derive(Debug, Clone, Copy)]
pub struct Rules {
    pub keep: Keep,
    /// Bytes one window may hold back.
    pub max: usize,
}

/// Installs the windows of `options` (at load); nothing when it names none.
pub fn init(options: &Options) {
    if !options.windowed() {
        return;
    }
    let _ = RULES.set(Rules {
        keep: options.keep,
        max: usize::try_from(options.window_max).unwrap_or(usize::MAX),
    });
    if !options.windows.is_empty() {
        METHODS.get_or_init(|| (0..MAX_METHODS / 64).map(|_| AtomicU64::new(0)).collect());
    } else {
        // The tests are the windows (`keep=failed`): no method to match.
        MATCHED.store(true, Ordering::Relaxed);
    }
    ON.store(true, Ordering::Release);
}

/// Windows are in force.
#[inline(always)]
pub fn on() -> bool {
    ON.load(Ordering::Relaxed)
}

/// The rules in force (windows on).
fn rules() -> Rules {
    RULES.get().copied().unwrap_or(Rules {
        keep: Keep::default(),
        max: usize::MAX,
    })
}

/// Whether method `mid` opens a window.
#[inline(always)]
pub fn is_window(mid: u32) -> bool {
    let i = mid as usize;
    METHODS
        .get()
        .and_then(|m| m.get(i / 64))
        .is_some_and(|w| w.load(Ordering::Relaxed) & (1 << (i % 64)) != 0)
}

/// Marks the methods of a traced class `window=` names (at its load hook, before any
/// of them runs). `first_mid`: the id of its first method, the others following.
pub fn mark_class<'a>(
    options: &Options,
    dotted_class: &str,
    first_mid: u32,
    methods: impl Iterator<Item = &'a str>,
) {
    let Some(bits) = METHODS.get() else { return };
    for (i, name) in methods.enumerate() {
        if !options
            .windows
            .iter()
            .any(|p| p.matches(dotted_class, name))
        {
            continue;
        }
        let mid = first_mid as usize + i;
        if let Some(w) = bits.get(mid / 64) {
            w.fetch_or(1 << (mid % 64), Ordering::Relaxed);
            MATCHED.store(true, Ordering::Relaxed);
        } else {
            crate::log::log_once(&format!(
                "window method {dotted_class}.{name} has method id {mid}, past the {MAX_METHODS} \
                 window methods can have: its calls are not windows"
            ));
        }
    }
}

/// What is to become of a window's records.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fate {
    /// Held in the thread's memory until a rule decides.
    Open,
    /// Written (as it grows); the reasons, as `Reason` bits.
    Kept(u8),
    /// Recorded by no one: not chosen by `sample:` and no other rule could keep it, or
    /// dropped (too large).
    Dropped,
}

/// Why a window was kept (bits of `Fate::Kept`).
pub const BY_ALL: u8 = 1;
pub const BY_OVER: u8 = 2;
pub const BY_EXCEPTION: u8 = 4;
pub const BY_SAMPLE: u8 = 8;
pub const BY_FAILED: u8 = 16;

/// A thread's open window.
#[derive(Debug)]
pub struct Open {
    pub id: u64,
    /// The window method (0 for a test's window).
    pub mid: u32,
    /// A test's window (`keep=failed`): the test's id, as its marks give it. Its
    /// depth counts the frames entered inside it (an exit at depth 0 is of a frame
    /// entered before: not the window's), and its marks open and close it.
    pub test: Option<String>,
    /// Its entry's tick.
    pub start: u64,
    /// The tick past which `over:` keeps it (u64::MAX: no such rule).
    pub over_at: u64,
    /// Window-method frames open (the window's own and nested ones).
    pub depth: u32,
    pub fate: Fate,
    /// Full chunks held back while the fate is open.
    pub held: Vec<Vec<u8>>,
    pub held_bytes: usize,
    /// Entries recorded in it.
    pub calls: u64,
    /// Its opening tag was sent (its fate became Kept).
    pub announced: bool,
    /// It ended by an exception.
    pub threw: bool,
    /// It was dropped for outgrowing `window-max=`.
    pub overflowed: bool,
    /// It is counted among the windows that record (`entered`).
    pub counted: bool,
}

impl Open {
    /// Counts it among the windows that record, if it records.
    pub fn enter(&mut self) {
        if self.recording() && !self.counted {
            self.counted = true;
            entered();
        }
    }

    /// No longer counted among the windows that record.
    pub fn leave(&mut self) {
        if self.counted {
            self.counted = false;
            left();
        }
    }
}

/// Opens a window at the entry of window method `mid` at tick `start`.
pub fn open(mid: u32, start: u64) -> Open {
    new_open(mid, None, start)
}

/// Opens the window of test `id` (its start mark) at tick `start` (`keep=failed`).
pub fn open_test(id: &str, start: u64) -> Open {
    let mut w = new_open(0, Some(id.to_string()), start);
    w.depth = 0;
    w
}

/// Whether tests are windows (`keep=failed`).
pub fn tests_are_windows() -> bool {
    on() && rules().keep.failed
}

fn new_open(mid: u32, test: Option<String>, start: u64) -> Open {
    let r = rules();
    SEEN.fetch_add(1, Ordering::Relaxed);
    let n = OPENED.fetch_add(1, Ordering::Relaxed);
    let sampled = r.keep.sample.is_some_and(|k| n.is_multiple_of(k));
    let fate = if r.keep.all() {
        Fate::Kept(BY_ALL)
    } else if sampled {
        Fate::Kept(BY_SAMPLE)
    } else if r.keep.over_ms.is_none() && !r.keep.exception && !(test.is_some() && r.keep.failed) {
        Fate::Dropped
    } else {
        Fate::Open
    };
    let over_at = match (r.keep.over_ms, fate) {
        (Some(ms), Fate::Open | Fate::Kept(_)) => {
            start.saturating_add(crate::clock::ticks_in_ns(ms.saturating_mul(1_000_000)))
        }
        _ => u64::MAX,
    };
    Open {
        id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
        mid,
        test,
        start,
        over_at,
        depth: 1,
        fate,
        held: Vec::new(),
        held_bytes: 0,
        calls: 0,
        announced: false,
        threw: false,
        overflowed: false,
        counted: false,
    }
}

impl Open {
    /// Whether its records are kept in memory for now.
    pub fn holding(&self) -> bool {
        self.fate == Fate::Open
    }

    /// Whether its records are recorded at all.
    pub fn recording(&self) -> bool {
        self.fate != Fate::Dropped
    }

    /// The fate at its end (`threw`: left by an exception; `end`: its last tick).
    pub fn decide(&mut self, threw: bool, end: u64) -> Fate {
        let r = rules();
        self.threw = threw;
        let mut why = match self.fate {
            Fate::Kept(w) => w,
            Fate::Dropped => return Fate::Dropped,
            Fate::Open => 0,
        };
        if end >= self.over_at {
            why |= BY_OVER;
        }
        if threw && r.keep.exception {
            why |= BY_EXCEPTION;
        }
        self.fate = if why == 0 {
            Fate::Dropped
        } else {
            Fate::Kept(why)
        };
        self.fate
    }

    /// The fate of a test's window at its end mark (`failed`: the test failed).
    pub fn decide_test(&mut self, failed: bool, end: u64) -> Fate {
        let fate = self.decide(failed, end);
        if failed && rules().keep.failed {
            let why = match fate {
                Fate::Kept(w) => w,
                _ => 0,
            };
            self.fate = Fate::Kept(why | BY_FAILED);
        }
        self.fate
    }

    /// What names the window in its tags: its method, or its test.
    fn subject(&self) -> (String, String) {
        match &self.test {
            Some(t) => ("test".into(), t.clone()),
            None => ("methodIdRef".into(), self.mid.to_string()),
        }
    }

    /// The fate at a trace's close or its thread's end with the window still open: kept
    /// only by what is known already (`over:` past, or kept before).
    pub fn decide_open(&mut self, now: u64) -> Fate {
        if self.fate == Fate::Open && now >= self.over_at {
            self.fate = Fate::Kept(BY_OVER);
        } else if self.fate == Fate::Open {
            self.fate = Fate::Dropped;
        }
        self.fate
    }

    /// Bytes it may hold back (`window-max=`).
    pub fn max_bytes(&self) -> usize {
        rules().max
    }

    /// The tag that opens a kept window in the trace, at its entry.
    pub fn start_tag(&self, tid: u32) -> TagDef {
        TagDef {
            tid,
            t: self.start,
            name: TAG.to_string(),
            fields: vec![
                ("event".into(), "start".into()),
                ("id".into(), self.id.to_string()),
                self.subject(),
            ],
        }
    }

    /// The tag that closes a kept window: `outcome` `returned`, `threw` or `open` (the
    /// trace closed or its thread ended first).
    pub fn end_tag(&self, tid: u32, t: u64, outcome: &str) -> TagDef {
        let why = match self.fate {
            Fate::Kept(w) => w,
            _ => 0,
        };
        let kept: Vec<&str> = [
            (BY_ALL, "all"),
            (BY_OVER, "over"),
            (BY_EXCEPTION, "exception"),
            (BY_SAMPLE, "sample"),
            (BY_FAILED, "failed"),
        ]
        .into_iter()
        .filter(|(b, _)| why & b != 0)
        .map(|(_, n)| n)
        .collect();
        TagDef {
            tid,
            t,
            name: TAG.to_string(),
            fields: vec![
                ("event".into(), "end".into()),
                ("id".into(), self.id.to_string()),
                self.subject(),
                ("outcome".into(), outcome.into()),
                ("calls".into(), self.calls.to_string()),
                ("kept".into(), kept.join("|")),
            ],
        }
    }
}

/// The name of the tags that open and close a window.
pub const TAG: &str = "window";

/// A window's end is counted: kept (by its reasons) or not; `too_large`: dropped for
/// outgrowing `window-max=`; `open`: the trace closed or the thread ended inside it.
pub fn count(fate: Fate, too_large: bool, open: bool) {
    if let Fate::Kept(why) = fate {
        KEPT.fetch_add(1, Ordering::Relaxed);
        for (bit, n) in [
            (BY_OVER, &KEPT_OVER),
            (BY_EXCEPTION, &KEPT_EXCEPTION),
            (BY_SAMPLE, &KEPT_SAMPLE),
            (BY_FAILED, &KEPT_FAILED),
        ] {
            if why & bit != 0 {
                n.fetch_add(1, Ordering::Relaxed);
            }
        }
    }
    if too_large {
        TOO_LARGE.fetch_add(1, Ordering::Relaxed);
    }
    if open {
        OPEN_AT_CLOSE.fetch_add(1, Ordering::Relaxed);
    }
}

/// The counts of the trace closing now, as `traceEnd` annotations (empty without
/// windows), and reset for the next trace.
pub fn take_counts() -> Vec<(String, u64)> {
    counts(true)
}

/// The counts so far, as `traceEnd` annotations (a ring's dump), kept.
pub fn peek_counts() -> Vec<(String, u64)> {
    counts(false)
}

fn counts(reset: bool) -> Vec<(String, u64)> {
    if !on() {
        return Vec::new();
    }
    let r = rules();
    let take = |c: &AtomicU64| {
        if reset {
            c.swap(0, Ordering::Relaxed)
        } else {
            c.load(Ordering::Relaxed)
        }
    };
    let mut notes = vec![("windowsSeen", take(&SEEN)), ("windowsKept", take(&KEPT))];
    for (on, name, c) in [
        (r.keep.over_ms.is_some(), "windowsKeptOver", &KEPT_OVER),
        (r.keep.exception, "windowsKeptException", &KEPT_EXCEPTION),
        (r.keep.sample.is_some(), "windowsKeptSample", &KEPT_SAMPLE),
        (r.keep.failed, "windowsKeptFailed", &KEPT_FAILED),
    ] {
        let n = take(c);
        if on {
            notes.push((name, n));
        }
    }
    notes.push(("windowsTooLarge", take(&TOO_LARGE)));
    notes.push(("windowsOpenAtClose", take(&OPEN_AT_CLOSE)));
    notes.into_iter().map(|(n, v)| (n.to_string(), v)).collect()
}

/// The closing line's words on windows: seen, kept, and what matched nothing.
pub fn closing_words(notes: &[(String, u64)]) -> Option<String> {
    if !on() {
        return None;
    }
    let get = |n: &str| notes.iter().find(|(k, _)| k == n).map_or(0, |(_, v)| *v);
    let mut s = format!(
        "windows: {} seen, {} kept ({})",
        get("windowsSeen"),
        get("windowsKept"),
        rules().keep.value()
    );
    for (n, what) in [
        ("windowsTooLarge", "too large to hold"),
        ("windowsOpenAtClose", "open at the close"),
    ] {
        if get(n) > 0 {
            s.push_str(&format!(", {} {what}", get(n)));
        }
    }
    if !MATCHED.load(Ordering::Relaxed) {
        s.push_str(", window= matched no traced method");
    }
    Some(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn open_with(fate: Fate, over_at: u64) -> Open {
        Open {
            fate,
            over_at,
            ..new_open(7, None, 100)
        }
    }

    #[test]
    fn over_keeps_only_what_passed_it() {
        let mut w = open_with(Fate::Open, 200);
        assert_eq!(w.decide(false, 199), Fate::Dropped);
        let mut w = open_with(Fate::Open, 200);
        assert_eq!(w.decide(false, 200), Fate::Kept(BY_OVER));
        let mut w = open_with(Fate::Open, 200);
        assert_eq!(w.decide_open(150), Fate::Dropped);
        let mut w = open_with(Fate::Open, 200);
        assert_eq!(w.decide_open(250), Fate::Kept(BY_OVER));
    }

    #[test]
    fn a_kept_window_keeps_its_reasons_and_a_dropped_one_stays_dropped() {
        let mut w = open_with(Fate::Kept(BY_SAMPLE), 200);
        assert_eq!(w.decide(false, 300), Fate::Kept(BY_SAMPLE | BY_OVER));
        let mut w = open_with(Fate::Dropped, 200);
        assert_eq!(w.decide(true, 300), Fate::Dropped);
        let end = open_with(Fate::Kept(BY_OVER | BY_SAMPLE), 0).end_tag(3, 9, "returned");
        assert!(end.fields.contains(&("kept".into(), "over|sample".into())));
    }
}
