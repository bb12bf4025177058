//! What `-javaagent:jtrace-agent.jar` costs at start-up beside `-agentpath:libjtrace.so` (issue 41), on each of MooBench's JDKs: a JVM that prints one line, with no agent, with the library, with the jar's library already extracted, with an empty extract directory (the first start), and with an empty Java agent in a jar of its own (what any `-javaagent` costs: the JDK's `java.instrument`, its module graph resolved at start instead of CDS's archived one, the jar opened); the settings interleaved run by run, medians of wall and CPU, and what is ours beyond the JDK's own.

use super::{read_time, Env};
use crate::java::{self, Jdk};
use std::fmt::Write as _;
use std::time::Instant;

/// The settings: label and the JVM options (`{jar}`, `{lib}`, `{x}` extract dir,
/// `{fresh}` a new extract dir per run, `{empty}` the empty agent's jar, `{out}` trace).
const SETTINGS: [(&str, &[&str]); 5] = [
    ("no agent", &[]),
    ("-agentpath:libjtrace.so", &["-agentpath:{lib}=out={out}"]),
    (
        "-javaagent: (extracted)",
        &["-Djtrace.extractPath={x}", "-javaagent:{jar}=out={out}"],
    ),
    (
        "-javaagent: (first start)",
        &["-Djtrace.extractPath={fresh}", "-javaagent:{jar}=out={out}"],
    ),
    ("-javaagent: of an empty premain", &["-javaagent:{empty}"]),
];

/// The cell's table per JDK (or why it could not run).
pub fn run(env: &Env) -> String {
    env.cfg
        .moo_jdks
        .iter()
        .map(|home| match measure(env, &Jdk::at(home)) {
            Ok(t) => t,
            Err(e) => format!("-javaagent start-up: FAILED: {e}\n"),
        })
        .collect()
}

fn median(v: &mut [f64]) -> Option<f64> {
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied()
}

fn measure(env: &Env, jdk: &Jdk) -> Result<String, String> {
    let jar = crate::package::build_jar()?.with_file_name("jtrace-agent.jar");
    let dir = env.work.join("javaagent");
    let src = dir.join("src");
    std::fs::create_dir_all(&src).map_err(|e| e.to_string())?;
    std::fs::write(
        src.join("Hello.java"),
        "public class Hello { public static void main(String[] a) { System.out.println(\"hello\"); } }\n",
    )
    .map_err(|e| e.to_string())?;
    std::fs::write(
        src.join("Empty.java"),
        "public class Empty { public static void premain(String a, java.lang.instrument.Instrumentation i) {} }\n",
    )
    .map_err(|e| e.to_string())?;
    // The empty agent is loaded from its jar, as any agent is, not from the class path.
    let classes = dir.join("classes");
    java::javac(jdk, &classes, &[], &[src.join("Hello.java")])?;
    let empty_classes = dir.join("empty-classes");
    java::javac(jdk, &empty_classes, &[], &[src.join("Empty.java")])?;
    let manifest = dir.join("empty.MF");
    std::fs::write(&manifest, "Premain-Class: Empty\n").map_err(|e| e.to_string())?;
    let empty = dir.join("empty.jar");
    crate::util::run_tool(
        std::process::Command::new(jdk.home.join("bin/jar"))
            .arg("cfm")
            .arg(&empty)
            .arg(&manifest)
            .arg("-C")
            .arg(&empty_classes)
            .arg("Empty.class"),
        "jar (the empty agent)",
    )?;
    let extracted = dir.join("extracted");
    let runs = env.cfg.runs.max(10);
    let mut wall: Vec<Vec<f64>> = vec![Vec::new(); SETTINGS.len()];
    let mut cpu: Vec<Vec<f64>> = vec![Vec::new(); SETTINGS.len()];
    for run in 0..=runs {
        for (i, (_, opts)) in SETTINGS.iter().enumerate() {
            let fresh = dir.join(format!("fresh-{run}"));
            let out = dir.join("trace.jtr");
            let subst = |o: &str| {
                o.replace("{jar}", &jar.display().to_string())
                    .replace("{lib}", &env.agent.display().to_string())
                    .replace("{x}", &extracted.display().to_string())
                    .replace("{fresh}", &fresh.display().to_string())
                    .replace("{empty}", &empty.display().to_string())
                    .replace("{out}", &out.display().to_string())
            };
            let time_file = dir.join("time");
            let mut c = env.command(
                crate::java::Run::new(jdk)
                    .args(opts.iter().map(|o| subst(o)))
                    .class_path(&classes)
                    .main("Hello"),
                &time_file,
            );
            let t0 = Instant::now();
            let o = c.output().map_err(|e| format!("cannot run java: {e}"))?;
            let w = t0.elapsed().as_secs_f64();
            if !o.status.success() || String::from_utf8_lossy(&o.stdout).trim() != "hello" {
                return Err(format!(
                    "{}: {}",
                    SETTINGS[i].0,
                    super::failed_run(o.status, w, &String::from_utf8_lossy(&o.stderr))
                ));
            }
            let _ = std::fs::remove_dir_all(&fresh);
            // Run 0 warms the page cache and the extract directory.
            if run > 0 {
                wall[i].push(w);
                if let (_, Some(c)) = read_time(&time_file) {
                    cpu[i].push(c);
                }
            }
        }
    }
    let mut t = String::new();
    let _ = writeln!(
        t,
        "-javaagent start-up (Hello, {}), medians of {runs} interleaved runs",
        jdk.name
    );
    let _ = writeln!(
        t,
        "  {:<34} {:>8} {:>8} {:>14}",
        "JVM", "wall ms", "CPU ms", "vs -agentpath"
    );
    let base = median(&mut wall[1].clone());
    let extracted_ms = median(&mut wall[2].clone());
    let empty = median(&mut wall[4].clone());
    for (i, (label, _)) in SETTINGS.iter().enumerate() {
        let w = median(&mut wall[i]);
        let c = median(&mut cpu[i]);
        let _ = writeln!(
            t,
            "  {:<34} {:>8} {:>8} {:>14}",
            label,
            super::fmt_opt(w, |w| format!("{:.0}", w * 1e3)),
            super::fmt_opt(c, |c| format!("{:.0}", c * 1e3)),
            super::fmt_opt(w.zip(base), |(w, b)| format!("{:+.0} ms", (w - b) * 1e3)),
        );
    }
    if let (Some(b), Some(x), Some(e)) = (base, extracted_ms, empty) {
        let _ = writeln!(
            t,
            "  -javaagent (extracted) vs -agentpath: {:+.0} ms, of which any Java agent in a jar: \
             {:+.0} ms, ours beyond it: {:+.0} ms (issue 41 asks for at most +20 ms in all)",
            (x - b) * 1e3,
            (e - b) * 1e3,
            (x - e) * 1e3
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
    Ok(t)
}
