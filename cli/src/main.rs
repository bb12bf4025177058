//! The `jtrace` command: parses the command line and dispatches to one module per subcommand.

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
    /// Render a `.jtr` record file as the TPTP XML document (`-o trace.xml[.gz|.zst]`).
    Xml(xml::Args),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
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
