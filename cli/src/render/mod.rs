//! Outputs: one module per format, each turning an analysis' results into bytes.

pub mod coverage;
pub mod diff;
pub mod flame;
pub mod fmt;
pub mod gate;
pub mod html;
pub mod perfetto;
pub mod pftrace;
pub mod testcases;
pub mod text;
pub mod timeline_size;
