//! `jtrace check`: what `cargo xtask check` does, without the source tree: the trace's
//! vocabulary (element and attribute names, required attributes: what docs/trace.dtd
//! declares) and every semantic rule, by the `tracecheck` crate.

use super::check_feed::CheckOut;
use crate::read;
use std::path::PathBuf;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The trace (.xml, .xml.gz, .xml.zst, .jtr)
    pub trace: PathBuf,
    /// Accept a trace cut short (a valid prefix of a trace; the agent was killed)
    #[arg(long)]
    pub prefix_ok: bool,
}

pub fn run(a: Args) -> Result<(), String> {
    let input = read::open(&a.trace)?;
    let name = input.name.clone();
    let compressed = input.compressed;
    let jtr = matches!(input.source, read::Source::Jtr(_));
    let (checked, cut_short) = check(input)?;
    if jtr {
        if let Err(v) = &checked {
            if !v.is_empty() {
                eprintln!(
                    "{name}: a line below is the line of the element in the trace's XML \
                     rendering (jtrace xml {name})"
                );
            }
        }
    }
    if let (Ok(s), Some(why)) = (&checked, cut_short) {
        let msg = format!(
            "{name}: cut short ({why}): every record up to its last whole block is valid \
             ({})",
            s.describe()
        );
        if a.prefix_ok {
            println!("{msg}");
            return Ok(());
        }
        return Err(format!("{msg}; --prefix-ok accepts it"));
    }
    match checked {
        Ok(s) => {
            println!("{name}: valid ({})", s.describe());
            let repairs = s.repairs();
            if !repairs.is_empty() {
                println!(
                    "{name}: valid, but repaired or dropped: {}",
                    repairs.join(", ")
                );
            }
            Ok(())
        }
        Err(violations) => {
            // A plain file may be a valid prefix (tracecheck can tell for files only).
            if !compressed {
                if let Ok(tracecheck::Checked::CutShort { lines, summary }) = tracecheck::check_prefix(&a.trace)
                {
                    let msg = format!(
                        "{name}: cut short after line {lines}: every element up to there is \
                         valid, then the document stops before </TRACE> ({})",
                        summary.describe()
                    );
                    if a.prefix_ok {
                        println!("{msg}");
                        return Ok(());
                    }
                    return Err(format!("{msg}; --prefix-ok accepts it"));
                }
            }
            for v in &violations {
                eprintln!("{name}:{v}");
            }
            Err(format!(
                "{name}: not valid: {}{} violation(s)",
                if violations.len() >= tracecheck::MAX_VIOLATIONS {
                    "at least "
                } else {
                    ""
                },
                violations.len()
            ))
        }
    }
}

/// Checks `input`: its summary or its violations, with why a `.jtr` was cut short (it
/// replays as a closed document: valid, but not the whole run). XML is read by
/// tracecheck's reader; a `.jtr` is replayed into tracecheck's checker with no XML in
/// between (`check_feed`).
pub fn check(input: read::Input) -> Result<(Checked, Option<String>), String> {
    match input.source {
        read::Source::Xml(r) => Ok((tracecheck::check_reader(r), None)),
        read::Source::Jtr(r) => {
            let (done, out) = trace::jtr::replay_to(r, CheckOut::default())
                .map_err(|e| format!("{}: {e}", input.name))?;
            let last = out.last_line();
            let checked = out.checker.finish(last, false).map(|(s, _)| s);
            Ok((checked, done.cut_short))
        }
    }
}

/// A trace's summary, or its violations.
pub type Checked = Result<tracecheck::Summary, Vec<tracecheck::Violation>>;
