//! `tracecheck FILE.xml`: exit 0 if the trace is valid, 1 with one message per violation.

use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [path] = args.as_slice() else {
        eprintln!("usage: tracecheck FILE.xml");
        return ExitCode::from(2);
    };
    match tracecheck::check(path) {
        Ok(summary) => {
            let entries: u64 = summary.methods.values().map(|m| m.entries).sum();
            let elements: u64 = summary.elements.values().sum();
            println!(
                "{path}: valid ({} threads, {} classes, {} methods, {entries} method entries, {elements} elements)",
                summary.threads.len(),
                summary.classes.len(),
                summary.methods.len()
            );
            ExitCode::SUCCESS
        }
        Err(violations) => {
            for v in &violations {
                eprintln!("{path}:{v}");
            }
            if violations.len() >= tracecheck::MAX_VIOLATIONS {
                eprintln!(
                    "{path}: stopped after {} violations",
                    tracecheck::MAX_VIOLATIONS
                );
            }
            ExitCode::FAILURE
        }
    }
}
