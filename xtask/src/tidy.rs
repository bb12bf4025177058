//! `cargo xtask tidy` (and a step of `cargo xtask test`): the repository keeps its promises: a `//!` line opens every Rust file, `unsafe` only where allowed, docs/OPTIONS.md matches the option table, one release build shared by every task, one place that starts `java`, and fmt, clippy and rustdoc are clean.

use crate::tally::Tally;
use crate::util;
use std::path::Path;
use std::process::Command;

/// The only files that may contain `unsafe` code: the FFI and buffer modules of the
/// agent (docs/ARCHITECTURE.md says why each needs it), the attach client's system
/// calls, and the hygiene test's seccomp filter (set between fork and exec).
const UNSAFE_ALLOWED: &[&str] = &[
    "agent/src/buffer.rs",
    "agent/src/entry.rs",
    "agent/src/jvmti.rs",
    "agent/src/sys/",
    "cli/src/attach/sys.rs",
    "xtask/src/steps/hygiene.rs",
];

/// Crate roots that hold the compiler to "no `unsafe` here" (the trace library and the
/// oracle have none; the `jtrace` command denies it, its system calls module excepted).
const UNSAFE_FORBIDDEN: &[(&str, &str)] = &[
    ("trace/src/lib.rs", "#![forbid(unsafe_code)]"),
    ("tracecheck/src/lib.rs", "#![forbid(unsafe_code)]"),
    ("tracecheck/src/main.rs", "#![forbid(unsafe_code)]"),
    ("cli/src/main.rs", "#![deny(unsafe_code)]"),
];

/// The xtask files that may run `cargo build --release` themselves: the one shared
/// release build, and the bench's example on top of it (and this file, which states the
/// rule). Any other task builds through
/// `util::build_release`: cargo unifies features over the packages of a build, so a
/// build of another set compiles shared crates again (minutes of the suite).
const RELEASE_BUILDS: &[&str] = &[
    "xtask/src/util.rs",
    "xtask/src/bench.rs",
    "xtask/src/tidy.rs",
];

/// The one xtask file that starts `java`: `java::Run` builds every JVM's command line
/// (the agent's spelling, the argument order a step relies on), so no other file does.
const JAVA_LAUNCHER: &str = "xtask/src/java.rs";

/// The line (from 1) where `text` starts `java` itself: a `Command::new(...)` whose
/// program names a java launcher (`jdk.java()`, `java`, `&vt_java`, `java_bin`, but
/// not `javac`, `javadoc`, `jtrace`), or spells the launcher's path as a string.
/// Both needles are spelt in pieces so that this file's own text has neither.
fn starts_java(text: &str) -> Option<usize> {
    let line_of = |i: usize| text[..i].matches('\n').count() + 1;
    let names_java = |arg: &str| {
        arg.match_indices("java")
            .any(|(i, _)| !arg[i + 4..].starts_with(|c: char| c.is_ascii_alphanumeric()))
    };
    let new = concat!("Command::", "new(");
    let launched = text.match_indices(new).find_map(|(i, _)| {
        let from = i + new.len();
        let mut depth = 1;
        let end = text[from..].char_indices().find_map(|(j, c)| {
            match c {
                '(' => depth += 1,
                ')' => depth -= 1,
                _ => {}
            }
            (depth == 0).then_some(from + j)
        })?;
        names_java(&text[from..end]).then(|| line_of(i))
    });
    let spelt = text.find(concat!("\"bin/", "java\"")).map(line_of);
    match (launched, spelt) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// Whether `text` runs a release build of its own (`"build"` and `"--release"` given to
/// cargo as arguments).
fn own_release_build(text: &str) -> bool {
    text.contains("\"build\"") && text.contains("\"--release\"")
}

/// The Rust files of the repository (tracked by git, so build output never counts).
fn rust_files(root: &Path) -> Result<Vec<String>, String> {
    let out = Command::new("git")
        .args([
            "ls-files",
            "--cached",
            "--others",
            "--exclude-standard",
            "*.rs",
        ])
        .current_dir(root)
        .output()
        .map_err(|e| format!("cannot run git: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "git ls-files: {}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    Ok(String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::to_string)
        .collect())
}

/// Does this line use `unsafe` as code (not in a comment or a string)?
fn unsafe_code(line: &str) -> bool {
    // The code before any comment, without what is inside string literals.
    let code = line
        .split("//")
        .next()
        .unwrap_or("")
        .split('"')
        .step_by(2)
        .collect::<Vec<_>>()
        .join(" ");
    [
        "unsafe {",
        "unsafe fn",
        "unsafe impl",
        "unsafe extern",
        "unsafe trait",
    ]
    .iter()
    .any(|k| code.contains(k))
}

/// The file rules; one message per broken rule.
pub fn check_files(root: &Path) -> Vec<String> {
    let files = match rust_files(root) {
        Ok(f) => f,
        Err(e) => return vec![e],
    };
    let mut bad = Vec::new();
    for f in files {
        let Ok(text) = std::fs::read_to_string(root.join(&f)) else {
            continue;
        };
        if !text.starts_with("//!") {
            bad.push(format!(
                "{f}: does not open with a `//!` line saying what it is"
            ));
        }
        if f.starts_with("xtask/src/")
            && !RELEASE_BUILDS.contains(&f.as_str())
            && own_release_build(&text)
        {
            bad.push(format!(
                "{f}: runs its own `cargo build --release`; use util::build_release (one package set for every task)"
            ));
        }
        if f.starts_with("xtask/src/") && f != JAVA_LAUNCHER {
            if let Some(n) = starts_java(&text) {
                bad.push(format!(
                    "{f}:{n}: starts `java` itself; build the command with java::Run (xtask/src/java.rs)"
                ));
            }
        }
        let allowed = UNSAFE_ALLOWED.iter().any(|a| f.starts_with(a));
        if !allowed {
            if let Some((n, _)) = text.lines().enumerate().find(|(_, l)| unsafe_code(l)) {
                bad.push(format!(
                    "{f}:{}: `unsafe` outside the modules allowed it (xtask/src/tidy.rs)",
                    n + 1
                ));
            }
        }
    }
    for (f, attr) in UNSAFE_FORBIDDEN {
        let text = std::fs::read_to_string(root.join(f)).unwrap_or_default();
        if !text.lines().any(|l| l.trim() == *attr) {
            bad.push(format!("{f}: lost its `{attr}`"));
        }
    }
    bad.extend(check_options_doc(root));
    bad.extend(check_architecture_names(root, &files_for_names(root)));
    bad
}

/// The tracked Rust sources, read once for the architecture check.
fn files_for_names(root: &Path) -> Vec<(String, String)> {
    rust_files(root)
        .unwrap_or_default()
        .into_iter()
        .filter_map(|f| {
            let text = std::fs::read_to_string(root.join(&f)).ok()?;
            Some((f, text))
        })
        .collect()
}

/// Whether `name` is defined in `sources`: an item (`fn`, `struct`, `const`, ...), a
/// field or enum variant, or a module (a file or directory of that name).
fn defined(name: &str, sources: &[(String, String)]) -> bool {
    let ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    sources.iter().any(|(path, text)| {
        let stem = path
            .rsplit('/')
            .next()
            .unwrap_or("")
            .trim_end_matches(".rs");
        if stem == name || path.contains(&format!("/{name}/")) {
            return true;
        }
        text.match_indices(name).any(|(i, _)| {
            let before = &text[..i];
            let after = &text[i + name.len()..];
            if before.ends_with(ident) || after.starts_with(ident) {
                return false;
            }
            let item = [
                "fn ", "struct ", "enum ", "const ", "static ", "type ", "trait ", "mod ",
            ]
            .iter()
            .any(|k| before.trim_end_matches("r#").ends_with(k));
            // A field or variant: the name opens its line and a `:`, `(`, `{` or `,` follows.
            let line_start = before.rsplit('\n').next().unwrap_or("");
            let line_start = line_start.trim();
            let member = line_start.is_empty() || line_start == "pub" || line_start == "pub(crate)";
            let member = member && after.trim_start().starts_with([':', '(', '{', ',']);
            item || member
        })
    })
}

/// Names in backticks in docs/ARCHITECTURE.md that claim to be the code's: a path
/// whose first segment is one of our crates, modules or types (`sink::closing_line`,
/// `Header::gc_thread_id`), a call (`steal_all()`), or a source file (`events/classes.rs`).
/// Each must exist, so the page cannot drift from the code unnoticed.
pub fn check_architecture_names(root: &Path, sources: &[(String, String)]) -> Vec<String> {
    match std::fs::read_to_string(root.join("docs/ARCHITECTURE.md")) {
        Ok(doc) => check_doc_names(&doc, sources),
        Err(e) => vec![format!("docs/ARCHITECTURE.md: {e}")],
    }
}

/// `check_architecture_names` on the text `doc`.
fn check_doc_names(doc: &str, sources: &[(String, String)]) -> Vec<String> {
    let crates = ["trace", "tracecheck", "jtrace", "agent", "cli", "xtask"];
    let mut bad = Vec::new();
    for (_, token) in doc.split('`').enumerate().filter(|(n, _)| n % 2 == 1) {
        let t = token.trim();
        if t.ends_with(".rs") && !t.contains(' ') {
            let found = sources
                .iter()
                .any(|(p, _)| p == t || p.ends_with(&format!("/{t}")));
            if !found {
                bad.push(format!(
                    "docs/ARCHITECTURE.md names `{t}`, which is no file"
                ));
            }
            continue;
        }
        let t = t.strip_suffix("()").unwrap_or(t);
        let path_like = !t.is_empty()
            && t.split("::")
                .all(|s| !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'));
        if !path_like || (!t.contains("::") && !token.trim().ends_with("()")) {
            continue;
        }
        if !t.contains("::") {
            if !defined(t, sources) {
                bad.push(format!(
                    "docs/ARCHITECTURE.md names `{}`, which is not in the code",
                    token.trim()
                ));
            }
            continue;
        }
        let segs: Vec<&str> = t.split("::").collect();
        let first = segs[0];
        // Someone else's names (HotSpot's `JvmtiExport::...`, std's) are not checked.
        let ours = crates.contains(&first) || defined(first, sources);
        if !ours {
            continue;
        }
        // A name after a module must be in that module's files: a moved function
        // (`lifecycle::closing_line` now in `sink`) is drift too.
        let mut scope: Vec<(String, String)> = sources.to_vec();
        for s in segs.iter().skip(usize::from(crates.contains(&first))) {
            if !defined(s, &scope) {
                bad.push(format!(
                    "docs/ARCHITECTURE.md names `{}`, but `{s}` is not in the code there",
                    token.trim()
                ));
                break;
            }
            let module: Vec<(String, String)> = scope
                .iter()
                .filter(|(p, _)| p.ends_with(&format!("/{s}.rs")) || p.contains(&format!("/{s}/")))
                .cloned()
                .collect();
            if !module.is_empty() {
                scope = module;
            }
        }
    }
    bad
}

/// docs/OPTIONS.md's option table has one row per key of the agent's table, no more.
fn check_options_doc(root: &Path) -> Vec<String> {
    let doc = match std::fs::read_to_string(root.join("docs/OPTIONS.md")) {
        Ok(d) => d,
        Err(e) => return vec![format!("docs/OPTIONS.md: {e}")],
    };
    let table = doc
        .split("## Option table")
        .nth(1)
        .and_then(|t| t.split("\n## ").next())
        .unwrap_or("");
    let documented: Vec<&str> = table
        .lines()
        .filter_map(|l| l.strip_prefix("| `"))
        .filter_map(|l| l.split('`').next())
        .collect();
    let keys = jtrace::options::keys();
    let mut bad = Vec::new();
    // The keys a later trace may set, as the option table declares them.
    let said: Vec<&str> = doc
        .split("may set only")
        .nth(1)
        .and_then(|t| t.split(';').next())
        .unwrap_or("")
        .split('`')
        .skip(1)
        .step_by(2)
        .collect();
    if said != jtrace::options::per_trace_keys() {
        bad.push(format!(
            "docs/OPTIONS.md: \"may set only\" lists {said:?}; the option table's per-trace keys are {:?}",
            jtrace::options::per_trace_keys()
        ));
    }
    for k in &keys {
        if !documented.contains(k) {
            bad.push(format!(
                "docs/OPTIONS.md: option `{k}` has no row in the option table"
            ));
        }
    }
    for d in &documented {
        if !keys.contains(d) {
            bad.push(format!(
                "docs/OPTIONS.md: row `{d}` is not an option of the agent"
            ));
        }
    }
    bad
}

fn tool(cmd: &mut Command, what: &str) -> Result<(), String> {
    let out = cmd
        .output()
        .map_err(|e| format!("cannot run {what}: {e}"))?;
    if out.status.success() {
        return Ok(());
    }
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let first: Vec<&str> = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .take(6)
        .collect();
    Err(format!("{what} failed: {}", first.join(" | ")))
}

/// Every tidy check, each reported as a PASS/FAIL line.
pub fn run_into(tally: &mut Tally) {
    let root = util::root();
    let bad = check_files(&root);
    let files = if bad.is_empty() {
        Ok(())
    } else {
        Err(bad.join("; "))
    };
    tally.report(files, "-", "tidy:files");
    let house = crate::house::check(&root);
    tally.report(
        if house.is_empty() {
            Ok(())
        } else {
            Err(house.join("; "))
        },
        "-",
        "tidy:house",
    );
    tally.report(
        tool(
            util::cargo().args(["fmt", "--all", "--check"]),
            "cargo fmt --check",
        ),
        "-",
        "tidy:fmt",
    );
    tally.report(
        tool(
            util::cargo().args(["clippy", "--quiet", "--all-targets", "--", "-D", "warnings"]),
            "cargo clippy --all-targets -- -D warnings",
        ),
        "-",
        "tidy:clippy",
    );
    tally.report(
        tool(
            util::cargo()
                .args(["doc", "--quiet", "--no-deps", "--workspace"])
                .env("RUSTDOCFLAGS", "-D warnings"),
            "cargo doc (RUSTDOCFLAGS=-D warnings)",
        ),
        "-",
        "tidy:doc",
    );
}

/// `cargo xtask tidy`.
pub fn run() -> bool {
    let mut tally = Tally::default();
    run_into(&mut tally);
    tally.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn architecture_names_must_exist_where_they_are_said_to_be() {
        let src = |p: &str, t: &str| (p.to_string(), t.to_string());
        let sources = [
            src(
                "agent/src/sink.rs",
                "pub fn closing_line() {}\npub const BOUND: usize = 1;",
            ),
            src("agent/src/lifecycle.rs", "pub fn load() {}"),
            src(
                "trace/src/header.rs",
                "pub struct Header {\n    pub gc_thread_id: u32,\n}",
            ),
        ];
        let ok = "`sink::closing_line` `sink::BOUND` `load()` `Header::gc_thread_id` \
                  `lifecycle.rs` `JvmtiExport::anything` `plain words`";
        assert_eq!(check_doc_names(ok, &sources), Vec::<String>::new());
        for bad in [
            "`lifecycle::closing_line`",
            "`sink::gone`",
            "`gone()`",
            "`Header::gone`",
            "`nothing.rs`",
        ] {
            assert_eq!(check_doc_names(bad, &sources).len(), 1, "{bad}");
        }
    }

    #[test]
    fn unsafe_is_found_in_code_not_in_comments() {
        assert!(unsafe_code("    unsafe { f() }"));
        assert!(unsafe_code("pub unsafe fn f() {}"));
        assert!(!unsafe_code("// unsafe { f() } is not here"));
        assert!(!unsafe_code("//! no `unsafe` in this crate"));
        // Spelt in two pieces so that this file's own text has no such line.
        assert!(!unsafe_code(concat!("let s = \"uns", "afe { x }\";")));
    }

    #[test]
    fn a_release_build_of_its_own_is_found() {
        assert!(own_release_build(
            r#"cargo().args(["build", "--release", "-p", "jtrace"])"#
        ));
        assert!(!own_release_build(
            r#"javac(jdk, dir, &["--release", "17"])"#
        ));
        assert!(!own_release_build(r#"gradle(["build"])"#));
    }

    #[test]
    fn a_java_started_outside_java_rs_is_found() {
        let new = concat!("Command::", "new(");
        for bad in [
            "jdk.java())",
            "&java)\n",
            "\n        env.cfg.jdk.join(\"bin/java\"),\n    )",
            "vt_java).arg(\"-cp\")",
            "java_bin)",
        ] {
            assert_eq!(
                starts_java(&format!("let c = {new}{bad};")),
                Some(1),
                "{bad}"
            );
        }
        for good in [
            "jdk.javac())",
            "ctx.tool(\"javadoc\"))",
            "&self.jtrace).arg(jdk.java())",
            "GNU_TIME)",
        ] {
            assert_eq!(
                starts_java(&format!("let c = {new}{good};")),
                None,
                "{good}"
            );
        }
        let spelt = concat!("let j = home.join(\"bin/", "java\");");
        assert_eq!(starts_java(&format!("// two\n{spelt}")), Some(2));
        assert_eq!(starts_java("if !java::java_in(home).is_file() {}"), None);
    }

    #[test]
    fn this_repository_is_tidy() {
        let bad = check_files(&util::root());
        assert!(bad.is_empty(), "{bad:#?}");
    }
}
