//! The steps of `cargo xtask test` after the Java cases, one file each (`test.rs` runs them in order): hygiene, detach, control, cli (with its cut and window checks), parquet, testsuite, gate, javaagent, dist.

pub mod cli_cut;
pub mod cli_requests;
pub mod cli_tests;
pub mod cli_windows;
pub mod control;
pub mod detach;
pub mod dist_tests;
pub mod gate_tests;
pub mod hygiene;
pub mod javaagent_tests;
pub mod parquet_tests;
pub mod testsuite;
