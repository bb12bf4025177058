//! The agent's option string and a TPTP filter file of arbitrary text: parsed, or errors naming what is wrong, never a panic (a panic here would be in `Agent_OnLoad`).

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    // The first line is the option string, the rest a filter file.
    let (line, file) = text.split_once('\n').unwrap_or((text, ""));
    if let Ok(mut opts) = jtrace::options::parse(line) {
        let _ = jtrace::options::apply_filter_file(&mut opts, "filters.txt", file);
        let _ = opts.effective();
    }
});
