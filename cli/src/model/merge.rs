//! Analyses whose figures add up over threads: what a pass split over workers
//! (`crate::split`, `--jobs`) merges.

use super::Analysis;

/// An analysis whose figures add up over threads.
pub trait Split: Analysis + Send + Sized {
    /// An empty analysis of the same kind and settings, for a worker.
    fn fresh(&self) -> Self;
    /// Adds what a worker counted over other threads (indexes of methods and threads
    /// are the same in both: every worker reads every definition).
    fn merge(&mut self, other: Self);
}

impl<A: Split, B: Split> Split for (A, B) {
    fn fresh(&self) -> Self {
        (self.0.fresh(), self.1.fresh())
    }
    fn merge(&mut self, other: Self) {
        self.0.merge(other.0);
        self.1.merge(other.1);
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
}
