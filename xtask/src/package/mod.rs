//! What users run, packaged: the jars (`cargo xtask jar`), the build-tool plugins, and the release archive (`cargo xtask dist`).

mod dist;
mod jars;
mod plugins;

pub use dist::{dist, run as run_dist, Dist, GLIBC};
pub use jars::build_jar;
