//! The `jtrace` command: parses the command line and dispatches to one module per subcommand.

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
enum Command {}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result: Result<(), String> = match cli.command {};
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(msg) => {
            eprintln!("jtrace: {msg}");
            ExitCode::FAILURE
        }
    }
}
