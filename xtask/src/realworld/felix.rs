//! OSGi: Debian's Apache Felix framework embedded through the OSGi launch API, with five
//! bundles (each its own bundle class loader, which delegates only `java.*` to its parent)
//! that export, import, register and look up services, call each other and throw across
//! bundles; started in order, stopped in reverse.

use super::{exec, keep, Case, Ctx, Runner, Traced};
use crate::java;
use std::path::Path;
use std::process::Command;

const FRAMEWORK: &str = "/usr/share/java/org.apache.felix.framework.jar";

/// In install and start order: each bundle's imports come before it.
const BUNDLES: &[&str] = &[
    "demo.api",
    "demo.util",
    "demo.impl",
    "demo.client",
    "demo.app",
];

pub fn cases() -> Vec<Case> {
    vec![Case {
        name: "felix",
        program: "Apache Felix: 5 bundles started, calling each other, stopped",
        packages: &["libfelix-framework-java"],
        subset: true,
        // Every allocation too: bundle loaders' objects, thrown across bundles, and
        // threads started by the framework (define before use across threads).
        options: "alloc=exact",
        // The bundle cache records install times.
        ignore: &["felix-cache"],
        mask: keep,
        prepare,
        run: Runner::Command(command),
    }]
}

/// Compiles the launcher and builds the bundle jars (untraced).
fn prepare(ctx: &Ctx, dir: &Path) -> Result<(), String> {
    let src = ctx.fixtures.join("felix");
    let mut c = Command::new(ctx.tool("javac"));
    c.args(["-d", "launcher", "-cp", FRAMEWORK])
        .arg(src.join("launcher/FelixLauncher.java"))
        .current_dir(dir);
    exec::prepare(&mut c, "javac FelixLauncher")?;
    let mut classpath = FRAMEWORK.to_string();
    for b in BUNDLES {
        let classes = format!("build/{b}");
        let mut c = Command::new(ctx.tool("javac"));
        c.args(["-d", &classes, "-cp", &classpath])
            .args(exec::java_files(&src.join("bundles").join(b).join("src"))?)
            .current_dir(dir);
        exec::prepare(&mut c, &format!("javac {b}"))?;
        let mut c = Command::new(ctx.tool("jar"));
        c.args([
            "--create",
            "--file",
            &format!("bundles/{b}.jar"),
            "--manifest",
        ])
        .arg(src.join("bundles").join(b).join("MANIFEST.MF"))
        .args(["-C", &classes, "."])
        .current_dir(dir);
        std::fs::create_dir_all(dir.join("bundles")).map_err(|e| e.to_string())?;
        exec::prepare(&mut c, &format!("jar {b}"))?;
        classpath.push(':');
        classpath.push_str(&classes);
    }
    Ok(())
}

fn command(ctx: &Ctx, _dir: &Path, traced: Option<&Traced>) -> Result<Command, String> {
    Ok(java::Run::new(ctx.jdk)
        .args(traced.map(|t| t.arg("felix")))
        .args(["-cp", &format!("launcher:{FRAMEWORK}"), "FelixLauncher"])
        .args(BUNDLES.iter().map(|b| format!("bundles/{b}.jar")))
        .command())
}
