//! Runs tracecheck over the fixture traces: `good-*.xml` must pass, each `bad-*.xml` must
//! report the violation its header comment names (`expect: line N rule`).

use std::path::PathBuf;
use std::process::Command;

fn fixtures(prefix: &str) -> Vec<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            let name = p.file_name().unwrap().to_string_lossy();
            name.starts_with(prefix) && name.ends_with(".xml")
        })
        .collect();
    v.sort();
    assert!(!v.is_empty());
    v
}

#[test]
fn good_fixtures_pass() {
    for path in fixtures("good-") {
        if let Err(v) = tracecheck::check(&path) {
            panic!("{}: {v:#?}", path.display());
        }
    }
}

#[test]
fn bad_fixtures_report_the_expected_violation() {
    for path in fixtures("bad-") {
        let text = std::fs::read_to_string(&path).unwrap();
        let header = text.lines().nth(1).unwrap();
        let spec = header
            .split("expect: line ")
            .nth(1)
            .unwrap_or_else(|| panic!("{}: no 'expect: line N rule'", path.display()));
        let mut words = spec.split_whitespace();
        let line: u64 = words.next().unwrap().parse().unwrap();
        let rule = words.next().unwrap();
        let violations = match tracecheck::check(&path) {
            Ok(_) => panic!("{}: accepted", path.display()),
            Err(v) => v,
        };
        assert!(
            violations
                .iter()
                .any(|v| v.line == line && v.rule.name() == rule),
            "{}: wanted [{rule}] at line {line}, got:\n{}",
            path.display(),
            violations
                .iter()
                .map(|v| v.to_string())
                .collect::<Vec<_>>()
                .join("\n")
        );
    }
}

#[test]
fn good_fixtures_are_dtd_valid() {
    // A check skipped for want of its tool checks nothing: xmllint is required
    // (.ci/run installs libxml2-utils).
    let status = Command::new("xmllint")
        .arg("--version")
        .output()
        .expect("xmllint is required (apt-get install libxml2-utils)");
    assert!(status.status.success());
    let dtd = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../docs/trace.dtd");
    for path in fixtures("good-") {
        let out = Command::new("xmllint")
            .arg("--noout")
            .arg("--dtdvalid")
            .arg(&dtd)
            .arg(&path)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}: {}",
            path.display(),
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

#[test]
fn summary_of_the_full_fixture() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/good-full.xml");
    let s = tracecheck::check(path).unwrap();
    assert_eq!(s.entries("demo.Main.work"), 3);
    assert_eq!(s.entries("demo.Main.work(I)I"), 2);
    assert_eq!(s.exits("demo.Main.work(I)I"), 1);
    assert_eq!(s.thread_entries_of("worker-1", "demo.Main.work"), 1);
    assert_eq!(s.thread_entries_of("main", "demo.Main.work"), 2);
    assert_eq!(s.max_depth_of("demo.Main.work"), 3);
    assert_eq!(s.max_depth, 3);
    assert_eq!(s.throws("demo.Main.work"), 2);
    assert_eq!(s.catches("demo.Main.work(I)I"), 1);
    assert_eq!(s.exception_exits("demo.Main.work(J)J"), 1);
    assert_eq!(s.exception_exits("demo.Main.work(I)I"), 0);
    assert_eq!(s.method_count("demo.Main.work"), 3);
    assert_eq!(
        s.lines_of("demo.Main.work").into_iter().collect::<Vec<_>>(),
        vec![12, 16]
    );
    assert_eq!(
        s.thread_names(),
        vec![
            "main",
            "worker-1",
            "jtrace: garbage collector",
            "DestroyJavaVM"
        ]
    );
    assert_eq!(s.threads[1].open_frames_at_end, 1);
    assert!(s.threads[1].ended_after_shutdown);
    assert_eq!(s.allocs_of("demo.Main", 0).count, 1);
    assert_eq!(s.allocs_of("", 10).bytes, 64);
    assert_eq!(s.alloc_bytes, 80);
    assert_eq!(s.count("methodEntry"), 5);
    assert_eq!(s.count("objFree"), 1);
    assert_eq!(s.options.get("alloc").map(String::as_str), Some("exact"));
    assert!(s.runtime_shutdown);
}

#[test]
fn binary_exit_codes() {
    let bin = env!("CARGO_BIN_EXE_tracecheck");
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let ok = Command::new(bin)
        .arg(dir.join("good-full.xml"))
        .output()
        .unwrap();
    assert_eq!(ok.status.code(), Some(0));
    let bad = Command::new(bin)
        .arg(dir.join("bad-exit-mismatch.xml"))
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("line 30: [nesting]"));
}

#[test]
fn families_summary() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let s = tracecheck::check(dir.join("good-families.xml")).unwrap();
    let own = s.allocs_of("Fam", 0);
    assert_eq!((own.count, own.bytes), (2, 32));
    assert_eq!(own.lines.iter().copied().collect::<Vec<_>>(), vec![5]);
    let ints = s.allocs_of("", 10);
    assert_eq!((ints.count, ints.bytes), (1, 56));
    assert_eq!(s.allocs_of("java.lang.String", 2).count, 1);
    assert_eq!(s.allocs_of("", 4).count, 1);
    assert_eq!(s.alloc_bytes, 16 + 16 + 56 + 24 + 24 + 40);
    assert_eq!(s.contended_count("main", "holder"), 1);
    assert_eq!(s.contended_count("main", ""), 1);
    assert_eq!(s.contended_classes.get("Fam"), Some(&1));
    assert_eq!(s.contended_classes.get(""), Some(&1));
    let w = s.waits_of("holder");
    assert_eq!((w.waits, w.waited_ms, w.timed_out), (2, 250, 1));
    assert_eq!(s.gc_count(), 1);
    assert_eq!(s.unloaded, vec!["Victim".to_string()]);
    // The exception object thrown before and after the GC: two distinct objects.
    assert_eq!(s.thrown.get("java.lang.IllegalStateException"), Some(&2));
    assert_eq!(s.line_count("Fam.work", 21), 2);
    assert_eq!(
        s.lines_of("Fam.work").into_iter().collect::<Vec<_>>(),
        vec![20, 21, 23]
    );
    assert_eq!(s.threads_named("vt-"), 1);
    assert_eq!(s.threads_named(""), 5); // with the collector's thread
    let by = s.entries_by_thread("vt-", "Fam.work");
    assert_eq!(by.get("vt-0"), Some(&1));
    assert_eq!(
        s.entries_by_thread("hold", "Fam.work").get("holder"),
        Some(&1)
    );
}

/// Every cut of a valid trace is a readable prefix ("cut short"), never "invalid";
/// the whole file is complete; a cut of an invalid trace stays invalid.
#[test]
fn cut_short_prefixes() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let full = std::fs::read(dir.join("good-full.xml")).unwrap();
    let scratch = std::env::temp_dir().join(format!("tracecheck-cut-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).unwrap();
    let file = scratch.join("cut.xml");
    // The last newline ends the document: cutting there is the whole trace.
    let body_end = full.len() - 1;
    // At, just after and between every line boundary (every byte is slow in debug).
    let mut cuts: Vec<usize> = vec![0, 1];
    let mut prev = 0;
    for (i, _) in full.iter().enumerate().filter(|(_, &b)| b == b'\n') {
        cuts.extend([i, i + 1, (prev + i) / 2]);
        prev = i;
    }
    cuts.retain(|&c| c < body_end);
    for cut in cuts {
        std::fs::write(&file, &full[..cut]).unwrap();
        match tracecheck::check_prefix(&file) {
            Ok(tracecheck::Checked::CutShort { lines, .. }) => {
                let whole_lines = full[..cut].iter().filter(|&&b| b == b'\n').count() as u64;
                assert_eq!(lines, whole_lines, "cut at byte {cut}");
            }
            other => panic!("cut at byte {cut}: {other:?}"),
        }
        assert!(tracecheck::check(&file).is_err(), "cut at byte {cut}");
    }
    std::fs::write(&file, &full).unwrap();
    assert!(matches!(
        tracecheck::check_prefix(&file),
        Ok(tracecheck::Checked::Complete(_))
    ));
    // A cut of a trace with an early violation is still invalid.
    let bad = std::fs::read(dir.join("bad-exit-mismatch.xml")).unwrap();
    std::fs::write(&file, &bad[..bad.len() - 40]).unwrap();
    assert!(tracecheck::check_prefix(&file).is_err());
    // The binary names it.
    let bin = env!("CARGO_BIN_EXE_tracecheck");
    std::fs::write(&file, &full[..full.len() / 2]).unwrap();
    let plain = Command::new(bin).arg(&file).output().unwrap();
    assert_eq!(plain.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&plain.stderr).contains("cut short after line"));
    let ok = Command::new(bin)
        .arg("--prefix-ok")
        .arg(&file)
        .output()
        .unwrap();
    assert_eq!(ok.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&ok.stdout).contains("cut short after line"));
    let _ = std::fs::remove_dir_all(&scratch);
}
