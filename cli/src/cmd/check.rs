//! `jtrace check`: what `cargo xtask check` does, without the source tree: the trace's
//! vocabulary (element and attribute names, required attributes: what docs/trace.dtd
//! declares) and every semantic rule, by the `tracecheck` crate.

use crate::read;
use std::path::PathBuf;
use tracecheck::Checked;

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
    let doc = input.into_xml()?;
    let checked = tracecheck::check_reader(doc.reader);
    // A `.jtr` cut short renders as a closed document: valid, but not the whole run.
    let cut_short = doc.cut_short.lock().ok().and_then(|c| c.clone());
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
                if let Ok(Checked::CutShort { lines, summary }) = tracecheck::check_prefix(&a.trace)
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
