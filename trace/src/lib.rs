//! jtrace's trace library: the record layout, the clock map, the `.jtr` codec, the replay of records into the TPTP XML document or typed events.
//!
//! Shared by the agent (which records and, for `out=*.xml`, renders) and the `jtrace`
//! command (which renders `.jtr` files and reads traces). It knows nothing of JVMTI,
//! threads or files it was not handed as `Read`/`Write`. Data flow and invariants:
//! docs/ARCHITECTURE.md.

#![forbid(unsafe_code)]

pub mod clock;
pub mod compress;
pub mod defs;
pub mod event;
pub mod header;
pub mod idtable;
pub mod jtr;
pub mod record;
pub mod render;
pub mod waits;
pub mod xml;
