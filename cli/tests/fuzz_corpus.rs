//! The `xml` fuzz target's corpus and seeds (`fuzz/`), replayed as plain tests: the command's XML reader takes every input the fuzzer kept without a panic, and calls an input whole only when its root element is closed.

#[test]
fn every_kept_xml_input_reads_without_a_panic() {
    let fuzz = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz");
    let mut n = 0;
    for d in ["corpus/xml", "seeds/xml"] {
        let Ok(entries) = std::fs::read_dir(fuzz.join(d)) else {
            continue;
        };
        for e in entries.flatten() {
            let Ok(data) = std::fs::read(e.path()) else {
                continue;
            };
            n += 1;
            if let Ok(out) = jtrace_cli::read::xml_events(&data, |_| {}) {
                if out.complete {
                    let text = String::from_utf8_lossy(&data);
                    assert!(
                        text.contains("</TRACE>"),
                        "{}: whole without </TRACE>",
                        e.path().display()
                    );
                }
            }
        }
    }
    assert!(n >= 5, "{n} inputs: the seeds at least");
}
