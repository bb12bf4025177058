//! The house's claims checked against the code (`cargo xtask tidy`): the crate arrows docs/ARCHITECTURE.md states are the Cargo.toml files' dependencies, the generated JVMTI bindings are the generator's output, and every function the JVM calls is defined where the page says.

use crate::util;
use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

/// The workspace's crates by folder.
const CRATES: &[&str] = &["agent", "cli", "trace", "tracecheck", "xtask"];

/// The line of docs/ARCHITECTURE.md that lists the arrows.
const ARROWS: &str = "Arrows (each crate's `[dependencies]` on the others";

/// Every check: the problems found, one line each.
pub fn check(root: &Path) -> Vec<String> {
    let mut bad = Vec::new();
    bad.extend(arrows(root).err());
    bad.extend(bindings(root).err());
    bad.extend(extern_fns(root));
    bad
}

/// The arrows the page states equal those of the Cargo.toml files.
fn arrows(root: &Path) -> Result<(), String> {
    let doc = std::fs::read_to_string(root.join("docs/ARCHITECTURE.md"))
        .map_err(|e| format!("docs/ARCHITECTURE.md: {e}"))?;
    let stated = stated_arrows(&doc)?;
    let mut actual = BTreeSet::new();
    for c in CRATES {
        let toml = std::fs::read_to_string(root.join(c).join("Cargo.toml"))
            .map_err(|e| format!("{c}/Cargo.toml: {e}"))?;
        for dep in path_dependencies(&toml) {
            let to = CRATES
                .iter()
                .find(|k| dep == format!("../{k}"))
                .ok_or_else(|| {
                    format!("{c}/Cargo.toml: a dependency on {dep}, no crate of the workspace")
                })?;
            actual.insert((c.to_string(), to.to_string()));
        }
    }
    if stated == actual {
        return Ok(());
    }
    let show = |s: &BTreeSet<(String, String)>| {
        s.iter()
            .map(|(a, b)| format!("{a} → {b}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    Err(format!(
        "docs/ARCHITECTURE.md states the arrows {}; the Cargo.toml files have {}",
        show(&stated),
        show(&actual)
    ))
}

/// The arrows of the page's line that lists them (`a → b, c → d.`, over several lines).
fn stated_arrows(doc: &str) -> Result<BTreeSet<(String, String)>, String> {
    let at = doc
        .find(ARROWS)
        .ok_or("docs/ARCHITECTURE.md: no line of crate arrows")?;
    let text = &doc[at..];
    let body = text[text.find(':').ok_or("the arrows' line has no ':'")? + 1..]
        .split("\n\n")
        .next()
        .unwrap_or_default();
    let body = body.trim().trim_end_matches('.');
    body.split(',')
        .map(|a| {
            let (from, to) = a
                .split_once('→')
                .ok_or_else(|| format!("docs/ARCHITECTURE.md: {a:?} is no arrow"))?;
            Ok((from.trim().to_string(), to.trim().to_string()))
        })
        .collect()
}

/// The `path = "..."` dependencies of a Cargo.toml's `[dependencies]` table (not its
/// dev-dependencies: the tests' oracle is no arrow of the house).
fn path_dependencies(toml: &str) -> Vec<String> {
    let mut section = "";
    let mut out = Vec::new();
    for line in toml.lines().map(str::trim) {
        if line.starts_with('[') {
            section = line;
            continue;
        }
        if section != "[dependencies]" {
            continue;
        }
        if let Some(p) = line
            .split("path = \"")
            .nth(1)
            .and_then(|r| r.split('"').next())
        {
            out.push(p.to_string());
        }
    }
    out
}

/// agent/src/sys/jvmti.rs is `tools/gen_jvmti.py`'s output for the newest JDK's
/// `jvmti.h` (`--check`).
fn bindings(root: &Path) -> Result<(), String> {
    let jdk = crate::java::discover()
        .into_iter()
        .max_by_key(|j| j.feature)
        .ok_or("no JDK to take jvmti.h from")?;
    util::run_tool(
        Command::new("python3")
            .current_dir(root)
            .arg("tools/gen_jvmti.py")
            .arg("--check")
            .arg(jdk.home.join("include/jvmti.h"))
            .arg("agent/src/sys/jvmti.rs"),
        "tools/gen_jvmti.py --check",
    )
}

/// No function the JVM calls (`extern "C"`/`extern "system"`) is defined in the agent
/// outside `entry.rs` and `sys/`.
fn extern_fns(root: &Path) -> Vec<String> {
    util::files_under(&root.join("agent/src"))
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "rs"))
        .filter(|p| {
            let rel = p.strip_prefix(root.join("agent/src")).unwrap_or(p);
            !(rel == Path::new("entry.rs") || rel.starts_with("sys"))
        })
        .flat_map(|p| {
            let text = std::fs::read_to_string(&p).unwrap_or_default();
            text.lines()
                .enumerate()
                .filter(|(_, l)| defines_extern_fn(l))
                .map(|(i, _)| {
                    format!(
                        "{}:{}: an extern fn outside entry.rs and sys/",
                        p.strip_prefix(root).unwrap_or(&p).display(),
                        i + 1
                    )
                })
                .collect::<Vec<_>>()
        })
        .collect()
}

/// Whether a line defines an `extern "C"`/`"system"` function (not a pointer type).
fn defines_extern_fn(line: &str) -> bool {
    let code = line.split("//").next().unwrap_or_default();
    ["extern \"C\" fn ", "extern \"system\" fn "]
        .iter()
        .any(|k| {
            code.match_indices(k).any(|(i, _)| {
                let rest = &code[i + k.len()..];
                // `extern "C" fn(` is a function pointer type; a definition names itself.
                !rest.starts_with('(') && !code[..i].contains("Option<")
            })
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arrows_are_read_from_the_line_and_from_dependencies_only() {
        let doc = "x\n\nArrows (each crate's `[dependencies]` on the others; held): cli → trace,\nxtask → agent.\n\nnext";
        let got = stated_arrows(doc).unwrap();
        assert_eq!(
            got.into_iter().collect::<Vec<_>>(),
            [
                ("cli".into(), "trace".into()),
                ("xtask".into(), "agent".into())
            ]
        );
        let toml = "[dependencies]\ntrace = { path = \"../trace\" }\n[dev-dependencies]\ntracecheck = { path = \"../tracecheck\" }\n";
        assert_eq!(path_dependencies(toml), ["../trace"]);
    }

    #[test]
    fn extern_fn_definitions_are_told_from_pointer_types() {
        assert!(defines_extern_fn(
            "pub unsafe extern \"C\" fn Agent_OnLoad("
        ));
        assert!(defines_extern_fn(
            "extern \"system\" fn cb(env: *mut JNIEnv) {"
        ));
        assert!(!defines_extern_fn(
            "pub f: Option<unsafe extern \"C\" fn(x: i32)>,"
        ));
        assert!(!defines_extern_fn("type F = extern \"C\" fn(i32);"));
        assert!(!defines_extern_fn("// extern \"C\" fn old() {}"));
    }

    /// This repository's house holds its claims.
    #[test]
    fn this_house_holds_its_claims() {
        let root = util::root();
        assert_eq!(arrows(&root), Ok(()));
        assert!(extern_fns(&root).is_empty(), "{:?}", extern_fns(&root));
    }
}
