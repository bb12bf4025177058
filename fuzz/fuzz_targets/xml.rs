//! An XML trace of arbitrary bytes through the `jtrace` command's reader (the one every view reads XML through): errors are fine, panics and hangs are not.

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = jtrace_cli::read::xml_events(data, |_| {});
});
