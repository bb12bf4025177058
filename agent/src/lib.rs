//! jtrace agent: a JVMTI agent that writes an exact TPTP trace.
//!
//! Data flow: JVM callback or bytecode probe → `trace::record` into the thread's `buffer`
//! → chunks over a bounded channel → `sink` thread → `.jtr` and/or `trace::render` → file.
//! See docs/ARCHITECTURE.md.

pub mod buffer;
pub mod classfile;
pub mod clock;
pub mod control;
pub mod counts;
pub mod entry;
pub mod events;
pub mod ids;
pub mod jvmti;
pub mod lifecycle;
pub mod linetable;
pub mod live;
pub mod log;
pub mod options;
pub mod recording;
pub mod session;
pub mod sink;
pub mod spool;
pub mod state;
pub mod sys;
