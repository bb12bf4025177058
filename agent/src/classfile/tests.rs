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
        assert_eq!(info.interfaces, vec!["java/lang/Runnable", "java/io/Serializable"]);
        assert_eq!(info.source_file.as_deref(), Some("Small.java"));
        assert_eq!((info.static_fields, info.instance_fields), (2, 1));
        assert!(info.major_version >= 61);
        let names: Vec<_> = info.methods.iter().map(|m| (m.name.as_str(), m.descriptor.as_str())).collect();
        assert_eq!(names, vec![("<init>", "()V"), ("run", "()V"), ("f", "(I)I"), ("n", "()V")]);
        let f = &info.methods[2];
        assert_eq!(f.exceptions, vec!["java/io/IOException", "java/lang/InterruptedException"]);
        assert!(f.has_code);
        // javac: 0 iconst_0 1 istore_1 | 2 iload_0 3 ifle 16 | 6 iload_1 7 iload_0
        // 8 iadd 9 istore_1 | 10 iinc 0,-1 13 goto 2 | 16 iload_1 17 ireturn
        assert_eq!(f.line_table, vec![(0, 6), (2, 7), (6, 8), (10, 9), (16, 10)]);
        assert_eq!(f.units, vec![(0, 6), (2, 7), (6, 8), (10, 9), (16, 10)]);
        let run_m = &info.methods[1];
        assert_eq!(run_m.units, vec![(0, 4)]);
        let n = &info.methods[3];
        assert!(!n.has_code && n.units.is_empty() && n.line_table.is_empty());
        // Without debug info: one unit per method.
        javac(jdk, &out, &["-g:none"], std::slice::from_ref(&src));
        let info = parse_info(&fs::read(out.join("p/Small.class")).unwrap()).unwrap();
        assert_eq!(info.methods[2].units, vec![(0, 0)]);
        assert!(info.methods[2].line_table.is_empty());
        assert_eq!(info.source_file, None);
        let inner = parse_info(&fs::read(out.join("p/Small$Inner.class")).unwrap()).unwrap();
        assert_eq!(inner.name, "p/Small$Inner");
    }
    let _ = fs::remove_dir_all(&dir);
}
