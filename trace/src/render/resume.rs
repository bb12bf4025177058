//! Resuming a thread in the middle of its records (a time window read through the `.jtr` index): its open frames, tickets, pending wait and end rebuilt from the parts of its earlier chunks that left them, then handed to the output as the entries of those frames, so that what follows replays as the whole replay gives it.
//!
//! The stack rules are [`Renderer`]'s own (`enter`, `leave`, `line`), on the records
//! from a chunk's resume point on (`crate::jtr::index::Resume`), with nothing written;
//! what those records cannot tell (the last line of the frame they start in, the
//! exception still pending) comes from the index's end states (`crate::jtr::index::End`).

use super::{Frame, Output, Renderer, NO_UNIT};
use crate::record::{Reader, Rec};
use crate::xml::Decimal;

/// A frame below a resume point that the records after it never reach.
const UNSEEN: u32 = u32::MAX;
/// The ticket of no frame (tickets count from 1).
const NO_FRAME: u64 = u64::MAX;

/// What a thread's earlier chunks left, not written yet.
#[derive(Default)]
pub(super) struct Rebuilt {
    /// (method, ticket, entry time, last unit) of the open frames, innermost last.
    frames: Vec<(u32, u64, u64, u32)>,
    tickets: u64,
    last_ns: u64,
    /// A monitor wait not ended: (monitor, timeout ms, time).
    wait: Option<(u64, u64, u64)>,
    /// A contended enter not entered yet: (monitor, owner once known, time).
    enter: Option<(u64, Option<u32>, u64)>,
    /// The thread's end: (time, deferred because frames were still open).
    end: Option<(u64, bool)>,
}

impl<O: Output> Renderer<O> {
    /// Replays, writing nothing, thread `tid`'s records `data` that follow a resume
    /// point where `below` frames were open (those earlier ones already rebuilt, or
    /// never reached again) and `tickets` given; then keeps the innermost `cap` frames
    /// open (the later chunks skipped close the others). `unit`: the last unit of frame
    /// `below` at the end of `data`, when the index gives it (see [`Self::resume_unit`]).
    pub fn rebuild(
        &mut self,
        tid: u32,
        data: &[u8],
        (below, tickets, cap): (u32, u64, u32),
        unit: Option<Option<u32>>,
    ) {
        if !self.threads.contains(tid) {
            return;
        }
        let mut rb = self.rebuilt.remove(&tid).unwrap_or_default();
        // The thread's clock as the definitions replayed so far moved it (a classDef
        // stamped with the thread's time): the whole replay clamps these records to it.
        if let Some(ts) = self.threads.get(tid) {
            rb.last_ns = rb.last_ns.max(ts.last_ns);
        }
        rb.frames.resize(below as usize, (UNSEEN, 0, 0, NO_UNIT));
        rb.frames.truncate(below as usize);
        rb.tickets = tickets;
        for rec in Reader::new(data) {
            let mut stamp = |t: u64| {
                rb.last_ns = rb.last_ns.max(self.conv.to_unix_ns(t));
                rb.last_ns
            };
            match rec {
                Rec::Entry { mid, t } => {
                    let ns = stamp(t);
                    if self.methods.contains(mid) {
                        rb.tickets += 1;
                        rb.frames.push((mid, rb.tickets, ns, NO_UNIT));
                    }
                }
                Rec::Exit { mid, t } | Rec::ExitExc { mid, t, .. } => {
                    stamp(t);
                    if let Some(i) = rb.frames.iter().rposition(|f| f.0 == mid) {
                        rb.frames.truncate(i);
                    }
                }
                Rec::Catch { mid, t, .. } => {
                    stamp(t);
                    if let Some(i) = rb.frames.iter().rposition(|f| f.0 == mid) {
                        rb.frames.truncate(i + 1);
                    }
                }
                Rec::MonWait { obj, timeout, t } => rb.wait = Some((obj, timeout, stamp(t))),
                Rec::MonWaited { t, .. } => {
                    stamp(t);
                    rb.wait = None;
                }
                Rec::MonEnter { obj, t } => rb.enter = Some((obj, None, stamp(t))),
                Rec::MonOwner { owner } => {
                    // Named as the whole replay names it here.
                    let owner = self.known_owner(owner);
                    if let Some(e) = rb.enter.as_mut() {
                        e.1 = Some(owner);
                    }
                }
                Rec::MonEntered { t, .. } => {
                    stamp(t);
                    rb.enter = None;
                }
                Rec::ThreadEnd { t } => rb.end = Some((stamp(t), !rb.frames.is_empty())),
                Rec::Line { mid, unit, .. } => {
                    let units = match self.methods.get(mid) {
                        Some(m) => m.unit_lines.len(),
                        _ => 0,
                    };
                    if let Some(top) = rb.frames.last_mut() {
                        if top.0 == mid && (unit as usize) < units {
                            top.3 = unit;
                        }
                    }
                }
                _ => {}
            }
        }
        self.rebuilt.insert(tid, rb);
        if let Some(unit) = unit {
            self.resume_unit(tid, below, unit);
        }
        if let Some(rb) = self.rebuilt.get_mut(&tid) {
            rb.frames.truncate(cap as usize);
        }
    }

    /// The last unit of thread `tid`'s frame at level `level` (1: the outermost) at
    /// the end of a chunk skipped, or replayed from its resume point: the index's end
    /// state of a chunk whose fewest open frames were `level` (that frame was the
    /// innermost there at times, and may have run lines).
    pub fn resume_unit(&mut self, tid: u32, level: u32, unit: Option<u32>) {
        let Some(rb) = self.rebuilt.get_mut(&tid) else {
            return;
        };
        if let Some(f) = (level as usize)
            .checked_sub(1)
            .and_then(|i| rb.frames.get_mut(i))
        {
            f.3 = unit.unwrap_or(NO_UNIT);
        }
    }

    /// Hands thread `tid`'s rebuilt state to the replay: its open frames (as their
    /// entries, at their times), its pending wait or contended enter, its end; from
    /// here on its records replay as in the whole replay. `tickets`: the tickets given
    /// before the records that follow (None: as rebuilt); `last_ns`: the latest time of
    /// its records skipped; `exception`: the exception still pending there and the
    /// method it left last (see [`crate::jtr::index::End`]), written as thrown again at
    /// `last_ns` (from no open frame), so that a later throw of it continues it as in
    /// the whole replay. Each frame that had reported a line writes it again after its
    /// entry, at the entry's time. Returns the frames now open.
    pub fn resume(
        &mut self,
        tid: u32,
        tickets: Option<u64>,
        last_ns: u64,
        exception: Option<(u64, u32)>,
    ) -> usize {
        let rb = self.rebuilt.remove(&tid).unwrap_or_default();
        let Some(ts) = self.threads.get_mut(tid) else {
            return 0;
        };
        // The latest time of its records before the resume point (a tag of the thread
        // replayed meanwhile may have moved its clock on).
        let last = last_ns.max(rb.last_ns);
        ts.last_ns = ts.last_ns.max(last);
        ts.next_ticket = tickets.unwrap_or(rb.tickets);
        ts.ticket_text = Decimal::of(ts.next_ticket);
        for &(mid, ticket, ns, unit) in &rb.frames {
            let text = Decimal::of(ticket);
            ts.stack.push(Frame {
                mid,
                unit,
                ticket,
                text,
            });
            if let Some(m) = self.methods.get(mid) {
                let depth = ts.stack.len() as u64;
                let pre = (&ts.entry_prefix, &m.ids, &text);
                self.out.entry(tid, mid, ticket, depth, ns, pre);
                if let Some(&line) = m.unit_lines.get(unit as usize) {
                    let (pre, tail) = (&ts.line_prefix, &m.line_tail);
                    self.out.line(tid, mid, line, ticket, ns, pre, tail);
                }
            }
        }
        let open = ts.stack.len();
        if let Some((obj, timeout, ns)) = rb.wait {
            ts.wait_ns = Some(ns);
            self.write_mon_wait(tid, obj, timeout, ns);
        }
        match rb.enter {
            Some((obj, Some(owner), ns)) => self.write_mon_enter_of(tid, obj, owner, ns),
            Some((obj, None, ns)) => self.pending_enters.push((tid, obj, ns)),
            None => {}
        }
        if let Some((obj, mid)) = exception {
            self.frame_event(tid, "throw", mid, NO_FRAME, obj, last);
        }
        match rb.end {
            Some((ns, true)) => {
                if let Some(ts) = self.threads.get_mut(tid) {
                    ts.end_deferred = Some(ns);
                }
            }
            Some((ns, false)) => self.thread_end_at(tid, ns),
            None => {}
        }
        open
    }

    /// Thread `tid`'s end, from its chunk `data` read for nothing else (a window's
    /// end is before it): `deferred` when frames were still open then (the index's
    /// depth at the chunk's end), as the whole replay finds it.
    pub fn end_thread(&mut self, tid: u32, data: &[u8], deferred: bool) {
        let Some(t) = Reader::new(data).find_map(|r| match r {
            Rec::ThreadEnd { t } => Some(t),
            _ => None,
        }) else {
            return;
        };
        let ns = self.stamp(tid, t);
        let Some(ts) = self.threads.get_mut(tid) else {
            return;
        };
        if deferred {
            ts.end_deferred = Some(ns);
        } else {
            ts.stack.clear();
            self.thread_end_at(tid, ns);
        }
    }
}
