//! The `jtrace` command: parses the command line and dispatches to one module per subcommand.

mod control;
mod pipe;
mod xml;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "jtrace",
    version,
    about = "Read, render and analyse jtrace traces"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Load the agent into a running JVM (options as for -agentpath).
    Attach(control::AttachArgs),
    /// Start a new trace in a JVM where the agent is loaded.
    Start(control::StartArgs),
    /// End the current trace; the JVM goes on.
    Stop(control::PidArg),
    /// Whether the agent is loaded, tracing or idle, and the trace's file and figures.
    Status(control::PidArg),
    /// Render a `.jtr` record file as the TPTP XML document (`-o trace.xml[.gz|.zst]`).
    Xml(xml::Args),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result: Result<(), String> = match cli.command {
        Command::Attach(a) => control::attach(&a),
        Command::Start(a) => control::start(&a),
        Command::Stop(a) => control::stop(&a),
        Command::Status(a) => control::status(&a),
        Command::Xml(args) => xml::run(args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(msg) => {
            eprintln!("jtrace: {msg}");
            ExitCode::FAILURE
        }
    }
}
