//! `tracecheck [--prefix-ok] FILE.xml`: exit 0 if the trace is valid, 1 with one message per violation.
//!
//! A file that is well-formed and consistent up to a point and then simply stops (the
//! JVM was killed, the disk filled) is named "cut short" rather than listed as invalid;
//! with `--prefix-ok` such a readable prefix is accepted (exit 0).

#![forbid(unsafe_code)]

use std::process::ExitCode;
use tracecheck::Checked;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (prefix_ok, path) = match args.as_slice() {
        [p] if p != "--prefix-ok" => (false, p),
        [flag, p] if flag == "--prefix-ok" => (true, p),
        _ => {
            eprintln!("usage: tracecheck [--prefix-ok] FILE.xml");
            return ExitCode::from(2);
        }
    };
    match tracecheck::check(path) {
        Ok(summary) => {
            println!("{path}: valid ({})", summary.describe());
            let repairs = summary.repairs();
            if !repairs.is_empty() {
                // Valid, but not exact: what the agent had to repair or drop.
                println!("{path}: repaired or dropped: {}", repairs.join(", "));
            }
            ExitCode::SUCCESS
        }
        Err(violations) => {
            // Only worth a second pass if the first one could be a cut.
            if let Ok(Checked::CutShort { lines, summary }) = tracecheck::check_prefix(path) {
                if prefix_ok {
                    println!(
                        "{path}: cut short after line {lines}: a readable prefix ({})",
                        summary.describe()
                    );
                    return ExitCode::SUCCESS;
                }
                eprintln!(
                    "{path}: cut short after line {lines}: every element up to there is \
                     well-formed and consistent, then the document stops before </TRACE> \
                     ({}); --prefix-ok accepts it",
                    summary.describe()
                );
                return ExitCode::FAILURE;
            }
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
