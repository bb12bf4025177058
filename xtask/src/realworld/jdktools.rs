//! The JDK's own tools under `include=*` (so the JDK's classes are traced too): javac on a few
//! dozen generated sources, javadoc on the same, jshell on a script (both its JVMs traced),
//! and jar. The agent goes in through each launcher's `-J` (and jshell's `-R`) options.

use super::{exec, keep, Case, Ctx, Runner, Traced};
use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;

/// Generated source files (three packages).
const SOURCES: usize = 30;
const PACKAGES: &[&str] = &["gen.a", "gen.b", "gen.c"];

pub fn cases() -> Vec<Case> {
    let case = |name, program, subset, prepare, run| Case {
        name,
        program,
        packages: &[],
        subset,
        options: "include=*",
        ignore: &[],
        mask: keep,
        prepare,
        run: Runner::Command(run),
    };
    vec![
        case(
            "javac",
            "javac: 30 generated sources, include=*",
            true,
            sources as fn(&Ctx, &Path) -> Result<(), String>,
            javac as fn(&Ctx, &Path, Option<&Traced>) -> Result<Command, String>,
        ),
        case(
            "javadoc",
            "javadoc -notimestamp: 30 generated sources, include=*",
            false,
            sources,
            javadoc,
        ),
        case(
            "jshell",
            "jshell: a script, both JVMs traced, include=*",
            false,
            jshell_input,
            jshell,
        ),
        case(
            "jar",
            "jar --create: 30 compiled classes, include=*",
            false,
            compiled,
            jar,
        ),
    ]
}

/// One generated class: an interface implementation with generics, a record, a lambda, an
/// inner class, an exception path, javadoc comments, and a call into the previous class.
fn source(i: usize) -> (String, String) {
    let pkg = PACKAGES[i % PACKAGES.len()];
    let prev = if i == 0 {
        "null".to_string()
    } else {
        format!("new {}.C{}()", PACKAGES[(i - 1) % PACKAGES.len()], i - 1)
    };
    let mut s = String::new();
    let _ = write!(
        s,
        r#"package {pkg};

import java.util.ArrayList;
import java.util.List;
import java.util.function.IntUnaryOperator;

/**
 * Generated class {i}: a chain of operators.
 *
 * @since 1.0
 */
public class C{i} implements IntUnaryOperator {{
    /** Names seen so far. */
    public final List<String> names = new ArrayList<>();

    /** A pair. @param a the number @param b the name */
    public record Pair{i}(int a, String b) {{}}

    /** An inner helper. */
    public final class Inner {{
        /** @return twice the value */
        public int twice() {{
            return 2 * names.size() + {i};
        }}
    }}

    /**
     * Applies this operator.
     *
     * @param x the input
     * @return the output
     */
    @Override
    public int applyAsInt(int x) {{
        IntUnaryOperator next = {prev};
        IntUnaryOperator self = y -> y * {i} + 1;
        if (x < 0) {{
            throw new IllegalArgumentException("negative: " + x);
        }}
        return self.applyAsInt(x) + (next == null || x == 0 ? 0 : next.applyAsInt(x - 1));
    }}

    /**
     * A generic helper.
     *
     * @param <T> the element type
     * @param items the items
     * @return the first item or null
     */
    public static <T extends Comparable<T>> T first(List<T> items) {{
        return items.isEmpty() ? null : items.stream().sorted().findFirst().orElse(null);
    }}
}}
"#
    );
    (format!("src/{}/C{i}.java", pkg.replace('.', "/")), s)
}

fn sources(_: &Ctx, dir: &Path) -> Result<(), String> {
    for i in 0..SOURCES {
        let (path, text) = source(i);
        let path = dir.join(path);
        std::fs::create_dir_all(path.parent().expect("in a package")).map_err(|e| e.to_string())?;
        std::fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    Ok(())
}

fn source_files(dir: &Path) -> Result<Vec<String>, String> {
    Ok(exec::java_files(&dir.join("src"))?
        .iter()
        .map(|p| {
            p.strip_prefix(dir)
                .unwrap_or(p)
                .to_string_lossy()
                .into_owned()
        })
        .collect())
}

/// `-J-agentpath:…` for a JDK launcher.
fn j(c: &mut Command, traced: Option<&Traced>, name: &str) {
    if let Some(t) = traced {
        c.arg(format!("-J{}", t.arg(name)));
    }
}

fn javac(ctx: &Ctx, dir: &Path, traced: Option<&Traced>) -> Result<Command, String> {
    let mut c = Command::new(ctx.tool("javac"));
    j(&mut c, traced, "javac");
    c.args(["-g", "-d", "classes"]).args(source_files(dir)?);
    Ok(c)
}

/// `-notimestamp` leaves the generation date out of the pages, so two runs are comparable.
fn javadoc(ctx: &Ctx, _: &Path, traced: Option<&Traced>) -> Result<Command, String> {
    let mut c = Command::new(ctx.tool("javadoc"));
    j(&mut c, traced, "javadoc");
    c.args(["-notimestamp", "-quiet", "-d", "doc", "-sourcepath", "src"])
        .args(PACKAGES);
    Ok(c)
}

fn jshell_input(ctx: &Ctx, dir: &Path) -> Result<(), String> {
    std::fs::copy(ctx.fixtures.join("jdk/script.jsh"), dir.join("script.jsh"))
        .map(|_| ())
        .map_err(|e| e.to_string())
}

/// jshell compiles in its own JVM (`-J`) and runs the snippets in a second JVM it launches
/// (`-R`): both are traced.
fn jshell(ctx: &Ctx, _: &Path, traced: Option<&Traced>) -> Result<Command, String> {
    let mut c = Command::new(ctx.tool("jshell"));
    j(&mut c, traced, "jshell");
    if let Some(t) = traced {
        c.arg(format!("-R{}", t.arg("jshell-remote")));
    }
    c.arg("script.jsh");
    Ok(c)
}

fn compiled(ctx: &Ctx, dir: &Path) -> Result<(), String> {
    sources(ctx, dir)?;
    let mut c = javac(ctx, dir, None)?;
    exec::prepare(c.current_dir(dir), "javac")
}

/// A fixed `--date` for the entries: their times would otherwise be the class files'.
fn jar(ctx: &Ctx, _: &Path, traced: Option<&Traced>) -> Result<Command, String> {
    let mut c = Command::new(ctx.tool("jar"));
    j(&mut c, traced, "jar");
    c.args([
        "--create",
        "--file",
        "app.jar",
        "--date",
        "2020-01-01T00:00:02Z",
        "-C",
        "classes",
        ".",
    ]);
    Ok(c)
}
