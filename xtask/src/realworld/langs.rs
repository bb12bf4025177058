//! JVM languages from Debian: each one's compiler and a program, run through the language's
//! own launcher (Clojure, Groovy, Scala and Kotlin each load and generate classes through
//! class loaders of their own).

use super::{exec, keep, Case, Ctx, Runner, Traced};
use crate::java;
use std::path::Path;
use std::process::Command;

const CLOJURE_JAR: &str = "/usr/share/java/clojure-1.11.jar";

/// The heap options Debian's `scala`, `scalac`, `kotlin` and `kotlinc` scripts use when
/// `JAVA_OPTS` is unset; setting `JAVA_OPTS` for the agent must keep them.
const SCRIPT_HEAP: &str = "-Xmx256M -Xms32M";

pub fn cases() -> Vec<Case> {
    let case = |name, program, packages, subset, prepare, run| Case {
        name,
        program,
        packages,
        subset,
        options: "",
        ignore: &[],
        mask: keep,
        prepare,
        run: Runner::Command(run),
    };
    vec![
        case(
            "clojure",
            "Clojure: a program loaded from source",
            &["clojure"][..],
            false,
            clojure_input as fn(&Ctx, &Path) -> Result<(), String>,
            clojure_run as fn(&Ctx, &Path, Option<&Traced>) -> Result<Command, String>,
        ),
        // Clojure's compiler orders a closure's fields by the identity hash codes of its
        // locals, which the JVM does not promise from run to run (any extra thread, the
        // agent's included, shifts them): the class files may differ in field order even
        // between two runs without the agent. What is compared instead is what the
        // compiled program does: it runs from `classes/` in a fresh JVM after the compile.
        Case {
            ignore: &["classes"],
            ..case(
                "clojure-aot",
                "Clojure: AOT compiler, then the compiled program",
                &["clojure"],
                false,
                clojure_input,
                clojure_aot,
            )
        },
        case(
            "groovyc",
            "Groovy: groovyc",
            &["groovy"],
            false,
            groovy_input,
            groovyc,
        ),
        case(
            "groovy",
            "Groovy: a script",
            &["groovy"],
            false,
            groovy_input,
            groovy_run,
        ),
        // Traced in full, scalac writes 33 GB in a minute, nearly all of it calls into
        // the Scala library (collections, reflection internals): the compiler's own
        // packages are traced, the library is not.
        Case {
            options: "exclude=scala.collection.*;scala.reflect.*;scala.runtime.*;scala.Predef*",
            ..case(
                "scalac",
                "Scala: scalac (its library excluded)",
                &["scala"],
                false,
                scala_input,
                scalac,
            )
        },
        case(
            "scala",
            "Scala: the scala runner",
            &["scala"],
            true,
            scala_compiled,
            scala_run,
        ),
        case(
            "kotlinc",
            "Kotlin: kotlinc",
            &["kotlin"],
            false,
            kotlin_input,
            kotlinc,
        ),
        case(
            "kotlin",
            "Kotlin: the kotlin runner",
            &["kotlin"],
            false,
            kotlin_compiled,
            kotlin_run,
        ),
    ]
}

/// `JAVA_OPTS` for a launcher script: its default heap options, plus the agent.
fn java_opts(c: &mut Command, traced: Option<&Traced>, name: &str) {
    match traced {
        Some(t) => c.env("JAVA_OPTS", format!("{SCRIPT_HEAP} {}", t.arg(name))),
        None => c.env("JAVA_OPTS", SCRIPT_HEAP),
    };
}

fn clojure_input(ctx: &Ctx, dir: &Path) -> Result<(), String> {
    exec::copy_tree(&ctx.fixtures.join("langs/clojure"), dir)?;
    std::fs::create_dir_all(dir.join("classes")).map_err(|e| e.to_string())
}

/// Debian's `clojure` script runs `java -cp clojure-1.11.jar clojure.main` with no way to
/// pass JVM options, so the same command is run directly.
fn clojure(ctx: &Ctx, traced: Option<&Traced>, name: &str) -> Command {
    java::Run::new(ctx.jdk)
        .args(traced.map(|t| t.arg(name)))
        .args(["-cp", &format!("{CLOJURE_JAR}:.:classes"), "clojure.main"])
        .command()
}

fn clojure_run(ctx: &Ctx, _: &Path, traced: Option<&Traced>) -> Result<Command, String> {
    let mut c = clojure(ctx, traced, "clojure");
    c.arg("run.clj");
    Ok(c)
}

/// `(compile 'demo.core)` writes the namespace's classes to `classes/`.
fn clojure_aot(ctx: &Ctx, _: &Path, traced: Option<&Traced>) -> Result<Command, String> {
    let mut c = clojure(ctx, traced, "clojure-aot");
    // Compile, then run the compiled class in a child JVM (untraced): its output is the
    // compiler's result.
    let java = ctx.java();
    c.args([
        "-e",
        &format!(
            "(compile 'demo.core) (let [p (.start (.inheritIO (ProcessBuilder. [\"{}\" \"-cp\" \"{CLOJURE_JAR}:classes\" \"demo.core\"])))] (System/exit (.waitFor p)))",
            java.display()
        ),
    ]);
    Ok(c)
}

fn groovy_input(ctx: &Ctx, dir: &Path) -> Result<(), String> {
    exec::copy_tree(&ctx.fixtures.join("langs/groovy"), dir)
}

fn groovyc(ctx: &Ctx, _: &Path, traced: Option<&Traced>) -> Result<Command, String> {
    let mut c = ctx.launcher("groovyc");
    if let Some(t) = traced {
        c.env("JAVA_OPTS", t.arg("groovyc"));
    }
    c.args(["-d", "classes", "Shapes.groovy"]);
    Ok(c)
}

fn groovy_run(ctx: &Ctx, _: &Path, traced: Option<&Traced>) -> Result<Command, String> {
    let mut c = ctx.launcher("groovy");
    if let Some(t) = traced {
        c.env("JAVA_OPTS", t.arg("groovy"));
    }
    c.arg("script.groovy");
    Ok(c)
}

fn scala_input(ctx: &Ctx, dir: &Path) -> Result<(), String> {
    exec::copy_tree(&ctx.fixtures.join("langs/scala"), dir)?;
    std::fs::create_dir_all(dir.join("classes")).map_err(|e| e.to_string())
}

fn scalac_cmd(ctx: &Ctx, traced: Option<&Traced>) -> Command {
    let mut c = ctx.launcher("scalac");
    java_opts(&mut c, traced, "scalac");
    c.args(["-d", "classes", "Shapes.scala"]);
    c
}

fn scalac(ctx: &Ctx, _: &Path, traced: Option<&Traced>) -> Result<Command, String> {
    Ok(scalac_cmd(ctx, traced))
}

fn scala_compiled(ctx: &Ctx, dir: &Path) -> Result<(), String> {
    scala_input(ctx, dir)?;
    exec::prepare(scalac_cmd(ctx, None).current_dir(dir), "scalac")
}

fn scala_run(ctx: &Ctx, _: &Path, traced: Option<&Traced>) -> Result<Command, String> {
    let mut c = ctx.launcher("scala");
    java_opts(&mut c, traced, "scala");
    c.args(["-cp", "classes", "Shapes"]);
    Ok(c)
}

fn kotlin_input(ctx: &Ctx, dir: &Path) -> Result<(), String> {
    exec::copy_tree(&ctx.fixtures.join("langs/kotlin"), dir)
}

fn kotlinc_cmd(ctx: &Ctx, traced: Option<&Traced>) -> Command {
    let mut c = ctx.launcher("kotlinc");
    java_opts(&mut c, traced, "kotlinc");
    c.args(["Shapes.kt", "-d", "classes"]);
    c
}

fn kotlinc(ctx: &Ctx, _: &Path, traced: Option<&Traced>) -> Result<Command, String> {
    Ok(kotlinc_cmd(ctx, traced))
}

fn kotlin_compiled(ctx: &Ctx, dir: &Path) -> Result<(), String> {
    kotlin_input(ctx, dir)?;
    exec::prepare(kotlinc_cmd(ctx, None).current_dir(dir), "kotlinc")
}

fn kotlin_run(ctx: &Ctx, _: &Path, traced: Option<&Traced>) -> Result<Command, String> {
    let mut c = ctx.launcher("kotlin");
    java_opts(&mut c, traced, "kotlin");
    c.args(["-cp", "classes", "demo.ShapesKt"]);
    Ok(c)
}
