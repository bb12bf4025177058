//! Tests that compile Java with real JDKs, instrument it and run it on a JVM
//! with `-Xverify:all`, plus hostile-input tests.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use super::*;

const JDK17: &str = "/usr/lib/jvm/java-17-openjdk-amd64";
const JDK25: &str = "/usr/lib/jvm/temurin-25-jdk-amd64";

fn testdata() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src/classfile/testdata")
}

/// A fresh scratch directory per test (and per process).
fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("jtrace-classfile-{}-{}", name, std::process::id()));
    let _ = fs::remove_dir_all(&d);
    fs::create_dir_all(&d).unwrap();
    d
}

/// Runs a JDK tool; panics with its output on failure (a missing JDK is a
/// test failure, not a skip).
fn run(jdk: &str, tool: &str, args: &[&str]) -> (String, String) {
    let exe = Path::new(jdk).join("bin").join(tool);
    let out = Command::new(&exe)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", exe.display()));
    let (so, se) = (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    );
    assert!(
        out.status.success(),
        "{} {:?} failed:\n{so}\n{se}",
        exe.display(),
        args
    );
    (so, se)
}

fn javac(jdk: &str, out: &Path, extra: &[&str], sources: &[PathBuf]) {
    let out_s = out.to_str().unwrap().to_string();
    let mut args: Vec<String> = vec!["-d".into(), out_s];
    args.extend(extra.iter().map(|s| s.to_string()));
    args.extend(sources.iter().map(|p| p.to_str().unwrap().to_string()));
    let refs: Vec<&str> = args.iter().map(|s| s.as_str()).collect();
    run(jdk, "javac", &refs);
}

fn class_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            class_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "class") {
            out.push(p);
        }
    }
    out.sort();
}

#[test]
fn parse_info_small_class() {
    let dir = scratch("info");
    let src = dir.join("p/Small.java");
    fs::create_dir_all(src.parent().unwrap()).unwrap();
    fs::write(
        &src,
        "package p;\n\
         public class Small implements Runnable, java.io.Serializable {\n\
         static int s1, s2; int i1;\n\
         public void run() {}\n\
         static int f(int x) throws java.io.IOException, InterruptedException {\n\
         int y = 0;\n\
         while (x > 0) {\n\
         y += x;\n\
         x--; }\n\
         return y; }\n\
         native void n();\n\
         class Inner {}\n\
         }\n",
    )
    .unwrap();
    for jdk in [JDK17, JDK25] {
        let out = dir.join("out");
        javac(jdk, &out, &[], std::slice::from_ref(&src));
        let info = parse_info(&fs::read(out.join("p/Small.class")).unwrap()).unwrap();
        assert_eq!(info.name, "p/Small");
        assert_eq!(info.super_name.as_deref(), Some("java/lang/Object"));
        assert_eq!(
            info.interfaces,
            vec!["java/lang/Runnable", "java/io/Serializable"]
        );
        assert_eq!(info.source_file.as_deref(), Some("Small.java"));
        assert_eq!((info.static_fields, info.instance_fields), (2, 1));
        assert!(info.major_version >= 61);
        let names: Vec<_> = info
            .methods
            .iter()
            .map(|m| (m.name.as_str(), m.descriptor.as_str()))
            .collect();
        assert_eq!(
            names,
            vec![
                ("<init>", "()V"),
                ("run", "()V"),
                ("f", "(I)I"),
                ("n", "()V")
            ]
        );
        let f = &info.methods[2];
        assert_eq!(
            f.exceptions,
            vec!["java/io/IOException", "java/lang/InterruptedException"]
        );
        assert!(f.has_code);
        // javac: 0 iconst_0 1 istore_1 | 2 iload_0 3 ifle 16 | 6 iload_1 7 iload_0
        // 8 iadd 9 istore_1 | 10 iinc 0,-1 13 goto 2 | 16 iload_1 17 ireturn
        assert_eq!(
            f.line_numbers,
            vec![(0, 6), (2, 7), (6, 8), (10, 9), (16, 10)]
        );
        assert_eq!(f.units, vec![(0, 6), (2, 7), (6, 8), (10, 9), (16, 10)]);
        let run_m = &info.methods[1];
        assert_eq!(run_m.units, vec![(0, 4)]);
        let n = &info.methods[3];
        assert!(!n.has_code && n.units.is_empty() && n.line_numbers.is_empty());
        // Without debug info: one unit per method.
        javac(jdk, &out, &["-g:none"], std::slice::from_ref(&src));
        let info = parse_info(&fs::read(out.join("p/Small.class")).unwrap()).unwrap();
        assert_eq!(info.methods[2].units, vec![(0, 0)]);
        assert!(info.methods[2].line_numbers.is_empty());
        assert_eq!(info.source_file, None);
        let inner = parse_info(&fs::read(out.join("p/Small$Inner.class")).unwrap()).unwrap();
        assert_eq!(inner.name, "p/Small$Inner");
    }
    let _ = fs::remove_dir_all(&dir);
}

/// Generated classes around the size limits. Padding pushes line numbers
/// above 32767 so line probes need `ldc_w`.
fn write_big_sources(dir: &Path) -> Vec<PathBuf> {
    let pad = "\n".repeat(33_000);
    let stmts = |k: usize, s: &str| (0..k).map(|_| s).collect::<Vec<_>>().join("\n");
    let files = [
        (
            "Big.java",
            format!(
                "{pad}public class Big {{\n\
                 // Backward goto spans > 32K after instrumentation: goto_w.\n\
                 static int bigLoop(int n) {{\n int s = 0, i = 0;\n while (true) {{\n{}\n if (++i >= n) return s;\n s--;\n }}\n }}\n\
                 static void run() {{\n\
                 System.out.println(\"big \" + bigLoop(3));\n\
                 System.out.println(\"huge \" + Huge.huge(2));\n\
                 System.out.println(\"bigcond \" + BigCond.f(2));\n\
                 System.out.println(\"fat \" + Fat.f(3));\n }}\n}}\n",
                stmts(2500, "s += i * 3 + 1;")
            ),
        ),
        (
            "Huge.java",
            format!(
                "class Huge {{\n static int huge(int i) {{\n int s = 0;\n{}\n return s;\n }}\n}}\n",
                stmts(7000, "s += i * 3 + 1;")
            ),
        ),
        (
            "BigCond.java",
            format!(
                "class BigCond {{\n static int f(int n) {{\n int s = 0;\n for (int i = 0; i < n; i++) {{\n{}\n }}\n return s;\n }}\n}}\n",
                stmts(2500, "s += i * 3 + 1;")
            ),
        ),
        (
            // Loop body > 32K already in the original: javac emits goto_w.
            "Fat.java",
            format!(
                "{pad}class Fat {{\n static int f(int n) {{\n int s = 0;\n for (int i = 0; i < n; i++) {{\n{}\n }}\n return s;\n }}\n}}\n",
                stmts(1600, "s += i * 3 + 1; s ^= s >>> 3; s += 7 * i;")
            ),
        ),
    ];
    files
        .iter()
        .map(|(name, text)| {
            let p = dir.join(name);
            fs::write(&p, text).unwrap();
            p
        })
        .collect()
}

/// What the instrumented run must satisfy for one method id.
struct Expect {
    what: String,
    lines: BTreeSet<u16>,
}

/// Compiles the corpus with `jdk`, instruments every class, runs original
/// and instrumented code under `-Xverify:all` and compares.
/// `grows`: line probes make Huge/BigCond too big (false without line tables).
fn verify_corpus(name: &str, jdk: &str, javac_extra: &[&str], lines: bool, grows: bool) {
    verify_corpus_in("corpus", name, jdk, javac_extra, lines, grows, 1);
}

/// `implicit_unwinds`: constructors whose super() call throws in the corpus.
fn verify_corpus_in(
    corpus: &str,
    name: &str,
    jdk: &str,
    javac_extra: &[&str],
    lines: bool,
    grows: bool,
    implicit_unwinds: u32,
) {
    let dir = scratch(name);
    let (src, orig, rt, inst) = (
        dir.join("src"),
        dir.join("orig"),
        dir.join("rt"),
        dir.join("inst"),
    );
    fs::create_dir_all(&src).unwrap();
    let mut sources = write_big_sources(&src);
    for e in fs::read_dir(testdata().join(corpus)).unwrap() {
        sources.push(e.unwrap().path());
    }
    javac(jdk, &orig, javac_extra, &sources);
    let cp_orig = orig.to_str().unwrap().to_string();
    javac(
        jdk,
        &rt,
        &["-cp", &cp_orig],
        &[
            testdata().join("Tracker.java"),
            testdata().join("Harness.java"),
        ],
    );

    let mut classes = Vec::new();
    class_files(&orig, &mut classes);
    let mut expect: BTreeMap<u32, Expect> = BTreeMap::new();
    let mut next = 1u32;
    let mut refused = BTreeMap::new();
    let mut degraded = BTreeSet::new();
    for (ci, path) in classes.iter().enumerate() {
        let bytes = fs::read(path).unwrap();
        let info = parse_info(&bytes).unwrap();
        let ids: Vec<Option<u32>> = info
            .methods
            .iter()
            .map(|m| {
                // Alternate small ids and ids that need ldc_w.
                let id = if ci % 2 == 1 { 70_000 + next } else { next };
                next += 1;
                expect.insert(
                    id,
                    Expect {
                        what: format!("{}.{}{}", info.name, m.name, m.descriptor),
                        // The line probe passes the executable unit's index.
                        lines: (0..m.units.len() as u16).collect(),
                    },
                );
                Some(id)
            })
            .collect();
        let plan = ProbePlan {
            tracker: "jtrace/Tracker",
            method_ids: &ids,
            lines,
            // Half the classes padded past the JIT's inlining limits (dead code the
            // verifier must accept), crossed with the small/ldc_w id alternation.
            pad: ci % 4 >= 2,
            windows: &[],
        };
        let out = inst.join(path.strip_prefix(&orig).unwrap());
        fs::create_dir_all(out.parent().unwrap()).unwrap();
        let mut notes = Vec::new();
        match instrument_noting(&bytes, &plan, &mut notes) {
            Ok(new) => {
                if !notes.is_empty() {
                    assert!(
                        notes
                            .iter()
                            .all(|n| n.contains("traced without line probes")),
                        "{notes:?}"
                    );
                    degraded.insert(info.name.clone());
                }
                // The result parses and keeps the method table.
                let again = parse_info(&new).unwrap();
                assert_eq!(again.methods.len(), info.methods.len());
                fs::write(&out, new).unwrap();
            }
            Err(e) => {
                refused.insert(info.name.clone(), e);
                fs::write(&out, &bytes).unwrap();
            }
        }
    }
    // Methods that line probes would make too big lose their line probes only
    // (issue 23: degrade per method); no class is refused.
    assert_eq!(refused, BTreeMap::new());
    let expected_degraded: BTreeSet<String> = ["BigCond", "Huge"]
        .into_iter()
        .filter(|_| grows)
        .map(String::from)
        .collect();
    assert_eq!(degraded, expected_degraded);

    let (want, _) = run(jdk, "java", &["-Xverify:all", "-cp", &cp_orig, "Main"]);
    let cp_inst = format!("{}:{}", inst.display(), rt.display());
    let (got, report) = run(jdk, "java", &["-Xverify:all", "-cp", &cp_inst, "Harness"]);
    assert_eq!(got, want, "instrumented output differs");
    assert!(report.contains("TRACKER-END"), "{report}");
    let errors: Vec<&str> = report.lines().filter(|l| l.starts_with("E ")).collect();
    assert!(errors.is_empty(), "tracker errors: {errors:#?}");
    let (mut enters, mut unwinds, mut caughts, mut line_calls, mut implicit) = (0, 0, 0, 0, 0);
    for l in report.lines() {
        let f: Vec<&str> = l.split(' ').collect();
        match f[0] {
            "M" => {
                let v: Vec<u64> = f[1..].iter().map(|x| x.parse().unwrap()).collect();
                let e = &expect[&(v[0] as u32)];
                assert_eq!(v[1], v[2] + v[3], "enter != exit + unwind for {}", e.what);
                enters += v[1];
                unwinds += v[3];
                caughts += v[4];
            }
            "I" => {
                // Only a constructor's uncovered super() call may skip unwind.
                let e = &expect[&f[1].parse::<u32>().unwrap()];
                assert!(e.what.contains(".<init>("), "implicit unwind of {}", e.what);
                implicit += 1;
            }
            "L" => {
                let (id, line): (u32, u16) = (f[1].parse().unwrap(), f[2].parse().unwrap());
                let e = &expect[&id];
                assert!(lines, "line probe with lines off");
                assert!(
                    e.lines.contains(&line),
                    "line {line} not a unit of {}",
                    e.what
                );
                line_calls += 1;
            }
            _ => {}
        }
    }
    assert!(enters > 10 && unwinds > 0 && caughts > 2, "{report}");
    assert_eq!(line_calls > 0, lines);
    assert_eq!(
        implicit, implicit_unwinds,
        "implicit unwinds (Derived2.<init>)"
    );
    // JTRACE_KEEP=1 keeps the classes for inspection with javap.
    if std::env::var_os("JTRACE_KEEP").is_none() {
        let _ = fs::remove_dir_all(&dir);
    }
}

#[test]
fn verify_jdk17_lines() {
    verify_corpus("jdk17", JDK17, &[], true, true);
}

#[test]
fn verify_jdk17_nodebug_nolines() {
    verify_corpus("jdk17-g-none", JDK17, &["-g:none"], false, false);
}

#[test]
fn verify_jdk17_nodebug_lines() {
    verify_corpus("jdk17-g-none-lines", JDK17, &["-g:none"], true, false);
}

#[test]
fn verify_jdk17_release8() {
    verify_corpus_in(
        "corpus8",
        "jdk17-r8",
        JDK17,
        &["--release", "8"],
        true,
        true,
        0,
    );
}

#[test]
fn verify_jdk25_release8() {
    verify_corpus_in(
        "corpus8",
        "jdk25-r8",
        JDK25,
        &["--release", "8"],
        true,
        true,
        0,
    );
}

#[test]
fn verify_jdk25_lines() {
    verify_corpus("jdk25", JDK25, &[], true, true);
}

/// Truncated and corrupted class files must give `Err` (or some output),
/// never a panic.
#[test]
fn hostile_input_never_panics() {
    let dir = scratch("fuzz");
    let src = dir.join("src");
    fs::create_dir_all(&src).unwrap();
    let mut sources = write_big_sources(&src);
    for e in fs::read_dir(testdata().join("corpus")).unwrap() {
        sources.push(e.unwrap().path());
    }
    let out = dir.join("out");
    javac(JDK17, &out, &[], &sources);
    let mut classes = Vec::new();
    class_files(&out, &mut classes);
    // The generated size-limit classes are too slow to mutate many times.
    classes.retain(|p| fs::metadata(p).unwrap().len() < 20_000);
    assert!(classes.len() > 10);
    let mut seed = 0x2545_F491_4F6C_DD1Du64;
    let mut rnd = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let (mut tried, mut rejected) = (0, 0);
    for path in &classes {
        let bytes = fs::read(path).unwrap();
        let info = parse_info(&bytes).unwrap();
        let ids: Vec<Option<u32>> = (0..info.methods.len() as u32).map(Some).collect();
        let plan = |ids: &'static [Option<u32>]| ProbePlan {
            tracker: "jtrace/Tracker",
            method_ids: ids,
            lines: true,
            pad: false,
            windows: &[],
        };
        let ids: &'static [Option<u32>] = Box::leak(ids.into_boxed_slice());
        assert!(instrument(&bytes, &plan(ids)).is_ok());
        let mut check = |b: &[u8]| {
            tried += 1;
            let a = parse_info(b).is_err();
            let c = instrument(b, &plan(ids)).is_err();
            if a || c {
                rejected += 1;
            }
        };
        let step = (bytes.len() / 150).max(1);
        for cut in (0..bytes.len()).step_by(step) {
            check(&bytes[..cut]);
        }
        for _ in 0..300 {
            let mut b = bytes.clone();
            for _ in 0..1 + rnd() % 4 {
                let at = (rnd() % b.len() as u64) as usize;
                b[at] = match rnd() % 4 {
                    0 => 0,
                    1 => 0xff,
                    2 => b[at].wrapping_add(1),
                    _ => rnd() as u8,
                };
            }
            check(&b);
        }
        // Mismatched plan length is an error, not a panic.
        assert!(instrument(&bytes, &plan(&[])).is_err() || info.methods.is_empty());
    }
    assert!(tried > 5000 && rejected > tried / 4, "{rejected}/{tried}");
    let _ = fs::remove_dir_all(&dir);
}

/// Hand-assembled version-49 `Main` whose `f` uses `jsr`/`ret` (javac
/// stopped emitting them long ago): no StackMapTable, old verifier.
fn old_main_class() -> Vec<u8> {
    use super::writer::PutBe;
    let mut b = Vec::new();
    b.put_u32(0xCAFE_BABE);
    b.put_u16(0);
    b.put_u16(49);
    b.put_u16(24);
    let utf8 = |b: &mut Vec<u8>, s: &str| {
        b.put_u8(1);
        b.put_u16(s.len() as u16);
        b.extend_from_slice(s.as_bytes());
    };
    let pair = |b: &mut Vec<u8>, tag: u8, x: u16, y: u16| {
        b.put_u8(tag);
        b.put_u16(x);
        b.put_u16(y);
    };
    let class = |b: &mut Vec<u8>, n: u16| {
        b.put_u8(7);
        b.put_u16(n);
    };
    utf8(&mut b, "Main"); // 1
    class(&mut b, 1); // 2
    utf8(&mut b, "java/lang/Object"); // 3
    class(&mut b, 3); // 4
    utf8(&mut b, "main"); // 5
    utf8(&mut b, "([Ljava/lang/String;)V"); // 6
    utf8(&mut b, "f"); // 7
    utf8(&mut b, "(I)I"); // 8
    utf8(&mut b, "Code"); // 9
    utf8(&mut b, "java/lang/System"); // 10
    class(&mut b, 10); // 11
    utf8(&mut b, "out"); // 12
    utf8(&mut b, "Ljava/io/PrintStream;"); // 13
    pair(&mut b, 12, 12, 13); // 14
    pair(&mut b, 9, 11, 14); // 15
    utf8(&mut b, "java/io/PrintStream"); // 16
    class(&mut b, 16); // 17
    utf8(&mut b, "println"); // 18
    utf8(&mut b, "(I)V"); // 19
    pair(&mut b, 12, 18, 19); // 20
    pair(&mut b, 10, 17, 20); // 21
    pair(&mut b, 12, 7, 8); // 22
    pair(&mut b, 10, 2, 22); // 23
    b.put_u16(0x0021);
    b.put_u16(2);
    b.put_u16(4);
    b.put_u16(0);
    b.put_u16(0);
    b.put_u16(2);
    let method = |b: &mut Vec<u8>, name: u16, desc: u16, stack: u16, locals: u16, code: &[u8]| {
        b.put_u16(0x0009);
        b.put_u16(name);
        b.put_u16(desc);
        b.put_u16(1);
        b.put_u16(9);
        b.put_u32(12 + code.len() as u32);
        b.put_u16(stack);
        b.put_u16(locals);
        b.put_u32(code.len() as u32);
        b.extend_from_slice(code);
        b.put_u16(0);
        b.put_u16(0);
    };
    // getstatic out; iconst_3; invokestatic f; invokevirtual println; return
    method(
        &mut b,
        5,
        6,
        2,
        1,
        &[0xb2, 0, 15, 0x06, 0xb8, 0, 23, 0xb6, 0, 21, 0xb1],
    );
    // 0 iconst_0; 1 istore_1; 2 jsr 14; 5 iinc 0 -1; 8 iload_0; 9 ifgt 2;
    // 12 iload_1; 13 ireturn; 14 astore_2; 15 iinc 1 5; 18 ret 2
    let f = [
        0x03, 0x3c, 0xa8, 0, 12, 0x84, 0, 0xff, 0x1a, 0x9d, 0xff, 0xf9, 0x1b, 0xac, 0x4d, 0x84, 1,
        5, 0xa9, 2,
    ];
    method(&mut b, 7, 8, 2, 3, &f);
    b.put_u16(0);
    b
}

#[test]
fn old_class_with_jsr_ret_runs_verified() {
    let bytes = old_main_class();
    let info = parse_info(&bytes).unwrap();
    assert_eq!(info.major_version, 49);
    assert_eq!(info.methods[1].units, vec![(0, 0)]);
    let inst_bytes = instrument(
        &bytes,
        &ProbePlan {
            tracker: "jtrace/Tracker",
            method_ids: &[Some(1), Some(40_000)],
            lines: true,
            // Padded: the old verifier (no stack maps, jsr/ret) must accept the dead code.
            pad: true,
            windows: &[],
        },
    )
    .unwrap();
    let padded = parse_info(&inst_bytes).unwrap();
    assert!(padded
        .methods
        .iter()
        .all(|m| m.code_len as usize == super::NOT_INLINED));
    for (name, jdk) in [("old17", JDK17), ("old25", JDK25)] {
        let dir = scratch(name);
        let (orig, inst, rt) = (dir.join("orig"), dir.join("inst"), dir.join("rt"));
        fs::create_dir_all(&orig).unwrap();
        fs::create_dir_all(&inst).unwrap();
        fs::write(orig.join("Main.class"), &bytes).unwrap();
        fs::write(inst.join("Main.class"), &inst_bytes).unwrap();
        let cp = orig.to_str().unwrap().to_string();
        javac(
            jdk,
            &rt,
            &["-cp", &cp],
            &[
                testdata().join("Tracker.java"),
                testdata().join("Harness.java"),
            ],
        );
        let (want, _) = run(jdk, "java", &["-Xverify:all", "-cp", &cp, "Main"]);
        assert_eq!(want.trim(), "15");
        let cp = format!("{}:{}", inst.display(), rt.display());
        let (got, report) = run(jdk, "java", &["-Xverify:all", "-cp", &cp, "Harness"]);
        assert_eq!(got, want);
        let mut lines: Vec<&str> = report
            .lines()
            .filter(|l| !l.starts_with("WARNING"))
            .collect();
        lines.sort();
        assert_eq!(
            lines,
            vec![
                "L 1 0 1",
                "L 40000 0 1",
                "M 1 1 1 0 0",
                "M 40000 1 1 0 0",
                "TRACKER-END"
            ],
            "{report}"
        );
        let _ = fs::remove_dir_all(&dir);
    }
}

#[test]
fn padding_spares_recursive_methods() {
    let dir = scratch("pad");
    let (src, out) = (dir.join("src"), dir.join("out"));
    fs::create_dir_all(&src).unwrap();
    let file = src.join("Pad.java");
    fs::write(
        &file,
        "class Pad {\n\
         static int small(int n) { return n + 1; }\n\
         static int self(int n) { return n == 0 ? 0 : self(n - 1) + 1; }\n\
         int virt(Pad p, int n) { return n == 0 ? 0 : p.virt(this, n - 1); }\n\
         }\n",
    )
    .unwrap();
    javac(JDK17, &out, &[], &[file]);
    let bytes = fs::read(out.join("Pad.class")).unwrap();
    let info = parse_info(&bytes).unwrap();
    let ids: Vec<Option<u32>> = (1..=info.methods.len() as u32).map(Some).collect();
    let plan = |pad| ProbePlan {
        tracker: "jtrace/Tracker",
        method_ids: &ids,
        lines: false,
        pad,
        windows: &[],
    };
    let len = |b: &[u8], name: &str| {
        parse_info(b)
            .unwrap()
            .methods
            .iter()
            .find(|m| m.name == name)
            .unwrap()
            .code_len as usize
    };
    let plain = instrument(&bytes, &plan(false)).unwrap();
    let padded = instrument(&bytes, &plan(true)).unwrap();
    for name in ["<init>", "small"] {
        assert!(len(&plain, name) < NOT_INLINED, "{name}");
        assert_eq!(len(&padded, name), NOT_INLINED, "{name}");
    }
    // A method calling itself keeps its size: the JIT inlines it into itself once.
    for name in ["self", "virt"] {
        assert_eq!(len(&padded, name), len(&plain, name), "{name}");
    }
}
