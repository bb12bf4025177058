//! The `jtrace` binary end to end: golden outputs on small fixed traces, exact figures,
//! compressed inputs, and bad input of every kind (one clear line, non-zero exit, never
//! a panic). `UPDATE_GOLDEN=1 cargo test -p jtrace-cli` rewrites the golden files (refused when `CI` is set).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn jtrace(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_jtrace"))
        .args(args)
        .current_dir(dir())
        .output()
        .expect("run jtrace")
}

fn ok(args: &[&str]) -> String {
    let o = jtrace(args);
    assert!(
        o.status.success(),
        "jtrace {args:?} failed: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8(o.stdout).expect("utf-8")
}

/// A failure: exit 1, one line on stderr naming `what`, no panic.
fn fails(args: &[&str], what: &str) -> String {
    let o = jtrace(args);
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert_eq!(o.status.code(), Some(1), "jtrace {args:?}: {err}");
    assert!(!err.contains("panicked"), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(err.contains(what), "{err} lacks {what}");
    err
}

fn golden(name: &str, args: &[&str]) {
    let got = ok(args);
    let path = dir().join("tests/golden").join(format!("{name}.txt"));
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        // Golden files are blessed by a person, never by CI.
        assert!(
            std::env::var_os("CI").is_none(),
            "UPDATE_GOLDEN is refused under CI: compare, do not rewrite"
        );
        std::fs::write(&path, &got).unwrap();
        return;
    }
    let want = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert_eq!(got, want, "jtrace {args:?} differs from {}", path.display());
}

const SMALL: &str = "tests/fixtures/small.xml";

#[test]
fn golden_text_outputs() {
    golden("report", &["report", SMALL]);
    golden("report-top2", &["report", "--top", "2", SMALL]);
    golden(
        "report-window",
        &["report", "--from", "3ms", "--to", "9ms", SMALL],
    );
    golden("tree", &["tree", SMALL]);
    golden("tree-depth1", &["tree", "--depth", "1", SMALL]);
    golden("collapsed", &["collapsed", SMALL]);
    golden("collapsed-alloc", &["collapsed", "--alloc", SMALL]);
    golden("slow", &["slow", "--over", "5ms", SMALL]);
    golden("diff", &["diff", SMALL, "tests/fixtures/small-x2.xml"]);
    golden("check", &["check", SMALL]);
    golden("report-json", &["report", "--json", SMALL]);
}

fn report_json(args: &[&str]) -> serde_json::Value {
    serde_json::from_str(&ok(args)).expect("JSON")
}

#[test]
fn exact_figures_and_folded_sum() {
    let v = report_json(&["report", "--json", SMALL]);
    let leaf = v["methods"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["name"] == "leaf")
        .unwrap();
    assert_eq!(leaf["calls"], 4);
    assert_eq!(leaf["self_ns"], 7_500_000);
    let work = v["methods"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["name"] == "work")
        .unwrap();
    // Recursion counted once in total time.
    assert_eq!(work["total_ns"], 11_000_000);
    let self_sum: u64 = v["methods"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["self_ns"].as_u64().unwrap())
        .sum();
    let folded: u64 = ok(&["collapsed", SMALL])
        .lines()
        .map(|l| l.rsplit_once(' ').unwrap().1.parse::<u64>().unwrap())
        .sum();
    assert_eq!(folded, self_sum);
    assert_eq!(v["exceptions"][0]["thrown"], 1);
    assert_eq!(v["exceptions"][0]["caught_in"], "App.work");
    assert_eq!(v["gc"]["collections"], 1);
    assert_eq!(v["gc"]["total_pause_ns"], 2_000_000);
}

fn temp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("jtrace-cli-test-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d.join(name)
}

#[test]
fn compressed_inputs_read_like_plain_ones() {
    let xml = std::fs::read(dir().join(SMALL)).unwrap();
    let gz = temp("small.xml.gz");
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(&xml).unwrap();
    std::fs::write(&gz, e.finish().unwrap()).unwrap();
    let zst = temp("small.xml.zst");
    std::fs::write(&zst, zstd::encode_all(&xml[..], 3).unwrap()).unwrap();
    let plain = ok(&["collapsed", SMALL]);
    assert_eq!(ok(&["collapsed", gz.to_str().unwrap()]), plain);
    assert_eq!(ok(&["collapsed", zst.to_str().unwrap()]), plain);
    assert!(ok(&["check", gz.to_str().unwrap()]).contains("valid"));
    // A truncated compressed stream: read up to where it stops, with a warning.
    let data = std::fs::read(&gz).unwrap();
    let cut = temp("cut.xml.gz");
    std::fs::write(&cut, &data[..data.len() / 2]).unwrap();
    let o = jtrace(&["report", cut.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!err.contains("panicked"), "{err}");
    assert!(
        err.contains("cut short") || o.status.code() == Some(1),
        "{err}"
    );
}

#[test]
fn a_trace_cut_short_is_read_to_its_end_with_a_warning() {
    let o = jtrace(&["report", "tests/fixtures/cut.xml"]);
    assert!(o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("cut short"), "{err}");
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("CUT SHORT") && out.contains("open"), "{out}");
    fails(&["check", "tests/fixtures/cut.xml"], "cut short");
    assert!(ok(&["check", "--prefix-ok", "tests/fixtures/cut.xml"]).contains("cut short"));
}

#[test]
fn bad_input_is_one_clear_line() {
    fails(
        &["report", "tests/fixtures/missing.xml"],
        "missing.xml: cannot open",
    );
    fails(&["report", "tests"], "is a directory");
    let empty = temp("empty.xml");
    std::fs::write(&empty, "").unwrap();
    fails(&["report", empty.to_str().unwrap()], "empty file");
    let bin = temp("binary.xml");
    std::fs::write(&bin, [0u8, 159, 146, 150, 255, 0, 1, 2]).unwrap();
    fails(&["report", bin.to_str().unwrap()], "binary.xml");
    let other = temp("other.xml");
    std::fs::write(&other, "<html><body/></html>").unwrap();
    fails(&["tree", other.to_str().unwrap()], "root element is <html>");
    let garbled = temp("garbled.xml");
    let mut s = std::fs::read_to_string(dir().join(SMALL)).unwrap();
    let mid = s[s.len() / 2..].find('\n').unwrap() + s.len() / 2 + 1;
    s.insert_str(mid, "<a></b>\n");
    std::fs::write(&garbled, s).unwrap();
    fails(&["report", garbled.to_str().unwrap()], "garbled.xml");
    let jtr = temp("t.jtr");
    std::fs::write(&jtr, "JTR").unwrap();
    fails(&["report", jtr.to_str().unwrap()], "not a jtrace .jtr file");
    let badgz = temp("bad.xml.gz");
    std::fs::write(&badgz, "not gzip at all").unwrap();
    fails(&["report", badgz.to_str().unwrap()], "bad.xml.gz");
    // A --thread no thread matches names the trace's threads, in every view.
    for view in ["report", "tree", "collapsed", "slow", "replay"] {
        let err = fails(&[view, "--thread", "nosuch", SMALL], "--thread nosuch");
        assert!(err.contains("main, worker-1"), "{err}");
    }
    fails(
        &["graph", "App.main", "--thread", "wrk*", SMALL],
        "no thread has that name",
    );
    ok(&["report", "--thread", "work*", SMALL]);
    // --method selects report's, slow's and diff's rows; the views of every method
    // refuse it rather than ignore it.
    let (svg, json) = (temp("method-refused.svg"), temp("method-refused.json"));
    let (svg, json) = (svg.to_str().unwrap(), json.to_str().unwrap());
    for view in [
        &["tree"][..],
        &["collapsed"],
        &["flame", "-o", svg],
        &["replay"],
        &["perfetto", "-o", json],
    ] {
        let args = [view, &["--method", "App.leaf", SMALL]].concat();
        fails(&args, "--method App.leaf");
    }
    let only = ok(&["report", "--method", "App.leaf", SMALL]);
    let table = only.split("Threads by").next().unwrap_or_default();
    assert!(
        table.contains("App.leaf()") && !table.contains("App.work("),
        "{only}"
    );
    // An output is refused before any read: an extension the view does not write, a
    // missing directory (usage errors: exit 2).
    let png = temp("flame.png");
    let o = jtrace(&["flame", "-o", png.to_str().unwrap(), SMALL]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains(".svg, .html, .htm"));
    assert!(!png.exists());
    let o = jtrace(&["report", "-o", "/no/such/dir/r.txt", SMALL]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("no directory /no/such/dir"));
    // Usage errors are clap's: exit 2, the problem and a pointer to --help.
    let o = jtrace(&["slow", "--over", "10", SMALL]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("give a unit"));
}

/// Every prefix of a trace is either read (with a warning) or refused in one line.
#[test]
fn no_prefix_of_a_trace_makes_it_panic() {
    let xml = std::fs::read(dir().join(SMALL)).unwrap();
    let p = temp("prefix.xml");
    for n in (1..xml.len()).step_by(37) {
        std::fs::write(&p, &xml[..n]).unwrap();
        let o = jtrace(&["report", "--json", p.to_str().unwrap()]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(!err.contains("panicked"), "prefix {n}: {err}");
        assert!(matches!(o.status.code(), Some(0 | 1)), "prefix {n}: {err}");
    }
}

#[test]
fn perfetto_timeline_nests_and_flame_graph_renders() {
    let out = temp("t.json");
    ok(&["perfetto", SMALL, "-o", out.to_str().unwrap()]);
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
    let ev = v["traceEvents"].as_array().unwrap();
    let n = |ph: &str| ev.iter().filter(|e| e["ph"] == ph).count();
    assert_eq!(n("B"), 8);
    assert_eq!(n("E"), 8);
    assert!(ev.iter().any(|e| e["name"] == "blocked on App$Lock"));
    assert!(ev
        .iter()
        .any(|e| e["name"] == "throw java.lang.IllegalStateException"));
    let svg = temp("f.svg");
    ok(&["flame", SMALL, "-o", svg.to_str().unwrap()]);
    let s = std::fs::read_to_string(&svg).unwrap();
    assert!(s.contains("App.leaf") && s.starts_with("<?xml"));
    let html = temp("f.html");
    ok(&["flame", SMALL, "-o", html.to_str().unwrap()]);
    assert!(std::fs::read_to_string(&html)
        .unwrap()
        .contains("data:image/svg+xml;base64,"));
    // A limit nothing fits makes perfetto refuse (the measuring pass runs for any input
    // larger than the limit).
    fails(
        &[
            "perfetto",
            SMALL,
            "-o",
            out.to_str().unwrap(),
            "--max-size",
            "0",
        ],
        "--max-size",
    );
    // Over the limit: a window from the start that fits, said on stderr.
    let o = jtrace(&[
        "perfetto",
        SMALL,
        "-o",
        out.to_str().unwrap(),
        "--max-size",
        "0.001",
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        o.status.success() && err.contains("writing its first"),
        "{err}"
    );
    let written = std::fs::read(&out).unwrap();
    assert!(
        written.len() <= 1048 && !written.is_empty(),
        "{}",
        written.len()
    );
    let v: serde_json::Value = serde_json::from_slice(&written).unwrap();
    assert!(v["traceEvents"].as_array().is_some_and(|e| !e.is_empty()));
    // A window the user chose is not narrowed behind their back.
    fails(
        &[
            "perfetto",
            SMALL,
            "-o",
            out.to_str().unwrap(),
            "--max-size",
            "0.001",
            "--from",
            "0",
        ],
        "narrower window",
    );
}

#[test]
fn help_everywhere() {
    for sub in [
        "report",
        "tree",
        "slow",
        "flame",
        "collapsed",
        "perfetto",
        "diff",
        "check",
    ] {
        assert!(ok(&[sub, "--help"]).contains("Usage:"));
    }
    let version = ok(&["--version"]);
    assert!(version.contains("CDDL-1.0"), "{version}");
    // The version carries the commit it was built from (semver build metadata).
    let first = version.lines().next().unwrap_or_default();
    let commit = first
        .strip_prefix(concat!("jtrace ", env!("CARGO_PKG_VERSION"), "+"))
        .unwrap_or_default();
    assert!(
        commit.len() >= 7 && commit.chars().all(|c| c.is_ascii_hexdigit()) || commit == "unknown",
        "{first}"
    );
    let _ = Path::new("");
}

/// A `.jtr` cut short is not whole anywhere: `check` fails (unless `--prefix-ok`), the
/// JSON says `"complete": false`, the text heading says where it stops.
#[test]
fn a_cut_jtr_says_so_everywhere() {
    let whole = std::fs::read(dir().join("../trace/tests/data/v1-exceptions.jtr")).unwrap();
    let tmp = std::env::temp_dir().join(format!("jtrace-cut-jtr-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    let cut = tmp.join("cut.jtr");
    std::fs::write(&cut, &whole[..whole.len() * 2 / 3]).unwrap();
    let path = cut.to_str().unwrap();
    fails(&["check", path], "cut short");
    assert!(ok(&["check", "--prefix-ok", path]).contains("cut short"));
    let doc = ok(&["report", "--json", path]);
    assert!(doc.contains("\"complete\": false"), "{doc}");
    let text = ok(&["report", path]);
    assert!(
        text.contains("CUT SHORT") && text.contains("cut short ("),
        "{text}"
    );
    assert!(ok(&["info", path]).contains("CUT SHORT"));
    // The whole file is whole.
    let doc = ok(&["report", "--json", "../trace/tests/data/v1-exceptions.jtr"]);
    assert!(doc.contains("\"complete\": true"), "{doc}");
    let _ = std::fs::remove_dir_all(&tmp);
}

/// The new views on the fixture: exact structure, on XML and on its `.jtr` twin alike
/// (the xtask cli step compares them byte for byte on a real run).
#[test]
fn replay_graph_and_info() {
    let r = ok(&["replay", SMALL]);
    assert_eq!(r.matches("App.leaf()").count(), 5, "{r}");
    assert!(
        r.contains("! IllegalStateException thrown in App.fail() line 24, caught in App.work(int)"),
        "{r}"
    );
    assert!(
        r.contains("~ blocked on App.Lock (held by worker-1)"),
        "{r}"
    );
    let depth1 = ok(&["replay", "--depth", "1", SMALL]);
    assert!(!depth1.contains("App.work"), "{depth1}");
    // Nothing shown inside it: one line, not an empty `{` `}` pair.
    assert!(
        depth1.contains("19.00ms  main             App.main(String[])\n")
            && !depth1.contains("App.main(String[]) {"),
        "{depth1}"
    );
    let long = ok(&["replay", "--min-time", "5ms", SMALL]);
    assert!(
        !long.contains("App.leaf()\n") && long.contains("} App.work(int)"),
        "{long}"
    );
    let g = ok(&["graph", "App.leaf", "--json", SMALL]);
    let v: serde_json::Value = serde_json::from_str(&g).unwrap();
    assert_eq!(v["calls"], 4);
    assert_eq!(v["callers"][0]["calls"], 4);
    assert_eq!(v["callers"][0]["jvm"], "App.leaf()V");
    fails(&["graph", "App.nothing", SMALL], "no call of a method");
    let i = ok(&["info", "--json", SMALL]);
    let v: serde_json::Value = serde_json::from_str(&i).unwrap();
    assert_eq!(v["events"]["methodEntry"], 8);
    assert_eq!(v["threads"][0]["calls"], 7);
}

/// Under a window, a collection's pause counts only within it, as calls' times do (the
/// fixture's collection runs from 21 to 23 ms).
#[test]
fn a_window_clips_collections() {
    let gc = |args: &[&str]| {
        report_json(&[&["report", "--json"], args, &[SMALL]].concat())["gc"].clone()
    };
    assert_eq!(gc(&[])["total_pause_ns"], 2_000_000);
    let from = gc(&["--from", "22ms"]);
    assert_eq!(from["collections"], 1);
    assert_eq!(from["total_pause_ns"], 1_000_000);
    assert_eq!(from["max_pause_ns"], 1_000_000);
}

/// The completion script loads in bash and completes a subcommand and an option; the
/// man pages (one per subcommand) render in `man`. Both come from the parser's own
/// definitions, so a new subcommand appears in them by itself.
#[test]
fn completions_and_man_pages_are_the_parsers() {
    let script = temp("jtrace.bash");
    std::fs::write(&script, ok(&["completions", "bash"])).unwrap();
    let complete = |words: &str| -> String {
        let o = Command::new("bash")
            .arg("-c")
            .arg(format!(
                "source {}; COMP_WORDS=({words}); COMP_CWORD=$((${{#COMP_WORDS[@]}} - 1)); \
                 _jtrace jtrace \"${{COMP_WORDS[-1]}}\" \"${{COMP_WORDS[-2]}}\"; \
                 echo \"${{COMPREPLY[@]}}\"",
                script.display()
            ))
            .output()
            .expect("bash (the test needs it)");
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8_lossy(&o.stdout).trim().to_string()
    };
    assert_eq!(complete("jtrace rep"), "report replay");
    assert!(complete("jtrace gate --max").contains("--max-rise"));
    let dir = temp("man1");
    std::fs::create_dir_all(&dir).unwrap();
    let o = jtrace(&["man", dir.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    // Each page's header names the version, on one line.
    for page in ["jtrace", "jtrace-gate"] {
        let roff = std::fs::read_to_string(dir.join(format!("{page}.1"))).unwrap();
        let th = roff
            .lines()
            .find(|l| l.starts_with(".TH"))
            .unwrap_or_default();
        assert!(
            th.contains(concat!(" ", env!("CARGO_PKG_VERSION"), "+"))
                && th.trim_end().ends_with('"'),
            "{page}: {th}"
        );
    }
    for page in ["jtrace", "jtrace-report", "jtrace-gate", "jtrace-baseline"] {
        let o = Command::new("man")
            .args(["-l", "-P", "cat"])
            .arg(dir.join(format!("{page}.1")))
            .env("MANWIDTH", "100")
            .output()
            .expect("man (the test needs it: apt-get install man-db)");
        let text = String::from_utf8_lossy(&o.stdout);
        assert!(
            o.status.success() && text.contains("SYNOPSIS"),
            "{page}: {text}"
        );
    }
    let report = Command::new("man")
        .args(["-l", "-P", "cat"])
        .arg(dir.join("jtrace-report.1"))
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&report.stdout).contains("--json"));
    fails(&["man", "/no/such/dir"], "not a directory");
}

/// A trace through a pipe (`<(zstdcat t.xml.zst)`): an XML document, plain or
/// compressed, answers as the file does (the bytes read to tell its kind are not lost);
/// a `.jtr`, which is read by seeking, is refused in one line that says so.
#[test]
fn a_pipe_reads_as_the_file_and_a_jtr_pipe_is_refused() {
    let data = dir().join("../trace/tests/data");
    let piped = |file: &Path| {
        let script = format!(
            "exec \"$0\" report <(cat '{}')",
            file.display().to_string().replace('\'', "'\\''")
        );
        Command::new("bash")
            .args(["-c", &script, env!("CARGO_BIN_EXE_jtrace")])
            .output()
            .expect("run bash")
    };
    let xml = data.join("v1-exceptions.xml");
    let gz = std::env::temp_dir().join(format!("jtrace-pipe-{}.xml.gz", std::process::id()));
    let mut enc = flate2::write::GzEncoder::new(
        std::fs::File::create(&gz).unwrap(),
        flate2::Compression::fast(),
    );
    enc.write_all(&std::fs::read(&xml).unwrap()).unwrap();
    enc.finish().unwrap();
    // The first line names the file; the rest is the answer.
    let body = |s: &[u8]| {
        String::from_utf8_lossy(s)
            .lines()
            .skip(1)
            .collect::<Vec<_>>()
            .join("\n")
    };
    let whole = body(&jtrace(&["report", xml.to_str().unwrap()]).stdout);
    assert!(whole.contains("calls"), "{whole}");
    for f in [&xml, &gz] {
        let o = piped(f);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        assert_eq!(body(&o.stdout), whole, "{}", f.display());
    }
    let o = piped(&data.join("v1-exceptions.jtr"));
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("read by seeking") && err.trim_end().lines().count() == 1,
        "{err}"
    );
    let _ = std::fs::remove_file(&gz);
}
