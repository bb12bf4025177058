//! `cargo xtask test`, step javaagent: target/release/jtrace-agent.jar as `-javaagent:` on each JDK, beside `-agentpath:`: examples/gate's JUnit suite (H2 traced) prints the same, both traces are valid, the jar's own listener marks the same tests (and looks for JUnit only where the JVM may run tests, or where told to), and `jtrace gate` finds the `-javaagent` run's counts equal to the `-agentpath` run's; the library is extracted once per content (a second start reuses it, two JVMs starting at once into an empty directory both trace), a directory it cannot use is one stderr line with the application running untraced, and `start=off` with `jtrace status/start/stop` works on that JVM.

use crate::java::{self, Jdk};
use crate::tally::Tally;
use crate::util;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Duration;

use crate::steps::gate_tests::{CONSOLE, H2};

struct Ctx<'a> {
    jdk: &'a Jdk,
    agent: &'a Path,
    jtrace: PathBuf,
    jar: PathBuf,
    api: PathBuf,
    classes: PathBuf,
    dir: PathBuf,
}

impl Ctx<'_> {
    /// The suite under `-agentpath:` (`jtrace.jar` on the class path for the listener),
    /// under `-javaagent:` (the jar alone) with `extract` as its directory, or untraced.
    fn run(&self, how: How, out: &str, extract: &Path) -> Result<Output, String> {
        let trace = self.dir.join(out);
        let mut cp = format!("{}:{H2}:{CONSOLE}", self.classes.display());
        let run = java::Run::new(self.jdk).check_jni();
        let run = match how {
            How::Agentpath => {
                cp.push(':');
                cp.push_str(&self.api.display().to_string());
                run.agent(self.agent, &format!("out={}", trace.display()))
            }
            How::Javaagent => run
                .arg(format!("-Djtrace.extractPath={}", extract.display()))
                .javaagent(&self.jar, &format!("out={}", trace.display())),
        };
        run.args(["-cp", &cp, "org.junit.platform.console.ConsoleLauncher"])
            .args(["--disable-banner", "--details=none"])
            .args(["--select-class", "shop.ShopTest"])
            .dir(&self.dir)
            .output()
    }

    /// The tests a trace marks, as (id, outcome), sorted.
    fn marked(&self, trace: &Path) -> Result<Vec<(String, String)>, String> {
        let o = self.jtrace(&["tests".as_ref(), "--json".as_ref(), trace.as_os_str()])?;
        let v: serde_json::Value =
            serde_json::from_str(&ok(&o, "jtrace tests --json")?).map_err(|e| e.to_string())?;
        let mut rows: Vec<(String, String)> = v
            .as_array()
            .into_iter()
            .flatten()
            .map(|t| {
                (
                    t["id"].as_str().unwrap_or("").to_string(),
                    t["outcome"].as_str().unwrap_or("").to_string(),
                )
            })
            .collect();
        rows.sort();
        Ok(rows)
    }

    fn jtrace(&self, args: &[&std::ffi::OsStr]) -> Result<Output, String> {
        Command::new(&self.jtrace)
            .args(args)
            .output()
            .map_err(|e| format!("cannot run jtrace: {e}"))
    }
}

/// `java` with `flags`, then the agent jar extracting into the step's directory and
/// writing `out` (its options): what a `-javaagent` check adds its class path and main to.
fn javaagent(ctx: &Ctx, flags: &[String], out: &str) -> java::Run {
    java::Run::new(ctx.jdk)
        .check_jni()
        .args(flags)
        .arg(format!(
            "-Djtrace.extractPath={}",
            ctx.dir.join("extract").display()
        ))
        .javaagent(&ctx.jar, &format!("out={out}"))
        .dir(&ctx.dir)
}

#[derive(Clone, Copy)]
enum How {
    Agentpath,
    Javaagent,
}

fn ok(o: &Output, what: &str) -> Result<String, String> {
    util::stdout_of(o, what)
}

/// Both ways, the same program, the same tests, the same counts.
fn same_run(ctx: &Ctx) -> Result<(), String> {
    let extract = ctx.dir.join("extract");
    let a = ctx.run(How::Agentpath, "agentpath.jtr", &extract)?;
    let a_out = ok(&a, "java -agentpath")?;
    let b = ctx.run(How::Javaagent, "javaagent.jtr", &extract)?;
    let b_out = ok(&b, "java -javaagent")?;
    let b_err = String::from_utf8_lossy(&b.stderr);
    if b_err.contains("jtrace: -javaagent:") || b_err.contains("not tracing") {
        return Err(format!("-javaagent: {}", util::clip(b_err.trim(), 400)));
    }
    if a_out != b_out || a_out.matches("TRUTH|").count() != 4 {
        return Err(format!(
            "the program printed differently: {:?} and {:?}",
            util::clip(&a_out, 300),
            util::clip(&b_out, 300)
        ));
    }
    let (ta, tb) = (ctx.dir.join("agentpath.jtr"), ctx.dir.join("javaagent.jtr"));
    util::validate_jtr(&ctx.jtrace, &ta, &ctx.dir.join("agentpath.xml"))?;
    util::validate_jtr(&ctx.jtrace, &tb, &ctx.dir.join("javaagent.xml"))?;
    // The jar's listener marks the tests as jtrace.jar's does.
    let (ma, mb) = (ctx.marked(&ta)?, ctx.marked(&tb)?);
    if ma != mb || ma.len() != 4 {
        return Err(format!("tests marked: {ma:?} and {mb:?}"));
    }
    // Every count the gate judges is the same.
    let base = ctx.dir.join("agentpath-baseline.json");
    ok(
        &ctx.jtrace(&[
            "baseline".as_ref(),
            ta.as_os_str(),
            "-o".as_ref(),
            base.as_os_str(),
        ])?,
        "jtrace baseline",
    )?;
    let g = ctx.jtrace(&[
        "gate".as_ref(),
        "--baseline".as_ref(),
        base.as_os_str(),
        tb.as_os_str(),
        "--fail-on-new".as_ref(),
        "--fail-on-missing".as_ref(),
    ])?;
    ok(
        &g,
        "jtrace gate: the -javaagent run against the -agentpath run",
    )?;
    // Extracted once: the library and the listener's registration (the JUnit Platform
    // is on the class path), kept as they were by a second start.
    let files = extracted(&extract)?;
    let stamps = |fs: &[PathBuf]| -> Vec<Option<std::time::SystemTime>> {
        fs.iter()
            .map(|f| std::fs::metadata(f).and_then(|m| m.modified()).ok())
            .collect()
    };
    let before = stamps(&files);
    let again = ctx.run(How::Javaagent, "again.jtr", &extract)?;
    ok(&again, "java -javaagent (second start)")?;
    if before.contains(&None) || extracted(&extract)? != files || stamps(&files) != before {
        return Err("a second start wrote the library or the listener again".into());
    }
    Ok(())
}

/// What the loader extracted under `root`: exactly libjtrace.so and listener.jar, each in
/// the directory of its content's checksum, the root private to this user.
fn extracted(root: &Path) -> Result<Vec<PathBuf>, String> {
    use std::os::unix::fs::PermissionsExt;
    let files = util::files_under(root);
    let names: Vec<String> = files
        .iter()
        .map(|f| {
            f.file_name()
                .unwrap_or_default()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    let mut sorted = names.clone();
    sorted.sort();
    if sorted != ["libjtrace.so", "listener.jar"] {
        return Err(format!(
            "extracted {names:?}, expected libjtrace.so and listener.jar"
        ));
    }
    for f in &files {
        let dir = f.parent().and_then(Path::file_name).unwrap_or_default();
        if util::sha256(f)? != dir.to_string_lossy() {
            return Err(format!(
                "{} is not in the directory of its checksum",
                f.display()
            ));
        }
    }
    let mode = std::fs::metadata(root)
        .map_err(|e| e.to_string())?
        .permissions()
        .mode();
    if mode & 0o022 != 0 {
        return Err(format!(
            "the extract root is mode {:o}: others may write it",
            mode & 0o777
        ));
    }
    Ok(files)
}

/// An extract directory other users may write is refused: one stderr line, the
/// application runs untraced (another user could have put a library there first).
fn shared_extract_dir(ctx: &Ctx) -> Result<(), String> {
    use std::os::unix::fs::PermissionsExt;
    let open = ctx.dir.join("extract-open");
    let _ = std::fs::remove_dir_all(&open);
    std::fs::create_dir_all(&open).map_err(|e| e.to_string())?;
    std::fs::set_permissions(&open, std::fs::Permissions::from_mode(0o777))
        .map_err(|e| e.to_string())?;
    untraced(ctx, &open, "never-open.jtr", "other users")?;
    if !util::files_under(&open).is_empty() {
        return Err("something was extracted into a directory others may write".into());
    }
    Ok(())
}

/// `-javaagent:` with `extract` as its directory: one stderr line saying `says` and that
/// the application runs untraced, the application's output as without the agent, no `out`.
fn untraced(ctx: &Ctx, extract: &Path, out: &str, says: &str) -> Result<(), String> {
    let o = ctx.run(How::Javaagent, out, extract)?;
    let stdout = ok(
        &o,
        &format!("java -javaagent with extract path {}", extract.display()),
    )?;
    let err = String::from_utf8_lossy(&o.stderr);
    let lines: Vec<&str> = err.lines().filter(|l| l.contains("jtrace")).collect();
    if lines.len() != 1 || !lines[0].contains(says) || !lines[0].contains("runs untraced") {
        return Err(format!("stderr: {}", util::clip(err.trim(), 300)));
    }
    if stdout.matches("TRUTH|").count() != 4 || ctx.dir.join(out).exists() {
        return Err("the application did not run as without the agent".into());
    }
    Ok(())
}

/// Two JVMs starting at once into an empty directory: both extract or reuse, both trace.
fn at_once(ctx: &Ctx) -> Result<(), String> {
    let extract = ctx.dir.join("extract-race");
    let _ = std::fs::remove_dir_all(&extract);
    let (a, b) = std::thread::scope(|s| {
        let a = s.spawn(|| ctx.run(How::Javaagent, "race-a.jtr", &extract));
        let b = s.spawn(|| ctx.run(How::Javaagent, "race-b.jtr", &extract));
        (a.join(), b.join())
    });
    for (o, t) in [(a, "race-a"), (b, "race-b")] {
        let o = o.map_err(|_| "a starter thread panicked".to_string())??;
        ok(&o, t)?;
        util::validate_jtr(
            &ctx.jtrace,
            &ctx.dir.join(format!("{t}.jtr")),
            &ctx.dir.join(format!("{t}.xml")),
        )?;
    }
    extracted(&extract).map(|_| ())
}

/// JDK 24+ with `--illegal-native-access=deny` (JEP 472's future default): one line on
/// stderr naming `--enable-native-access`, the application as without the agent; with
/// `--enable-native-access=ALL-UNNAMED`, traced and without the JDK's warning.
fn native_access(ctx: &Ctx) -> Result<(), String> {
    for (flag, traced) in [
        ("--illegal-native-access=deny", false),
        ("--enable-native-access=ALL-UNNAMED", true),
    ] {
        let trace = ctx.dir.join(format!("native-access-{traced}.jtr"));
        let o = javaagent(ctx, &[flag.to_string()], &trace.display().to_string())
            .args(["-cp", &format!("{}:{H2}:{CONSOLE}", ctx.classes.display())])
            .arg("org.junit.platform.console.ConsoleLauncher")
            .args(["--disable-banner", "--details=none"])
            .args(["--select-class", "shop.ShopTest"])
            .output()?;
        let out = ok(&o, &format!("java {flag} -javaagent"))?;
        let err = String::from_utf8_lossy(&o.stderr);
        if out.matches("TRUTH|").count() != 4 || err.contains("WARNING: A restricted method") {
            return Err(format!("{flag}: {}", util::clip(err.trim(), 400)));
        }
        if traced {
            util::validate_jtr(&ctx.jtrace, &trace, &ctx.dir.join("native-access.xml"))?;
        } else {
            let lines: Vec<&str> = err.lines().filter(|l| l.contains("jtrace")).collect();
            if lines.len() != 1
                || !lines[0].contains("--enable-native-access=ALL-UNNAMED")
                || !lines[0].contains("runs untraced")
                || trace.exists()
            {
                return Err(format!("{flag}: {}", util::clip(err.trim(), 400)));
            }
        }
    }
    Ok(())
}

/// A directory it cannot use: one line on stderr, the application as without the agent.
fn cannot_extract(ctx: &Ctx) -> Result<(), String> {
    let file = ctx.dir.join("a-file");
    std::fs::write(&file, "not a directory").map_err(|e| e.to_string())?;
    untraced(ctx, &file.join("sub"), "never.jtr", "jtrace")
}

/// `start=off`, then `jtrace status`, `start` and `stop` on the `-javaagent` JVM, as on
/// one started with `-agentpath` (java-tests/control/Busy.java).
fn controlled(ctx: &Ctx) -> Result<(), String> {
    let busy = ctx.dir.join("busy");
    java::javac(
        ctx.jdk,
        &busy,
        &[],
        &[util::root().join("java-tests/control/Busy.java")],
    )?;
    let flag = ctx.dir.join("busy.flag");
    let _ = std::fs::remove_file(&flag);
    let pattern = ctx.dir.join("ctl-%n.jtr");
    let p = javaagent(ctx, &[], &format!("{},start=off", pattern.display()))
        .class_path(&busy)
        .main("Busy")
        .arg(&flag)
        .spawn(&ctx.dir)?;
    let r = (|| {
        if !p.wait_line("ready", Duration::from_secs(60)) {
            return Err("Busy never printed ready".to_string());
        }
        let pid = p.pid().to_string();
        let status = ok(
            &ctx.jtrace(&["status".as_ref(), pid.as_ref()])?,
            "jtrace status",
        )?;
        if !status.contains("idle") {
            return Err(format!("jtrace status: {status}"));
        }
        ok(
            &ctx.jtrace(&["start".as_ref(), pid.as_ref()])?,
            "jtrace start",
        )?;
        std::thread::sleep(Duration::from_millis(300));
        ok(
            &ctx.jtrace(&["stop".as_ref(), pid.as_ref()])?,
            "jtrace stop",
        )?;
        Ok(())
    })();
    let _ = std::fs::write(&flag, "");
    let done = p.finish(Duration::from_secs(60));
    r?;
    if done.code() != Some(0) || !done.stdout.contains("done true true") {
        return Err(format!(
            "Busy did not end as without the agent: exit {:?}: {}",
            done.code(),
            done.stderr_tail()
        ));
    }
    let trace = ctx.dir.join("ctl-1.jtr");
    util::validate_jtr(&ctx.jtrace, &trace, &ctx.dir.join("ctl-1.xml"))?;
    let report = ok(
        &ctx.jtrace(&[
            "report".as_ref(),
            "--json".as_ref(),
            "--method".as_ref(),
            "Busy.work".as_ref(),
            trace.as_os_str(),
        ])?,
        "jtrace report",
    )?;
    let calls = serde_json::from_str::<serde_json::Value>(&report)
        .ok()
        .and_then(|v| v["methods"][0]["calls"].as_u64())
        .unwrap_or(0);
    if calls == 0 {
        return Err("the trace jtrace start began holds no call of Busy.work".into());
    }
    Ok(())
}

/// A program that runs the JUnit console launcher in a class loader of its own (as sbt and
/// surefire's isolated loader do), under `-javaagent:`: the tests run and pass as without
/// the agent. (A listener registration on the system class path, seen there through the
/// parent, would name a class that cannot link and stop test discovery.)
const ISOLATED: &str = r#"// Runs the JUnit console launcher in a child class loader.
import java.io.File;
import java.net.URL;
import java.net.URLClassLoader;

public class Isolated {
    public static void main(String[] args) throws Exception {
        URL[] urls = new URL[args.length - 1];
        for (int i = 1; i < args.length; i++) {
            urls[i - 1] = new File(args[i]).toURI().toURL();
        }
        ClassLoader child = new URLClassLoader(urls, ClassLoader.getSystemClassLoader());
        Thread.currentThread().setContextClassLoader(child);
        Class.forName("org.junit.platform.console.ConsoleLauncher", true, child)
                .getMethod("main", String[].class)
                .invoke(null, (Object) new String[] {"--disable-banner", "--details=none",
                        "--select-class", args[0]});
    }
}
"#;

fn child_loader(ctx: &Ctx) -> Result<(), String> {
    let src = ctx.dir.join("isolated-src");
    std::fs::create_dir_all(&src).map_err(|e| e.to_string())?;
    std::fs::write(src.join("Isolated.java"), ISOLATED).map_err(|e| e.to_string())?;
    let classes = ctx.dir.join("isolated");
    java::javac(ctx.jdk, &classes, &[], &[src.join("Isolated.java")])?;
    let trace = ctx.dir.join("isolated.jtr");
    let o = javaagent(ctx, &[], &trace.display().to_string())
        .arg("-cp")
        .arg(&classes)
        .args(["Isolated", "shop.ShopTest", CONSOLE, H2])
        .arg(&ctx.classes)
        .output()?;
    let out = String::from_utf8_lossy(&o.stdout);
    let err = String::from_utf8_lossy(&o.stderr);
    if !o.status.success()
        || out.matches("TRUTH|").count() != 4
        || err.contains("ServiceConfigurationError")
    {
        return Err(format!(
            "JUnit in a child loader under -javaagent: exit {:?}: {} {}",
            o.status.code(),
            util::clip(out.trim(), 300),
            util::clip(err.trim(), 400)
        ));
    }
    util::validate_jtr(&ctx.jtrace, &trace, &ctx.dir.join("isolated.xml"))
}

/// A test runner whose main class and class path name no JUnit (the console launcher
/// copied under another name, started by a main of ours).
const PLAIN_RUNNER: &str = r#"
public class Run {
    public static void main(String[] args) throws Throwable {
        Class.forName("org.junit.platform.console.ConsoleLauncher")
                .getMethod("main", String[].class)
                .invoke(null, (Object) args);
    }
}
"#;

/// The loader looks for JUnit only where the JVM may run tests (a class path entry or
/// the main class names JUnit, surefire or Gradle): a runner named otherwise runs its
/// tests unmarked, and marked with `-Djtrace.tests=on`.
fn looks_for_tests(ctx: &Ctx) -> Result<(), String> {
    let src = ctx.dir.join("plain-src");
    std::fs::create_dir_all(&src).map_err(|e| e.to_string())?;
    std::fs::write(src.join("Run.java"), PLAIN_RUNNER).map_err(|e| e.to_string())?;
    let runner = ctx.dir.join("plain");
    java::javac(ctx.jdk, &runner, &[], &[src.join("Run.java")])?;
    let launcher = ctx.dir.join("plain-launcher.jar");
    std::fs::copy(CONSOLE, &launcher).map_err(|e| format!("{CONSOLE}: {e}"))?;
    let cp = [runner.as_path(), &ctx.classes, Path::new(H2), &launcher]
        .iter()
        .map(|p| p.display().to_string())
        .collect::<Vec<_>>()
        .join(":");
    for (look, want) in [(None, 0), (Some("on"), 4)] {
        let name = format!("plain-{}", look.unwrap_or("default"));
        let trace = ctx.dir.join(format!("{name}.jtr"));
        let flags: Vec<String> = look
            .map(|l| format!("-Djtrace.tests={l}"))
            .into_iter()
            .collect();
        let o = javaagent(ctx, &flags, &trace.display().to_string())
            .args(["-cp", &cp, "Run", "--disable-banner", "--details=none"])
            .args(["--select-class", "shop.ShopTest"])
            .output()?;
        let out = ok(&o, &format!("java -javaagent ({name})"))?;
        if out.matches("TRUTH|").count() != 4 {
            return Err(format!("{name}: {}", util::clip(out.trim(), 300)));
        }
        util::validate_jtr(&ctx.jtrace, &trace, &ctx.dir.join(format!("{name}.xml")))?;
        if want == 0 {
            let o = ctx.jtrace(&["tests".as_ref(), trace.as_os_str()])?;
            let err = String::from_utf8_lossy(&o.stderr);
            if o.status.success() || !err.contains("no tests marked") {
                return Err(format!(
                    "{name}: tests were marked: {}",
                    util::clip(&String::from_utf8_lossy(&o.stdout), 300)
                ));
            }
            continue;
        }
        let marked = ctx.marked(&trace)?;
        if marked.len() != want {
            return Err(format!(
                "{name}: {} tests marked, expected {want}: {marked:?}",
                marked.len()
            ));
        }
    }
    Ok(())
}

/// The step, on every JDK.
pub fn run(tally: &mut Tally, agent: &Path, jdks: &[Jdk], work: &Path) {
    let jar = match crate::package::build_jar() {
        Ok(j) => j,
        Err(e) => return tally.report(Err(e), "-", "javaagent"),
    };
    if let Err(e) = util::needs(&crate::steps::gate_tests::NEEDS) {
        return tally.report(Err(e), "-", "javaagent");
    }
    let root = util::root();
    for jdk in jdks {
        let dir = work.join(&jdk.name).join("javaagent");
        let _ = std::fs::remove_dir_all(&dir);
        let classes = dir.join("classes");
        let sources: Vec<PathBuf> = util::files_under(&root.join("examples/gate/src"))
            .into_iter()
            .filter(|p| p.extension().is_some_and(|x| x == "java"))
            .collect();
        if let Err(e) = java::javac(jdk, &classes, &["-cp", CONSOLE], &sources) {
            tally.report(Err(e), &jdk.name, "javaagent");
            continue;
        }
        let ctx = Ctx {
            jdk,
            agent,
            jtrace: agent.with_file_name("jtrace"),
            jar: agent.with_file_name("jtrace-agent.jar"),
            api: jar.clone(),
            classes,
            dir,
        };
        tally.report(same_run(&ctx), &jdk.name, "javaagent/same-as-agentpath");
        tally.report(at_once(&ctx), &jdk.name, "javaagent/two-jvms-at-once");
        tally.report(controlled(&ctx), &jdk.name, "javaagent/status-start-stop");
        tally.report(cannot_extract(&ctx), &jdk.name, "javaagent/cannot-extract");
        tally.report(
            child_loader(&ctx),
            &jdk.name,
            "javaagent/junit-in-a-child-loader",
        );
        if jdk.feature >= 24 {
            tally.report(native_access(&ctx), &jdk.name, "javaagent/native-access");
        }
        tally.report(
            looks_for_tests(&ctx),
            &jdk.name,
            "javaagent/looks-for-tests-where-they-may-run",
        );
        tally.report(
            shared_extract_dir(&ctx),
            &jdk.name,
            "javaagent/shared-extract-dir-refused",
        );
    }
}
