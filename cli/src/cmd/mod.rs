//! One module per subcommand: its command-line arguments and the pass(es) it runs.

pub mod baseline;
pub mod check;
mod check_feed;
pub mod common;
pub mod coverage;
pub mod diff;
pub mod docs;
pub mod flame;
pub mod gate;
pub mod graph;
pub mod info;
pub mod parquet;
pub mod perfetto;
pub mod record;
pub mod replay;
pub mod report;
pub mod slow;
pub mod testcases;
#[cfg(test)]
mod threads_test;
pub mod tree;
#[cfg(test)]
pub(crate) mod window_test;
pub mod windows;
pub mod xml;
