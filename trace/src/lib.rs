//! jtrace's trace library: the record layout, the clock map, the `.jtr` codec, the replay of records into the TPTP XML document or typed events.
//!
//! Shared by the agent (which records and, for `out=*.xml`, renders) and the `jtrace`
//! command (which renders `.jtr` files and reads traces). It knows nothing of JVMTI,
//! threads or files it was not handed as `Read`/`Write`. Data flow and invariants:
//! docs/ARCHITECTURE.md.

#![forbid(unsafe_code)]

/// jtrace's version and the commit it was built from, as semver build metadata
/// (`0.1.0+1a2b3c4d5e6f`): `jtrace --version`, the agent's stderr line and `jtrace status`,
/// the trace header's agent version, the files `jtrace` writes.
pub const VERSION: &str = concat!(env!("CARGO_PKG_VERSION"), "+", env!("JTRACE_COMMIT"));

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
