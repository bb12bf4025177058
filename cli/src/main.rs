//! The `jtrace` command: parses the command line and dispatches to one module per subcommand.

// No `unsafe` but in the attach client's three system calls (`attach/sys.rs`).
#![deny(unsafe_code)]

mod analysis;
mod attach;
mod cmd;
mod gate;
mod model;
mod parquet;
mod pass;
mod pipe;
mod render;
mod split;

use clap::{CommandFactory, Parser, Subcommand};
// The reader is the crate's library (`lib.rs`), for the fuzz targets too.
use jtrace_cli::read;
use std::process::ExitCode;

/// `jtrace --version`: the version with its commit, and the licence of the flame graph
/// code it carries (`-V` and the man pages: the version alone).
fn version() -> String {
    format!(
        "{}\nflame graphs: inferno (CDDL-1.0), see LICENSES/inferno-CDDL-1.0.txt",
        trace::VERSION
    )
}

#[derive(Parser)]
#[command(
    name = "jtrace",
    version = trace::VERSION,
    long_version = version(),
    about = "Read, render and analyse jtrace traces",
    after_help = "Every subcommand reads .jtr, .xml, .xml.gz and .xml.zst traces. See docs/CLI.md."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Load the agent into a running JVM (options as for -agentpath).
    Attach(attach::AttachArgs),
    /// Start a new trace in a JVM where the agent is loaded.
    Start(attach::StartArgs),
    /// End the current trace; the JVM goes on.
    Stop(attach::PidArg),
    /// Write the ring of a JVM recording with ring=SIZE as a complete trace; recording goes on.
    Dump(attach::DumpArgs),
    /// Whether the agent is loaded, tracing or idle, and the trace's file and figures.
    Status(attach::PidArg),
    /// Per method, thread, allocation site, monitor and exception; GC (text, --json, --html)
    Report(cmd::report::Args),
    /// The call tree merged by path, per thread
    Tree(cmd::tree::Args),
    /// Every call slower than --over, with its thread, start and whole subtree
    Slow(cmd::slow::Args),
    /// A flame graph (SVG or HTML) weighted by exact self time (or --alloc bytes)
    Flame(cmd::flame::Args),
    /// Folded stacks (`a;b;c 123`) for flamegraph.pl, speedscope and friends
    Collapsed(cmd::flame::CollapsedArgs),
    /// The per-thread timeline for ui.perfetto.dev (JSON trace-event format)
    Perfetto(cmd::perfetto::Args),
    /// Two traces of the same program side by side, per method
    Diff(cmd::diff::Args),
    /// Validate a trace: vocabulary, required attributes and every semantic rule
    Check(cmd::check::Args),
    /// One thread's calls in order, with durations, exceptions, allocations and lock waits
    Replay(cmd::replay::Args),
    /// One method's callers above and callees below, merged by path, with exact counts
    Graph(cmd::graph::Args),
    /// The recorded run at a glance: JVM, options, time span, events by kind, drops, threads
    Info(cmd::info::Args),
    /// Render a `.jtr` record file as the TPTP XML document (`-o trace.xml[.gz|.zst]`)
    Xml(cmd::xml::Args),
    /// Traces into Parquet tables for DuckDB, Spark and friends (docs/PARQUET.md)
    Parquet(cmd::parquet::Args),
    /// Run a command (mvn test, gradle test, java -jar ...) with the agent in every JVM it starts
    Record(cmd::record::Args),
    /// The tests a trace marks: duration, calls, exceptions, slowest calls (--markdown, --junit-xml)
    Tests(cmd::testcases::Args),
    /// The windows a trace recorded with window= kept: thread, method, duration, outcome, calls, slowest first
    Windows(cmd::windows::Args),
    /// Line and method coverage with exact counts: lcov (.info) or JaCoCo XML (.xml)
    Coverage(cmd::coverage::Args),
    /// Each test's exact counts (calls, allocations, exceptions, monitors, lines) as a
    /// baseline file to commit, for jtrace gate
    Baseline(cmd::baseline::Args),
    /// Fail (exit 1) when a test's counts rose beyond the committed baseline, naming the
    /// methods and call paths that added the work (--markdown, --junit-xml, --json)
    Gate(cmd::gate::Args),
    /// A completion script for bash, zsh, fish, elvish or PowerShell, on stdout
    Completions(cmd::docs::CompletionsArgs),
    /// Man pages (jtrace.1 and one per subcommand) into a directory
    Man(cmd::docs::ManArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result: Result<(), String> = match cli.command {
        Command::Attach(a) => attach::attach(&a),
        Command::Start(a) => attach::start(&a),
        Command::Stop(a) => attach::stop(&a),
        Command::Status(a) => attach::status(&a),
        Command::Dump(a) => attach::dump(&a),
        Command::Report(a) => cmd::report::run(a),
        Command::Tree(a) => cmd::tree::run(a),
        Command::Slow(a) => cmd::slow::run(a),
        Command::Flame(a) => cmd::flame::run(a),
        Command::Collapsed(a) => cmd::flame::collapsed(a),
        Command::Perfetto(a) => cmd::perfetto::run(a),
        Command::Diff(a) => cmd::diff::run(a),
        Command::Check(a) => cmd::check::run(a),
        Command::Xml(a) => cmd::xml::run(a),
        Command::Replay(a) => cmd::replay::run(a),
        Command::Graph(a) => cmd::graph::run(a),
        Command::Info(a) => cmd::info::run(a),
        Command::Parquet(a) => cmd::parquet::run(a),
        Command::Record(a) => return cmd::record::run(a),
        Command::Tests(a) => cmd::testcases::run(a),
        Command::Windows(a) => cmd::windows::run(a),
        Command::Coverage(a) => cmd::coverage::run(a),
        Command::Baseline(a) => cmd::baseline::run(a),
        Command::Gate(a) => return cmd::gate::run(a),
        Command::Completions(a) => cmd::docs::completions(Cli::command(), a),
        Command::Man(a) => cmd::docs::man(Cli::command(), a),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(msg) => {
            eprintln!("jtrace: {msg}");
            ExitCode::FAILURE
        }
    }
}
