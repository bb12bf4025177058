//! `jtrace xml` end to end: a stored `.jtr` renders to the XML the agent wrote, on one or two threads and compressed; cut-short, foreign and missing inputs get clear messages.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../trace/tests/data")
        .join(name)
}

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("jtrace-cli-xml-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d.join(name)
}

fn jtrace(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_jtrace"))
        .args(args)
        .output()
        .expect("jtrace runs")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn renders_the_agents_document_on_one_and_two_threads() {
    let want = std::fs::read(data("v1-exceptions.xml")).unwrap();
    let input = data("v1-exceptions.jtr");
    for threads in ["1", "2"] {
        let out = scratch(&format!("t{threads}.xml"));
        let o = jtrace(&[
            "xml",
            input.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
            "--threads",
            threads,
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        let got = std::fs::read_to_string(&out).unwrap();
        // The earlier agent wrote no virtual machine's thread (TRACE_FORMAT.md, Threads).
        assert!(
            trace::render::without_vm_thread(&got).as_bytes() == want,
            "--threads {threads}"
        );
        assert!(stderr(&o).contains("jtrace: wrote"), "{}", stderr(&o));
    }
}

#[test]
fn compressed_outputs_hold_the_same_document() {
    let want = std::fs::read(data("v1-monitors.xml")).unwrap();
    let input = data("v1-monitors.jtr");
    for (name, threads) in [("m.xml.gz", "1"), ("m.xml.zst", "3")] {
        let out = scratch(name);
        let o = jtrace(&[
            "xml",
            input.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
            "--threads",
            threads,
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        let bytes = std::fs::read(&out).unwrap();
        let format = trace::compress::Format::from_path(name);
        let mut back = Vec::new();
        std::io::Read::read_to_end(
            &mut trace::compress::decompressed(std::io::Cursor::new(bytes), format).unwrap(),
            &mut back,
        )
        .unwrap();
        let back = trace::render::without_vm_thread(&String::from_utf8(back).unwrap());
        assert!(back.as_bytes() == want, "{name}");
    }
}

#[test]
fn a_cut_short_file_is_rendered_and_said_so() {
    let full = std::fs::read(data("v1-exceptions.jtr")).unwrap();
    let cut = scratch("cut.jtr");
    std::fs::write(&cut, &full[..full.len() * 2 / 3]).unwrap();
    let out = scratch("cut.xml");
    let o = jtrace(&["xml", cut.to_str().unwrap(), "-o", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("was cut short"), "{}", stderr(&o));
    let xml = std::fs::read_to_string(&out).unwrap();
    assert!(xml.ends_with("</TRACE>\n"));
    assert!(xml.contains("name=\"recordingCutShort\" value=\"1\""));
}

#[test]
fn bad_inputs_get_one_clear_message() {
    let xml = data("v1-exceptions.xml");
    let o = jtrace(&[
        "xml",
        xml.to_str().unwrap(),
        "-o",
        scratch("x.xml").to_str().unwrap(),
    ]);
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("not a jtrace .jtr file"),
        "{}",
        stderr(&o)
    );

    let o = jtrace(&["xml", "/nonexistent/t.jtr"]);
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("cannot read /nonexistent/t.jtr"),
        "{}",
        stderr(&o)
    );

    let input = data("v1-exceptions.jtr");
    let o = jtrace(&["xml", input.to_str().unwrap(), "-o", "/tmp/x.jtr"]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("writes XML"), "{}", stderr(&o));

    let o = jtrace(&["xml", input.to_str().unwrap(), "--threads", "0"]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("--threads"), "{}", stderr(&o));
}

#[test]
fn every_subcommand_reads_a_jtr_as_its_xml() {
    let jtr = data("v1-exceptions.jtr");
    let xml = data("v1-exceptions.xml");
    for sub in [
        vec!["report", "--json"],
        vec!["tree"],
        vec!["collapsed"],
        vec!["slow", "--over", "0ms"],
        // Not `check`: the earlier agent's XML lacks the threads TPTP's importer needs
        // (cmd::check's tests hold a `.jtr` and its rendering to one verdict).
    ] {
        let a = jtrace(&[sub.clone(), vec![jtr.to_str().unwrap()]].concat());
        let b = jtrace(&[sub.clone(), vec![xml.to_str().unwrap()]].concat());
        assert!(a.status.success(), "{sub:?}: {}", stderr(&a));
        assert_eq!(a.status.code(), b.status.code(), "{sub:?}");
        // The same answers; only the file's own name differs.
        let a_out = String::from_utf8_lossy(&a.stdout)
            .replace(jtr.to_str().unwrap(), xml.to_str().unwrap());
        assert!(
            a_out == String::from_utf8_lossy(&b.stdout),
            "{sub:?}: .jtr and .xml give different output"
        );
        assert!(!a.stdout.is_empty() || sub[0] == "check", "{sub:?}");
    }
}
