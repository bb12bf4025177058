//! The `options` fuzz target's corpus and seeds (`fuzz/`), replayed as plain tests: every option string and filter file the fuzzer kept is parsed or refused without a panic (a panic there would be in `Agent_OnLoad`), each refusal one line.

#[test]
fn every_kept_option_string_parses_or_is_refused_in_one_line() {
    let fuzz = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz");
    let (mut n, mut parsed) = (0, 0);
    for d in ["corpus/options", "seeds/options"] {
        let Ok(entries) = std::fs::read_dir(fuzz.join(d)) else {
            continue;
        };
        for e in entries.flatten() {
            let Some(text) = std::fs::read(e.path())
                .ok()
                .and_then(|b| String::from_utf8(b).ok())
            else {
                continue;
            };
            n += 1;
            let (line, file) = text.split_once('\n').unwrap_or((&text, ""));
            let errors = match jtrace::options::parse(line) {
                Ok(mut opts) => {
                    parsed += 1;
                    let _ = opts.effective();
                    jtrace::options::apply_filter_file(&mut opts, "filters.txt", file)
                        .err()
                        .unwrap_or_default()
                }
                Err(errors) => errors,
            };
            for err in errors {
                assert!(
                    !err.message.contains('\n'),
                    "{}: {:?}",
                    e.path().display(),
                    err.message
                );
            }
        }
    }
    assert!(
        n >= 2 && parsed >= 2,
        "{n} inputs, {parsed} parsed: the seeds at least"
    );
}
