//! An XML trace of arbitrary bytes through tracecheck (`jtrace check`'s and the tests' oracle): a verdict or violations, never a panic.

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = tracecheck::check_reader(data);
});
