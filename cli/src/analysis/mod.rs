//! Analyses: one per kind of answer, each an [`crate::model::Analysis`] fed by one pass.

pub mod counts;
pub mod coverage;
pub mod folded;
pub mod graph;
pub mod merge;
pub mod replay;
pub mod report;
pub mod slow;
pub mod testcases;
pub mod tree;
