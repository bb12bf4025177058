//! jtrace agent: a JVMTI agent that writes an exact TPTP trace.
//!
//! Data flow: JVM callback or bytecode probe → `trace::record` into the thread's `buffer`
//! → chunks over a bounded channel → `sink` thread → `.jtr` and/or `trace::render` → file.
//! See docs/ARCHITECTURE.md.
//!
//! Only `classfile` (the rewriter, fuzzed and checked against a corpus by `xtask`),
//! `options` (the option table, read by `xtask tidy` and the option fuzzer) and
//! `rdtsc` (the clock the probes read, whose cost `cargo xtask bench` prints as the
//! floor) are public; everything else is the agent's own.

mod buffer;
pub mod classfile;
mod clock;
mod control;
mod counts;
mod entry;
mod events;
mod exiting;
mod host;
mod ids;
mod jvm;
mod jvmti;
mod lifecycle;
mod linetable;
mod live;
mod log;
pub mod options;
mod recording;
mod ring;
mod series;
mod sink;
mod spool;
mod state;
mod sys;
mod window;

pub use sys::os::rdtsc;
