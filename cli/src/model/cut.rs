//! One thread's calls over two workers (`jtrace --jobs` on a trace whose calls are nearly all one thread's): the thread's records are cut at a chunk boundary; the worker before the cut keeps the frames still open there, the worker after it starts with them open (rebuilt by the replay) and holds back their exits and the exception that may have been passing at the cut; [`join`] completes those with what the first worker left, so the merged answer is the one-pass answer.
//!
//! What a call spanning the cut needs from both sides: its entry was counted before
//! the cut; its end, inclusive time and recursion are known after it; its self time
//! is its inclusive time less its children's, which finished on either side. An
//! exception passing at the cut is the one the first worker left pending if the
//! second sees the same object next; otherwise the first one left the traced code.

use super::{Analysis, Call, Frame, Pending, Symbols};

/// Which side of a cut a worker reads, of which thread.
#[derive(Clone, Copy, Debug)]
pub struct CutSide {
    pub thread: u64,
    /// The position in the file's index of the thread's first chunk after the cut.
    pub at: usize,
    /// Frames open at the cut (at least one: the first that many entries of the
    /// thread after the cut are those frames, rebuilt).
    pub depth: u32,
    pub after: bool,
}

/// What the worker before the cut leaves for [`join`]: the cut thread's open frames
/// (with their finished children's time) and the exception passing there.
#[derive(Default)]
pub struct Tail {
    pub(super) frames: Vec<Frame>,
    pub(super) pending: Option<Pending>,
}

/// What the worker after the cut holds back for [`join`].
#[derive(Default)]
pub struct Head {
    /// Exits of frames open at the cut, in order: the call as this side knows it,
    /// with its children's time on this side.
    pub(super) exits: Vec<(Call, u64)>,
    /// Catches seen before the thread's first throw after the cut (object, method):
    /// one of them may end the exception left pending before it.
    pub(super) catches: Vec<(u64, u32)>,
    /// The first exception thrown after the cut and where it was caught (None:
    /// uncaught); it may be the one pending at the cut, seen again.
    pub(super) first: Option<(Pending, Option<u32>)>,
}

/// The cut thread's state in a worker after the cut.
#[derive(Default)]
pub(super) struct HeadState {
    /// Entries still to come of the frames open at the cut.
    pub(super) inherit: u32,
    /// No throw seen yet after the cut: whether an exception is passing is not known.
    pub(super) unknown: bool,
}

/// Hands `analysis` what the two sides of a cut of thread `t` held back (`tail` from
/// the worker before the cut, `head` from the one after it), as one pass hands it.
pub fn join<A: Analysis>(s: &Symbols, t: u32, tail: Tail, head: Head, a: &mut A) {
    // How much longer the last call below came out than the worker after the cut had
    // it: its caller (the next exit: the frames open at the cut leave innermost first)
    // counted that much less children's time.
    let mut carry = 0;
    for (mut call, child) in head.exits {
        let child = child + std::mem::take(&mut carry);
        let depth = tail
            .frames
            .iter()
            .position(|f| f.ticket == call.ticket)
            .unwrap_or(tail.frames.len());
        let (before, by_exception) = tail
            .frames
            .get(depth)
            .map_or((0, false), |f| (f.child, f.throwing));
        // The entry as the worker before the cut read it: the frame rebuilt after the
        // cut may start later (its replay clamps entry times to the thread's clock as
        // the definitions read up to the cut moved it).
        if let Some(f) = tail.frames.get(depth) {
            let (incl, counted) = s.clip(f.start, call.end);
            carry = incl.saturating_sub(call.incl);
            call.start = f.start;
            call.incl = incl;
            call.counted = counted;
        }
        call.self_ns = call.incl.saturating_sub(child + before);
        call.by_exception |= by_exception;
        a.exit(s, t, &call, &tail.frames[..depth.min(tail.frames.len())]);
    }
    let exception = |p: Pending, caught_in| p.exception(t, caught_in);
    let mut pending = tail.pending;
    if let Some(i) = pending
        .as_ref()
        .and_then(|p| head.catches.iter().find(|c| c.0 == p.obj))
    {
        let caught = i.1;
        if let Some(p) = pending.take() {
            a.exception(s, &exception(p, Some(caught)));
        }
    }
    match (pending, head.first) {
        (Some(p), Some((q, caught))) if p.obj == q.obj => a.exception(s, &exception(p, caught)),
        (p, q) => {
            if let Some(p) = p {
                a.exception(s, &exception(p, None));
            }
            if let Some((q, caught)) = q {
                a.exception(s, &exception(q, caught));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The calls handed to `exit`, in order.
    #[derive(Default)]
    struct Exits(Vec<Call>);

    impl Analysis for Exits {
        fn exit(&mut self, _s: &Symbols, _t: u32, c: &Call, _p: &[Frame]) {
            self.0.push(c.clone());
        }
    }

    fn frame(ticket: u64, start: u64, child: u64) -> Frame {
        Frame {
            ticket,
            child,
            start,
            method: ticket as u32,
            line: 0,
            recursive: false,
            throwing: false,
            in_shared: false,
            inherited: false,
        }
    }

    fn call(ticket: u64, start: u64, end: u64) -> Call {
        Call {
            method: ticket as u32,
            ticket,
            start,
            end,
            incl: end - start,
            self_ns: 0,
            recursive: false,
            by_exception: false,
            open: false,
            counted: true,
        }
    }

    /// Two frames open at the cut, rebuilt after it with a later entry time (the
    /// replay clamps entries to the thread's clock): each call keeps the entry the
    /// worker before the cut read, its inclusive time from there, and its self time
    /// counts the inner call's full time as its child's.
    #[test]
    fn frames_open_at_the_cut_keep_their_entry_from_before_it() {
        let mut s = Symbols::default();
        s.window = (0, u64::MAX);
        let tail = Tail {
            frames: vec![frame(1, 100, 0), frame(2, 200, 5)],
            pending: None,
        };
        // After the cut: both frames rebuilt as entered at 250; the inner one (2) ends at
        // 500 with no children after the cut, the outer one (1) at 1000 with the inner
        // one's 250 (as the worker after the cut timed it) as its children's time.
        let head = Head {
            exits: vec![(call(2, 250, 500), 0), (call(1, 250, 1000), 250)],
            ..Head::default()
        };
        let mut a = Exits::default();
        join(&s, 0, tail, head, &mut a);
        let got: Vec<(u64, u64, u64, u64)> =
            a.0.iter()
                .map(|c| (c.ticket, c.start, c.incl, c.self_ns))
                .collect();
        assert_eq!(got, [(2, 200, 300, 295), (1, 100, 900, 600)]);
    }
}
