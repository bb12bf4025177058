//! xtask: project automation (`cargo xtask test`, `tidy`, `demo`, `dist`, `jar`, `check`, `bench`, `corpus`, `stress`, `realworld`, `fuzz`); this file only dispatches.

mod bench;
mod cases;
mod check;
mod compare;
mod corpus;
mod demo;
mod expect;
mod fuzz;
mod house;
mod java;
mod package;
mod proc;
mod realworld;
mod run;
mod steps;
mod stress;
mod tally;
mod test;
mod tidy;
mod util;

use std::process::ExitCode;

const USAGE: &str = "usage:
  cargo xtask test [--skip-unit] [--modes=jvmti,bci] [CASE...]
                                             unit tests, release build, Java tests on every JDK >= 17
  cargo xtask tidy                           //! lines, unsafe only where allowed, OPTIONS.md, fmt,
                                             clippy -D warnings, rustdoc -D warnings
  cargo xtask check FILE                     validate one trace (xmllint + tracecheck)
  cargo xtask corpus [--sample N]            rewrite every JDK/jar class, verify under -Xverify:all
  cargo xtask stress [--quick] [CASE...]     stress suite (threads, exits, OOM, loaders, full disk,
                                             SIGKILL, attaches, fuzzing) on every JDK >= 17
  cargo xtask fuzz [--seconds=N] [TARGET...] the fuzz targets of fuzz/ (jtr, xml, check, options) from their kept
                                             corpus, N s each (120); installs cargo-fuzz when missing
  cargo xtask realworld [--subset] [--jdk PATH] [--keep] [CASE...]
                                             real programs (Ant, Felix, Tomcat, JVM languages, javac...)
                                             with and without the agent: same output, valid traces
  cargo xtask jar                            build the Java API (jtrace.Trace) into target/release/jtrace.jar
  cargo xtask dist                           the release archive: target/dist/jtrace-VERSION-linux-x86_64.tar.gz
                                             (command, agent, jars, Maven and Gradle plugins, completions, man)
  cargo xtask demo                           build the agent, trace examples/Demo.java, summarise
  cargo xtask bench [--quick] [--families] [--deep] [--jdk PATH] [--moo-jdks PATH,PATH]
                                             MooBench on JDK 17 and 25 (none, jvmti, .jtr, .xml, .xml.zst,
                                             JFR), javac traced, disk bandwidth, renderer, event families
  cargo xtask bench-answers [--reps=N] [--jdk=PATH] [--trace=PATH]
                                             jtrace's subcommands on a ~31 M-event .jtr: events/s, memory
  cargo xtask bench-loaders [--loaders=N] [--jdk=PATH]
                                             resident memory over N short-lived class loaders, with and without the agent";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let ok = match args.first().map(String::as_str) {
        Some("test") => test::run(&args[1..]),
        Some("bench") => bench::run(&args[1..]),
        Some("bench-loaders") => bench::loaders::run_cmd(&args[1..]),
        Some("bench-answers") => bench::answers::run_cmd(&args[1..]),
        Some("check") if args.len() == 2 => check::run(&args[1]),
        Some("demo") => demo::run(),
        Some("fuzz") => fuzz::run(&args[1..]),
        Some("jar") => match package::build_jar() {
            Ok(j) => {
                println!("built {}", j.display());
                true
            }
            Err(e) => {
                eprintln!("{e}");
                false
            }
        },
        Some("dist") => package::run_dist(),
        Some("tidy") => tidy::run(),
        Some("corpus") => corpus::run(&args[1..]),
        Some("stress") => stress::run(&args[1..]),
        Some("realworld") => realworld::run(&args[1..]),
        _ => {
            eprintln!("{USAGE}");
            return ExitCode::from(2);
        }
    };
    if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
