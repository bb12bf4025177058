//! Invocation counts made outside a trace, so that `methodCount` keeps TPTP's meaning across traces: every invocation since the class was instrumented, traced or not.
//!
//! While a trace records, the writer counts the entries it replays (no shared
//! counter on the hot path). An entry that is not recorded (no trace is running, or
//! the trace is stopping) is counted here instead, by its probe. Each trace's writer
//! adds what earlier traces counted (`carried`) and what was counted here, and hands
//! its own counts on when it closes. So every invocation is counted exactly once.
//!
//! Tables are indexed by method id (dense from 1) in lazily allocated segments, so a
//! lookup is two array indexes and no lock.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;

const SEGMENT: usize = 4096;
/// 2^24 method ids; ids beyond are not counted outside traces.
const SEGMENTS: usize = 4096;

type Table = [OnceLock<Box<[AtomicU64]>>; SEGMENTS];

static UNTRACED: Table = [const { OnceLock::new() }; SEGMENTS];
static CARRIED: Table = [const { OnceLock::new() }; SEGMENTS];

fn slot(table: &'static Table, mid: u32, create: bool) -> Option<&'static AtomicU64> {
    let (seg, i) = (mid as usize / SEGMENT, mid as usize % SEGMENT);
    let cell = table.get(seg)?;
    let seg = if create {
        cell.get_or_init(|| (0..SEGMENT).map(|_| AtomicU64::new(0)).collect())
    } else {
        cell.get()?
    };
    Some(&seg[i])
}

/// An entry of method `mid` that no trace recorded.
#[inline]
pub fn untraced_entry(mid: u32) {
    if let Some(c) = slot(&UNTRACED, mid, true) {
        c.fetch_add(1, Ordering::Relaxed);
    }
}

/// The method's count since it was instrumented, given the entries the closing
/// trace counted itself.
pub fn total(mid: u32, traced: u64) -> u64 {
    let get = |t| slot(t, mid, false).map_or(0, |c| c.load(Ordering::Relaxed));
    get(&CARRIED) + traced + get(&UNTRACED)
}

/// A trace closed having counted `traced` entries of `mid`: later traces include them.
pub fn carry(mid: u32, traced: u64) {
    if traced > 0 {
        if let Some(c) = slot(&CARRIED, mid, true) {
            c.fetch_add(traced, Ordering::Relaxed);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_add_up_across_traces() {
        let mid = 70_000;
        assert_eq!(total(mid, 5), 5);
        carry(mid, 5);
        untraced_entry(mid);
        untraced_entry(mid);
        assert_eq!(total(mid, 3), 10);
        assert_eq!(
            total(u32::MAX, 1),
            1,
            "ids beyond the table still count their own"
        );
    }
}
