//! Analyses whose figures add up over threads: what a pass split over workers
//! (`crate::split`, `--jobs`) merges of them.

use crate::model::Analysis;

/// An analysis whose figures add up over threads.
pub trait Split: Analysis + Send + Sized {
    /// An empty analysis of the same kind and settings, for a worker.
    fn fresh(&self) -> Self;
    /// Adds what a worker counted over other threads (indexes of methods and threads
    /// are the same in both: every worker reads every definition).
    fn merge(&mut self, other: Self);
    /// Whether its figures come from each call's exit alone (with the frames below
    /// it), nothing kept per thread from entries: then one thread's calls may be cut
    /// over two workers (`crate::model::cut`).
    fn exits_alone(&self) -> bool {
        false
    }
}

impl<A: Split, B: Split> Split for (A, B) {
    fn fresh(&self) -> Self {
        (self.0.fresh(), self.1.fresh())
    }
    fn merge(&mut self, other: Self) {
        self.0.merge(other.0);
        self.1.merge(other.1);
    }
    fn exits_alone(&self) -> bool {
        self.0.exits_alone() && self.1.exits_alone()
    }
}

impl<A: Split> Split for Option<A> {
    fn fresh(&self) -> Self {
        self.as_ref().map(A::fresh)
    }
    fn merge(&mut self, other: Self) {
        if let (Some(a), Some(b)) = (self, other) {
            a.merge(b);
        }
    }
    fn exits_alone(&self) -> bool {
        self.as_ref().is_none_or(A::exits_alone)
    }
}
