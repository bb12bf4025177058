//! The `jtrace` command's trace reader as a library: what the command's views read traces through, and what the fuzz targets (`fuzz/`) feed arbitrary bytes.

#![forbid(unsafe_code)]

pub mod read;
