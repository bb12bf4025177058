//! The jars (`cargo xtask jar`): target/release/jtrace.jar (the `jtrace.Trace` API and the JUnit listener), jtrace-record.jar (the Java agent `jtrace record` loads) and jtrace-agent.jar (`-javaagent:`), each with its entries in name order and one timestamp, so that the same inputs give the same bytes.

use crate::java::{self, Jdk};
use crate::util;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The Debian `junit5` jars the JUnit listener is compiled against (not shipped in jtrace.jar:
/// the test run has its own).
const JUNIT_JARS: [&str; 3] = [
    "/usr/share/java/junit-platform-launcher.jar",
    "/usr/share/java/junit-platform-engine.jar",
    "/usr/share/java/junit-platform-commons.jar",
];

/// Extraction into a private directory per content, shared by the agent jar's loader and the
/// plugins (which carry the agent jar and the command).
pub const EXTRACT: &str = "java-api/agent/jtrace/agent/Extract.java";

/// The JUnit Platform's registration of jtrace's listener (`ServiceLoader`).
const SERVICES: &str = "META-INF/services/org.junit.platform.launcher.TestExecutionListener";

/// `cargo xtask jar`: compiles java-api/ into target/release/jtrace.jar (jtrace.Trace and
/// the JUnit listener with its `ServiceLoader` registration) and target/release/jtrace-record.jar
/// (the Java agent `jtrace record` loads), Java 11 bytecode, the oldest JDK the agent runs
/// on. Uses the first JDK found.
pub fn build_jar() -> Result<PathBuf, String> {
    let root = util::root();
    let jdk = crate::java::discover()
        .into_iter()
        .next()
        .ok_or("no JDK under /usr/lib/jvm")?;
    if let Some(missing) = JUNIT_JARS.iter().find(|j| !Path::new(j).exists()) {
        return Err(format!(
            "{missing} is missing: the JUnit listener is compiled against Debian's junit5 \
             (apt-get install junit5)"
        ));
    }
    let api = root.join("java-api");
    let classes = root.join("target/xtask/jtrace-api");
    let junit = JUNIT_JARS.join(":");
    java::javac(
        &jdk,
        &classes,
        &["--release", "11", "-cp", &junit],
        &[
            api.join("jtrace/Trace.java"),
            api.join("jtrace/junit/Listener.java"),
        ],
    )?;
    std::fs::create_dir_all(classes.join("META-INF/services")).map_err(|e| e.to_string())?;
    std::fs::copy(api.join(SERVICES), classes.join(SERVICES)).map_err(|e| e.to_string())?;
    let release = root.join("target/release");
    std::fs::create_dir_all(&release).map_err(|e| e.to_string())?;
    let jar = release.join("jtrace.jar");
    let _ = std::fs::remove_file(&jar);
    make_jar(&jdk, &jar, None, &classes)?;
    let rec = root.join("target/xtask/jtrace-record");
    java::javac(
        &jdk,
        &rec,
        &["--release", "11"],
        &[
            api.join("record/jtrace/record/Premain.java"),
            api.join("record/jtrace/record/JUnitPatch.java"),
            api.join("record/java/jtrace/TestMarks.java"),
        ],
    )?;
    // java.jtrace.TestMarks is defined alone in the boot loader: a nested class or a
    // lambda of it could not load there, and the patched JUnit code would fail.
    if let Ok(rd) = std::fs::read_dir(rec.join("java/jtrace")) {
        if let Some(e) = rd
            .flatten()
            .find(|e| e.file_name().to_string_lossy().contains('$'))
        {
            return Err(format!(
                "java-api/record/java/jtrace/TestMarks.java compiled to {:?}: it must stay one class",
                e.file_name()
            ));
        }
    }
    let manifest = root.join("target/xtask/jtrace-record.MF");
    std::fs::write(&manifest, "Premain-Class: jtrace.record.Premain\n")
        .map_err(|e| e.to_string())?;
    make_jar(
        &jdk,
        &release.join("jtrace-record.jar"),
        Some(&manifest),
        &rec,
    )?;
    build_agent_jar(&jdk, &[&classes, &rec], &release)?;
    Ok(jar)
}

/// `dir`/jtrace-agent.jar carrying `dir`/libjtrace.so (the release archive's, built for
/// an older glibc), from the classes [`build_jar`] compiled.
pub fn build_agent_jar_for(jdk: &Jdk, dir: &Path) -> Result<PathBuf, String> {
    let root = util::root();
    let classes = root.join("target/xtask/jtrace-api");
    let rec = root.join("target/xtask/jtrace-record");
    build_agent_jar(jdk, &[&classes, &rec], dir)?;
    Ok(dir.join("jtrace-agent.jar"))
}

/// target/release/jtrace-agent.jar: `-javaagent:` for Java developers. The loader
/// (`jtrace.agent.Loader`, Premain-Class and Agent-Class), jtrace.jar's classes (the
/// `jtrace.Trace` API, the JUnit listener, whose `ServiceLoader` entry is in a jar of its
/// own inside, `META-INF/jtrace/listener.jar`), and libjtrace.so without its debug sections
/// under `META-INF/native/linux-x86_64/` with its SHA-256 beside it (the loader extracts
/// it once per content), and jtrace-record.jar's classes, with which the loader marks JUnit 3
/// and 4 tests. `carried` are jtrace.jar's and jtrace-record.jar's compiled classes.
fn build_agent_jar(jdk: &Jdk, carried: &[&Path], release: &Path) -> Result<(), String> {
    let root = util::root();
    let lib = release.join("libjtrace.so");
    if !lib.is_file() {
        return Err(format!(
            "{}: build the agent first (cargo build --release -p jtrace)",
            lib.display()
        ));
    }
    let dir = root.join("target/xtask/jtrace-agent");
    let _ = std::fs::remove_dir_all(&dir);
    let native = dir.join("META-INF/native/linux-x86_64");
    std::fs::create_dir_all(&native).map_err(|e| e.to_string())?;
    let so = native.join("libjtrace.so");
    util::run_tool(
        Command::new("strip")
            .arg("--strip-debug")
            .arg("-o")
            .arg(&so)
            .arg(&lib),
        "strip --strip-debug libjtrace.so",
    )?;
    let sum = util::sha256(&so)?;
    std::fs::write(native.join("libjtrace.so.sha256"), format!("{sum}\n"))
        .map_err(|e| e.to_string())?;
    // The listener's registration alone, in a jar of its own the loader appends to the
    // class path where the JUnit Platform is (registered everywhere, it would break test
    // discovery where JUnit lives in another loader than the agent jar's).
    let registration = root.join("target/xtask/jtrace-listener");
    let _ = std::fs::remove_dir_all(&registration);
    std::fs::create_dir_all(registration.join("META-INF/services")).map_err(|e| e.to_string())?;
    std::fs::copy(
        root.join("java-api").join(SERVICES),
        registration.join(SERVICES),
    )
    .map_err(|e| e.to_string())?;
    let listener = dir.join("META-INF/jtrace/listener.jar");
    std::fs::create_dir_all(dir.join("META-INF/jtrace")).map_err(|e| e.to_string())?;
    make_jar(jdk, &listener, None, &registration)?;
    let listener_sum = util::sha256(&listener)?;
    // The checksum compiled into the loader, so that a start opens no resource but the
    // library's when it extracts it.
    let generated = root.join("target/xtask/jtrace-agent-src/jtrace/agent");
    std::fs::create_dir_all(&generated).map_err(|e| e.to_string())?;
    let built = generated.join("Built.java");
    std::fs::write(
        &built,
        format!(
            "// Written by cargo xtask jar: the library this jar carries.\n\
             package jtrace.agent;\n\n\
             final class Built {{\n    \
             private Built() {{}}\n\n    \
             static final String PLATFORM = \"linux-x86_64\";\n    \
             static final String LIB_SHA256 = \"{sum}\";\n    \
             static final String LISTENER_SHA256 = \"{listener_sum}\";\n}}\n"
        ),
    )
    .map_err(|e| e.to_string())?;
    // Classes beside the native directory: javac empties its output, so it writes to
    // its own and the classes are copied in.
    let classes = root.join("target/xtask/jtrace-agent-classes");
    // `-XDstringConcat=inline`: a concatenation as StringBuilder calls, not an
    // invokedynamic whose first bootstrap costs a JVM start about 7 ms.
    java::javac(
        jdk,
        &classes,
        &[
            "--release",
            "11",
            "-XDstringConcat=inline",
            "-cp",
            &std::env::join_paths(carried)
                .map_err(|e| e.to_string())?
                .to_string_lossy(),
        ],
        &[
            root.join("java-api/agent/jtrace/agent/Loader.java"),
            root.join(EXTRACT),
            built,
        ],
    )?;
    for from in std::iter::once(classes.as_path()).chain(carried.iter().copied()) {
        util::run_tool(
            Command::new("cp").arg("-r").arg(from.join(".")).arg(&dir),
            "cp classes into the jar's tree",
        )?;
    }
    let _ = std::fs::remove_dir_all(dir.join("META-INF/services"));
    let manifest = root.join("target/xtask/jtrace-agent.MF");
    std::fs::write(
        &manifest,
        "Premain-Class: jtrace.agent.Loader\nAgent-Class: jtrace.agent.Loader\n",
    )
    .map_err(|e| e.to_string())?;
    // The library stored: extracting it (a first start) is then a copy, 14 ms less.
    make_jar_storing(
        jdk,
        &release.join("jtrace-agent.jar"),
        Some(&manifest),
        &dir,
        &["META-INF/native/linux-x86_64/libjtrace.so"],
    )
}

/// `jar` of every file under `dir` (directory entries left out), names in byte order and
/// every entry dated [`util::source_date`], so that the same files give the same bytes
/// wherever they are built; `manifest` is its manifest.
pub fn make_jar(jdk: &Jdk, jar: &Path, manifest: Option<&Path>, dir: &Path) -> Result<(), String> {
    make_jar_storing(jdk, jar, manifest, dir, &[])
}

/// [`make_jar`], the files named in `stored` (relative to `dir`) stored uncompressed
/// after the others: what is read whole at a JVM's start is copied, not inflated.
fn make_jar_storing(
    jdk: &Jdk,
    jar: &Path,
    manifest: Option<&Path>,
    dir: &Path,
    stored: &[&str],
) -> Result<(), String> {
    let _ = std::fs::remove_file(jar);
    let mut files = Vec::new();
    for f in util::files_under(dir) {
        let rel = f
            .strip_prefix(dir)
            .map_err(|e| e.to_string())?
            .to_path_buf();
        files.push(rel);
    }
    let is_stored = |rel: &Path| stored.iter().any(|s| rel == Path::new(s));
    let date = format!("--date={}", util::source_date().1);
    let mut c = Command::new(jdk.home.join("bin/jar"));
    c.arg("--create").arg("--file").arg(jar).arg(&date);
    if let Some(m) = manifest {
        c.arg("--manifest").arg(m);
    }
    for rel in files.iter().filter(|r| !is_stored(r)) {
        c.arg("-C").arg(dir).arg(rel);
    }
    util::run_tool(&mut c, &format!("jar {}", jar.display()))?;
    let kept: Vec<&PathBuf> = files.iter().filter(|r| is_stored(r)).collect();
    if kept.len() != stored.len() {
        return Err(format!("{}: not all of {stored:?} exist", dir.display()));
    }
    if kept.is_empty() {
        return Ok(());
    }
    let mut u = Command::new(jdk.home.join("bin/jar"));
    u.arg("--update")
        .arg("--no-compress")
        .arg("--file")
        .arg(jar)
        .arg(&date);
    for rel in kept {
        u.arg("-C").arg(dir).arg(rel);
    }
    util::run_tool(&mut u, &format!("jar --update {}", jar.display()))
}
