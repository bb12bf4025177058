//! The `check` and `xml` fuzz targets' corpora and seeds (`fuzz/`), replayed as plain tests: tracecheck gives every input the fuzzer kept a verdict without a panic, and passes none that lacks a closed root.

#[test]
fn every_kept_input_gets_a_verdict() {
    let fuzz = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz");
    let mut n = 0;
    for d in ["corpus/check", "corpus/xml", "seeds/xml"] {
        let Ok(entries) = std::fs::read_dir(fuzz.join(d)) else {
            continue;
        };
        for e in entries.flatten() {
            let Ok(data) = std::fs::read(e.path()) else {
                continue;
            };
            n += 1;
            if tracecheck::check_reader(&data[..]).is_ok() {
                let text = String::from_utf8_lossy(&data);
                assert!(
                    text.contains("</TRACE>"),
                    "{}: valid without </TRACE>",
                    e.path().display()
                );
            }
        }
    }
    assert!(n >= 5, "{n} inputs: the seeds at least");
}
