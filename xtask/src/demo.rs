//! `cargo xtask demo`: build the agent, the `jtrace` command, the jars and the release archive, trace
//! examples/Demo.java, validate the trace, and end with its `jtrace report`.

use crate::{check, java, util};
use std::process::Command;

pub fn run() -> bool {
    let root = util::root();
    // Said before each step: the first run compiles for several minutes.
    println!(
        "demo 1/4: building the agent and the jtrace command (cargo build --release; \
         about 4 minutes on 2 cores the first time)"
    );
    if let Err(e) = util::build_release() {
        eprintln!("demo: {e}");
        return false;
    }
    // Everything a user runs comes from this one command: the jars too (jtrace record,
    // -javaagent, jtrace.Trace), or the one line that says what they need.
    println!("demo 2/4: building the jars (javac, jar)");
    match crate::package::build_jar() {
        Ok(_) => println!(
            "built target/release/{{jtrace, libjtrace.so, jtrace-agent.jar, jtrace.jar, \
             jtrace-record.jar}}"
        ),
        Err(e) => println!("the jars (jtrace record, -javaagent) were not built: {e}"),
    }
    // And the release archive, with the Maven and Gradle plugins (docs/INSTALL.md).
    println!(
        "demo 3/4: building the release archive (for glibc 2.28 with cargo zigbuild: about \
         3 minutes the first time; the Maven and Gradle plugins)"
    );
    match crate::package::dist() {
        Ok(d) => println!("built {}", d.archive.display()),
        Err(e) => println!("the release archive (Maven and Gradle plugins) was not built: {e}"),
    }
    let Some(jdk) = java::discover().into_iter().next() else {
        eprintln!(
            "demo: no JDK >= {} under {}",
            java::MIN_FEATURE,
            java::JVM_DIR
        );
        return false;
    };
    println!("demo 4/4: tracing examples/Demo.java and reading its trace");
    let dir = root.join("target/demo");
    if let Err(e) = java::compile_sources(&jdk, &dir, &[root.join("examples/Demo.java")]) {
        eprintln!("demo: {e}");
        return false;
    }
    let trace = dir.join("demo.xml");
    let agent = root.join("target/release/libjtrace.so");
    let agent_arg = java::agent_arg(&agent, &format!("out={}", trace.display()));
    println!("$ java {agent_arg} -cp {} Demo", dir.display());
    let ran = java::Run::new(&jdk)
        .arg(&agent_arg)
        .class_path(&dir)
        .main("Demo")
        .status();
    if !ran.is_ok_and(|s| s.success()) {
        eprintln!("demo: the traced program failed");
        return false;
    }
    let size = std::fs::metadata(&trace).map(|m| m.len()).unwrap_or(0);
    println!("\ntrace: {} ({size} bytes)", trace.display());
    // The demo should work before the test prerequisites are installed: without
    // xmllint it says so and still checks the trace with tracecheck.
    let have_xmllint = Command::new("xmllint").arg("--version").output().is_ok();
    if have_xmllint {
        if !check::run(&trace.to_string_lossy()) {
            return false;
        }
    } else {
        println!("xmllint not installed (apt-get install libxml2-utils): DTD check skipped");
    }
    match tracecheck::check(&trace) {
        Err(v) => {
            for v in v.iter().take(5) {
                println!("tracecheck: {v}");
            }
            return false;
        }
        Ok(s) => {
            let mut methods: Vec<(&String, u64)> =
                s.methods.iter().map(|(k, m)| (k, m.entries)).collect();
            methods.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
            println!("\nmost called methods:");
            for (k, n) in methods.iter().take(8) {
                println!("  {n:>8}  {k}");
            }
            println!("threads: {}", s.thread_names().join(", "));
        }
    }
    // The answer a user wants: the trace's report (docs/CLI.md shows the other views).
    let jtrace = root.join("target/release/jtrace");
    println!("\n$ {} report {}", jtrace.display(), trace.display());
    let _ = std::io::Write::flush(&mut std::io::stdout());
    Command::new(&jtrace)
        .arg("report")
        .arg(&trace)
        .status()
        .is_ok_and(|s| s.success())
}
