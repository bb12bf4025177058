//! jtrace agent: a JVMTI agent that writes an exact TPTP trace.
//!
//! Data flow: JVM callback or bytecode probe → `record` into the thread's `buffer`
//! → chunks over a bounded channel → `writer` thread → `xml` → trace file.
//! See docs/ARCHITECTURE.md.

pub mod buffer;
pub mod classfile;
pub mod clock;
pub mod control;
pub mod counts;
pub mod defs;
pub mod entry;
pub mod events;
pub mod ids;
pub mod jvmti;
pub mod lifecycle;
pub mod linetable;
pub mod live;
pub mod options;
pub mod record;
pub mod recording;
pub mod session;
pub mod sys;
pub mod writer;
pub mod xml;
