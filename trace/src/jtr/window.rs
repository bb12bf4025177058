//! A time window of a `.jtr` read through its index: each thread resumes at its first chunk that reaches the window, its open frames rebuilt from the few earlier chunks that left them (the index's resume points), and nothing of it after the window's end is read.
//!
//! What comes out: every definition, the VM's records up to the window's end, the
//! allocations before it (they name the classes of objects thrown or locked inside
//! it), and for each thread wanted the entries of the frames open where it resumes
//! (at their own times and tickets), its wait or contended enter still pending there,
//! then its records from there to the window's end as the whole replay gives them.
//! An answer that uses nothing before the window but the frames open at its start,
//! and nothing after its end, is the whole replay's answer (the command's model keeps
//! to that rule for windows; see docs/JTR_FORMAT.md, "5: index").

use super::index::{ChunkEntry, Resume, LINES, PENDING};
use super::{allocs_only, message, rendered, Block, JtrError, JtrReader, Rendered, Threads};
use crate::render::{Output, Renderer};
use std::io::{Read, Seek};

/// Which threads an answer is about, by id and name.
pub type Wanted<'a> = Box<dyn FnMut(u32, &str) -> bool + 'a>;

/// A time window, in nanoseconds from the trace's start (its `traceStart`).
#[derive(Debug, Clone, Copy, Default)]
pub struct Window {
    pub from: Option<u64>,
    pub to: Option<u64>,
}

/// What the reader does with one chunk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Act {
    /// Seek past it.
    Skip,
    /// Its allocation records alone.
    Allocs,
    /// All of it.
    Whole,
    /// Its allocations, then its thread's stack rebuilt from its resume point.
    Rebuild { cap: u32 },
    /// Its thread's end alone (after the window: answers give threads' lifetimes).
    End { deferred: bool },
}

/// A thread's resume: the tickets given before it (None: as rebuilt) and the latest
/// time of its records before it.
#[derive(Debug, Clone, Copy)]
struct Resumption {
    tickets: Option<u64>,
    last_ns: u64,
    /// Frames that must be open then (checked).
    depth: Option<u32>,
    /// The exception pending then, and the method it left last.
    exception: Option<(u64, u32)>,
}

/// Per index entry: what to do with it, and a resume before or after it.
pub(super) struct Plan {
    acts: Vec<Act>,
    before: Vec<Option<Resumption>>,
    after: Vec<Option<Resumption>>,
}

/// The plan for `window` (absolute nanoseconds) over `index`; `ns` converts ticks.
pub(super) fn plan(index: &[ChunkEntry], (from, to): (u64, u64), ns: impl Fn(u64) -> u64) -> Plan {
    let n = index.len();
    let mut p = Plan {
        acts: vec![Act::Skip; n],
        before: vec![None; n],
        after: vec![None; n],
    };
    let range = |e: &ChunkEntry| e.tick_range().map(|(a, b)| (ns(a), ns(b)));
    let mut by_thread: std::collections::BTreeMap<u32, Vec<usize>> = Default::default();
    for (i, e) in index.iter().enumerate() {
        by_thread.entry(e.tid).or_default().push(i);
    }
    for (tid, chunks) in by_thread {
        if tid == 0 {
            // The VM's stream (collections, frees): up to the window's end.
            for i in chunks {
                if range(&index[i]).is_none_or(|(a, _)| a <= to) {
                    p.acts[i] = Act::Whole;
                }
            }
            continue;
        }
        let (mut pre, mut first_in) = (Vec::new(), None);
        for &i in &chunks {
            let r = range(&index[i]);
            if first_in.is_none() {
                match r {
                    Some((_, b)) if b >= from => first_in = Some(i),
                    _ => {
                        pre.push(i);
                        continue;
                    }
                }
            }
            if r.is_none_or(|(a, _)| a <= to) {
                p.acts[i] = Act::Whole;
            } else if index[i].thread_end {
                let deferred = index[i].resume.is_some_and(|r| r.end > 0);
                p.acts[i] = Act::End { deferred };
            }
        }
        pre_acts(index, &pre, first_in, &range, &mut p, true);
    }
    p
}

/// The acts for thread chunks `pre` (in order) before the first one read whole,
/// `first_in` (None: none is), and the thread's resume around them: the chunks that
/// left frames open there are rebuilt, the others read for their allocations or
/// skipped. `exception`: the resume carries the exception pending there.
fn pre_acts(
    index: &[ChunkEntry],
    pre: &[usize],
    first_in: Option<usize>,
    range: &impl Fn(&ChunkEntry) -> Option<(u64, u64)>,
    p: &mut Plan,
    exception: bool,
) {
    {
        let res = |i: usize| index[i].resume.unwrap_or_default();
        let last_ns = pre
            .iter()
            .filter_map(|&i| range(&index[i]))
            .map(|(_, b)| b)
            .max()
            .unwrap_or(0);
        let mut need = match (first_in, pre.last()) {
            (Some(w), _) => res(w).depth,
            (None, Some(&l)) => res(l).end,
            (None, None) => 0,
        };
        // The last chunks before the window with a wait or enter pending at their
        // end are read from where it began; the last one, for the thread's end.
        let mut trailing = true;
        for (k, &i) in pre.iter().enumerate().rev() {
            let r = res(i);
            let last = k + 1 == pre.len();
            trailing &= r.flags & PENDING != 0;
            let special = trailing || last && index[i].thread_end;
            p.acts[i] = if r.min < need || special {
                let cap = need;
                need = need.min(r.min);
                Act::Rebuild { cap }
            } else if index[i].allocs {
                Act::Allocs
            } else {
                Act::Skip
            };
        }
        let pending = pre
            .last()
            .and_then(|&l| res(l).end_state)
            .and_then(|e| e.exception)
            .filter(|_| exception);
        let resumption = |tickets, depth| Resumption {
            tickets,
            last_ns,
            depth,
            exception: pending,
        };
        match (first_in, pre.last()) {
            (Some(w), Some(_)) => {
                p.before[w] = Some(resumption(Some(res(w).tickets), Some(res(w).depth)))
            }
            (None, Some(&l)) => p.after[l] = Some(resumption(None, Some(res(l).end))),
            _ => {}
        }
    }
}

/// One thread's records cut in two at one of its chunks, for two workers
/// (`jtrace --jobs` on a trace whose calls are nearly all one thread's).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cut {
    pub tid: u32,
    /// The position in the index of the thread's first chunk after the cut.
    pub at: usize,
    /// Which part this read gives: the records before the cut (and no other thread's
    /// but their allocations), or those after it, the frames open at the cut rebuilt
    /// first, with every other thread `wanted` accepts whole.
    pub after: bool,
}

/// The plan for one part of `cut`.
pub(super) fn plan_cut(index: &[ChunkEntry], cut: Cut, ns: impl Fn(u64) -> u64) -> Plan {
    let n = index.len();
    let mut p = Plan {
        acts: vec![Act::Whole; n],
        before: vec![None; n],
        after: vec![None; n],
    };
    let mine: Vec<usize> = (0..n).filter(|&i| index[i].tid == cut.tid).collect();
    let (pre, rest): (Vec<usize>, Vec<usize>) = mine.iter().partition(|&&i| i < cut.at);
    if cut.after {
        let range = |e: &ChunkEntry| e.tick_range().map(|(a, b)| (ns(a), ns(b)));
        pre_acts(index, &pre, rest.first().copied(), &range, &mut p, false);
    } else {
        for i in rest {
            p.acts[i] = Act::Skip;
        }
    }
    p
}

/// Whether a reader can resume threads exactly with `index`: it has resume points,
/// and with line records, each chunk's end state (the last line of the frame it
/// starts in).
pub fn resumable(index: &[ChunkEntry]) -> bool {
    let lines = index
        .iter()
        .any(|e| e.resume.is_some_and(|r| r.flags & LINES != 0));
    !index.is_empty()
        && index
            .iter()
            .all(|e| e.resume.is_some_and(|r| !lines || r.end_state.is_some()))
}

/// Replays `r` by plan `p`.
pub(super) fn windowed<R: Read + Seek, O: Output>(
    mut r: JtrReader<R>,
    index: &[ChunkEntry],
    p: Plan,
    mut out: Renderer<O>,
    mut sel: Threads,
) -> Result<Rendered, JtrError> {
    let mut ix = index.iter().enumerate().peekable();
    let (mut replayed, mut skipped, mut unread, mut wrong) = (0, 0, 0, 0);
    let mut resume = |out: &mut Renderer<O>, tid: u32, s: Option<Resumption>| {
        if let Some(s) = s {
            let open = out.resume(tid, s.tickets, s.last_ns, s.exception);
            wrong += s.depth.is_some_and(|d| d as usize != open) as u64;
        }
    };
    loop {
        while ix.next_if(|(_, e)| e.offset < r.offset).is_some() {}
        let at = ix
            .peek()
            .filter(|(_, e)| e.offset == r.offset)
            .map(|&(i, e)| (i, *e));
        let mut act = Act::Whole;
        if let Some((i, e)) = at {
            let keep = sel.keeps(e.tid);
            act = match p.acts[i] {
                Act::Whole | Act::Rebuild { .. } | Act::End { .. } if !keep && e.tid != 0 => {
                    if e.allocs {
                        Act::Allocs
                    } else {
                        Act::Skip
                    }
                }
                a => a,
            };
            if keep {
                resume(&mut out, e.tid, p.before[i]);
            }
            if matches!(act, Act::Skip | Act::Allocs) {
                // Before its thread resumes: the last line of the frame it leaves
                // innermost (nothing once resumed).
                if let Some(r) = e.resume {
                    let unit = r.end_state.and_then(|s| s.unit);
                    out.resume_unit(e.tid, r.min, unit);
                }
            }
            if act == Act::Skip {
                r.skip_block(e.len)?;
                skipped += 1;
                unread += 1;
                if keep {
                    resume(&mut out, e.tid, p.after[i]);
                }
                continue;
            }
        }
        match r.next_block()? {
            Some(Block::Chunk(tid, data)) => {
                match act {
                    Act::Whole if sel.keeps(tid) => {
                        replayed += 1;
                        out.handle_chunk(tid, data);
                    }
                    Act::End { deferred } => {
                        skipped += 1;
                        out.end_thread(tid, data, deferred);
                    }
                    Act::Skip | Act::Whole | Act::Allocs | Act::Rebuild { .. } => {
                        skipped += 1;
                        allocs_only(&mut out, tid, data);
                        if let (Act::Rebuild { cap }, Some((_, e))) = (act, at) {
                            let Resume {
                                min,
                                at: from,
                                at_tickets,
                                end_state,
                                ..
                            } = e.resume.unwrap_or_default();
                            let rest = data.get(from as usize..).unwrap_or_default();
                            let unit = end_state.map(|s| s.unit);
                            out.rebuild(tid, rest, (min, at_tickets, cap), unit);
                        }
                    }
                }
                if let Some((i, e)) = at {
                    if sel.keeps(e.tid) {
                        resume(&mut out, e.tid, p.after[i]);
                    }
                }
            }
            Some(Block::Msg(msg)) => {
                if !message(&mut out, &mut sel, Some(msg)) {
                    break;
                }
            }
            None => {
                message(&mut out, &mut sel, None);
                break;
            }
        }
    }
    Ok(Rendered {
        chunks_replayed: replayed,
        chunks_skipped: skipped,
        chunks_unread: unread,
        resumed_wrong: wrong,
        ..rendered(&r, &out)?
    })
}
