//! Invocation counts made outside a trace, so that `methodCount` keeps TPTP's meaning across traces: every invocation since the class was instrumented, traced or not.
//!
//! While a trace records, its renderer counts the entries it replays (no shared
//! counter on the hot path). An entry that is not recorded (no trace is running, or
//! the trace is stopping) is counted here instead, by its probe. A trace's finish
//! carries the count base (`base`: counted here plus what earlier traces counted),
//! which the renderer adds to its own entries, and the renderer's own counts are
//! carried on when it is done. So every invocation is counted exactly once.
//!
//! Tables are indexed by method id (dense from 1) in lazily allocated segments, so a
//! lookup is two array indexes and no lock.

pub mod idle;

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

/// The agent goes idle (loaded with `start=off`, or a trace stopped): with `counts=all`
/// every entry of a traced method keeps calling the agent, which an idle agent's user
/// should know; said once on stderr.
pub fn note_idle(counts_all: bool) {
    if counts_all {
        crate::log::log_once(
            "counts=all: until the next start every entry of a traced method is counted: \
             about 2 ns per call, a call into the agent on virtual threads, and a server \
             measured 1.2-1.7x slower (its JIT works longer); counts=traced, the default, \
             costs a field read",
        );
    }
}

/// An entry of method `mid` that no trace recorded.
#[inline]
pub fn untraced_entry(mid: u32) {
    if let Some(c) = slot(&UNTRACED, mid, true) {
        c.fetch_add(1, Ordering::Relaxed);
    }
}

/// Every method's invocations outside the trace that is closing: counted between
/// traces (by the agent, and per thread by the tracker's Java code with `counts=all`,
/// `idle`), plus the entries earlier traces counted (method id, count; zeros
/// left out).
pub fn base() -> Vec<(u32, u64)> {
    let java =
        crate::state::try_agent().map_or_else(Vec::new, |a| crate::counts::idle::sum(a.jvmti));
    let mut v = Vec::new();
    for (seg, (u, c)) in UNTRACED.iter().zip(CARRIED.iter()).enumerate() {
        let (u, c) = (u.get(), c.get());
        let in_java = java.len() > seg * SEGMENT;
        if u.is_none() && c.is_none() && !in_java {
            continue;
        }
        for i in 0..SEGMENT {
            let get = |t: Option<&Box<[AtomicU64]>>| t.map_or(0, |t| t[i].load(Ordering::Relaxed));
            let mid = seg * SEGMENT + i;
            let n = get(u) + get(c) + java.get(mid).copied().unwrap_or(0);
            if n > 0 {
                v.push((mid as u32, n));
            }
        }
    }
    v
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
        assert!(!base().iter().any(|&(m, _)| m == mid));
        carry(mid, 5);
        untraced_entry(mid);
        untraced_entry(mid);
        assert!(base().contains(&(mid, 7)));
        untraced_entry(u32::MAX);
        assert!(
            !base().iter().any(|&(m, _)| m == u32::MAX),
            "beyond the table"
        );
    }
}
