//! Build tools of the corpus: Apache Ant (everything in Ant's own JVM, through its isolating
//! `AntClassLoader`) and Gradle (`--no-daemon build` with JUnit tests).

use super::{exec, keep, Case, Ctx, Runner, Traced};
use crate::java;
use std::path::Path;
use std::process::Command;

pub fn cases() -> Vec<Case> {
    vec![
        Case {
            name: "ant",
            program: "Apache Ant: javac, custom task, in-process <java> and <junit>, jar",
            packages: ANT_PACKAGES,
            subset: true,
            options: "",
            ignore: &[],
            mask: ant_mask,
            prepare: ant_input,
            run: Runner::Command(ant_all),
        },
        Case {
            name: "ant-include-all",
            program: "Apache Ant: in-process <junit> under include=*",
            packages: ANT_PACKAGES,
            subset: false,
            options: "include=*",
            ignore: &[],
            mask: ant_mask,
            prepare: ant_compiled,
            run: Runner::Command(ant_junit),
        },
        Case {
            name: "gradle",
            program: "Gradle --no-daemon build (javac, JUnit tests, jar)",
            packages: &["gradle", "junit4"],
            subset: false,
            options: "",
            // Gradle's own state: file hashes and times (.gradle, the user home it is given),
            // test reports with durations and time stamps (build/test-results,
            // build/reports), and its scratch files (build/tmp).
            ignore: &[
                ".gradle",
                "gradle-home",
                "build/test-results",
                "build/reports",
                "build/tmp",
            ],
            mask: gradle_mask,
            prepare: gradle_input,
            run: Runner::Command(gradle_build),
        },
    ]
}

/// `ant-optional` holds Ant's `<junit>` task, `junit4` the JUnit it runs.
const ANT_PACKAGES: &[&str] = &["ant", "ant-optional", "junit4"];

/// Ant ends with `Total time: N seconds`; JUnit's brief formatter prints
/// `Tests run: …, Time elapsed: N sec`.
fn ant_mask(line: &str) -> String {
    if line.starts_with("Total time: ") {
        "Total time: (masked)".to_string()
    } else if let Some((head, _)) = line.split_once(", Time elapsed: ") {
        format!("{head}, Time elapsed: (masked)")
    } else {
        line.to_string()
    }
}

/// Gradle ends with `BUILD SUCCESSFUL in Ns`.
fn gradle_mask(line: &str) -> String {
    match line.strip_prefix("BUILD SUCCESSFUL in ") {
        Some(_) => "BUILD SUCCESSFUL in (masked)".to_string(),
        None => keep(line),
    }
}

fn ant_input(ctx: &Ctx, dir: &Path) -> Result<(), String> {
    exec::copy_tree(&ctx.fixtures.join("ant"), dir)
}

/// The Ant project with its classes compiled (by Ant, untraced).
fn ant_compiled(ctx: &Ctx, dir: &Path) -> Result<(), String> {
    ant_input(ctx, dir)?;
    let mut c = ant(ctx, None, "compile");
    c.current_dir(dir);
    exec::prepare(&mut c, "ant compile")
}

/// Where Debian installs Ant.
const ANT_HOME: &str = "/usr/share/ant";

/// `ant TARGET`, with the agent if traced. Debian's launcher script (the agent goes in
/// `ANT_OPTS`, which it passes to the JVM) always adds `-Djava.security.manager=allow`,
/// which JDK 24 and later refuse at start-up; there the JVM is started the way the
/// script would, without that one option (Ant needs no security manager for a build).
fn ant(ctx: &Ctx, traced: Option<&Traced>, target: &str) -> Command {
    if ctx.jdk.feature < 24 {
        let mut c = ctx.launcher("ant");
        c.args(["-noinput", target]);
        if let Some(t) = traced {
            c.env("ANT_OPTS", t.arg("ant"));
        }
        return c;
    }
    java::Run::new(ctx.jdk)
        .env_remove("CLASSPATH")
        .args(traced.map(|t| t.arg("ant")))
        .arg("-classpath")
        .arg(format!("{ANT_HOME}/lib/ant-launcher.jar"))
        .arg(format!("-Dant.home={ANT_HOME}"))
        .arg(format!("-Dant.library.dir={ANT_HOME}/lib"))
        .args(["org.apache.tools.ant.launch.Launcher", "-noinput", target])
        .command()
}

fn ant_all(ctx: &Ctx, _dir: &Path, traced: Option<&Traced>) -> Result<Command, String> {
    Ok(ant(ctx, traced, "all"))
}

fn ant_junit(ctx: &Ctx, _dir: &Path, traced: Option<&Traced>) -> Result<Command, String> {
    Ok(ant(ctx, traced, "test-only"))
}

fn gradle_input(ctx: &Ctx, dir: &Path) -> Result<(), String> {
    exec::copy_tree(&ctx.fixtures.join("gradle"), dir)
}

/// `gradle --offline --no-daemon build` with the agent in `JAVA_OPTS` (the build runs in the
/// launcher's JVM under `--no-daemon`; the test worker JVM it forks is not traced). A user
/// home of its own in the run directory, so that both runs start from the same cold state.
fn gradle_build(ctx: &Ctx, dir: &Path, traced: Option<&Traced>) -> Result<Command, String> {
    let mut c = ctx.launcher("gradle");
    c.args(["--offline", "--no-daemon", "--console=plain", "build"])
        .env("GRADLE_USER_HOME", dir.join("gradle-home"));
    if let Some(t) = traced {
        c.env("JAVA_OPTS", t.arg("gradle"));
    }
    Ok(c)
}
