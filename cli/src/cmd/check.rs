//! `jtrace check`: what `cargo xtask check` does, without the source tree: the trace's
//! vocabulary (element and attribute names, required attributes: what docs/trace.dtd
//! declares) and every semantic rule, by the `tracecheck` crate.

use crate::cmd::common::Input;

use super::check_feed::CheckOut;
use crate::read;

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    pub input: Input,
    /// Accept a trace cut short (a valid prefix of a trace; the agent was killed)
    #[arg(long)]
    pub prefix_ok: bool,
}

pub fn run(a: Args) -> Result<(), String> {
    let input = a.input.open()?.input(None)?;
    let name = input.name.clone();
    let compressed = input.compressed;
    let jtr = matches!(input.source, read::Source::Jtr(_));
    let (checked, cut_short) = check(input)?;
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
            // A plain XML file may be a valid prefix (tracecheck can tell for files only).
            if !compressed && !jtr {
                if let Ok(tracecheck::Checked::CutShort { lines, summary }) =
                    tracecheck::check_prefix(&a.input.trace)
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
            if jtr {
                eprintln!(
                    "{name}: each line below is the element's line in the trace's XML \
                     rendering (jtrace xml {name})"
                );
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

#[cfg(test)]
mod tests {
    use super::{check, Checked};
    use crate::read;
    use std::path::{Path, PathBuf};

    /// The verdict of the typed path (the replay into the checker) on `jtr`, and of
    /// tracecheck's XML reader on the same trace rendered as XML.
    fn both(jtr: &Path) -> (Checked, Checked) {
        let (typed, _) = check(read::Trace::open(jtr).unwrap().input(None).unwrap()).unwrap();
        let mut xml = Vec::new();
        trace::jtr::to_xml(std::fs::File::open(jtr).unwrap(), &mut xml).unwrap();
        (typed, tracecheck::check_reader(&xml[..]))
    }

    /// Every stored `.jtr` checks valid by the typed path with exactly the summary its
    /// XML rendering gives.
    #[test]
    fn a_jtr_checks_as_its_xml_rendering() {
        for name in read::STORED {
            let (typed, xml) = both(&read::stored(name, "jtr"));
            let typed = typed.unwrap_or_else(|v| panic!("{name}: {v:#?}"));
            assert_eq!(typed, xml.unwrap(), "{name}");
        }
    }

    /// A `.jtr` whose definitions break a rule (methods of a class no classDef
    /// defines; written by the trace crate's writer): the typed path reports the same
    /// violations, rule, line and message, as tracecheck's XML reader on its rendering.
    #[test]
    fn a_broken_jtr_breaks_the_same_rules_on_both_paths() {
        use trace::defs::{Def, Msg};
        let src = read::stored("v1-exceptions", "jtr");
        let mut r = trace::jtr::JtrReader::open(std::fs::File::open(&src).unwrap()).unwrap();
        let out: PathBuf =
            std::env::temp_dir().join(format!("jtrace-check-broken-{}.jtr", std::process::id()));
        let file = std::fs::File::create(&out).unwrap();
        let mut w = trace::jtr::JtrWriter::new(file, &r.header, &r.conv).unwrap();
        let mut broken = 0;
        while let Some(mut m) = r.next_msg().unwrap() {
            if let Msg::Defs(defs) = &mut m {
                for d in defs {
                    if let Def::Method(md) = d {
                        md.cid = 999_999;
                        broken += 1;
                    }
                }
            }
            let end = matches!(m, Msg::Finish { .. });
            w.write(&m).unwrap();
            if end {
                break;
            }
        }
        w.flush().unwrap();
        drop(w);
        assert!(broken > 0);
        let (typed, xml) = both(&out);
        let _ = std::fs::remove_file(&out);
        let typed = typed.expect_err("the typed path accepted a broken trace");
        let xml = xml.expect_err("the XML reader accepted a broken trace");
        assert!(typed.iter().any(|v| v.rule == tracecheck::Rule::Ids
            && v.message.contains("no classDef defines class 999999")));
        assert_eq!(typed, xml);
    }

    /// A `.jtr` cut short replays as a closed document: `check` says why it is not
    /// whole (and the command fails unless --prefix-ok).
    #[test]
    fn a_jtr_cut_short_says_so() {
        let src = read::stored("v2-switch", "jtr");
        let bytes = std::fs::read(&src).unwrap();
        let out = std::env::temp_dir().join(format!("jtrace-check-cut-{}.jtr", std::process::id()));
        std::fs::write(&out, &bytes[..bytes.len() * 2 / 3]).unwrap();
        let (checked, cut) = check(read::Trace::open(&out).unwrap().input(None).unwrap()).unwrap();
        assert!(cut.is_some());
        assert!(checked.is_ok(), "{checked:?}");
        let run = |prefix_ok| {
            super::run(super::Args {
                input: crate::cmd::common::Input {
                    trace: out.clone(),
                    more: Vec::new(),
                },
                prefix_ok,
            })
        };
        let refused = run(false);
        let accepted = run(true);
        let _ = std::fs::remove_file(&out);
        let e = refused.expect_err("a .jtr cut short passed check");
        assert!(e.contains("cut short") && e.contains("--prefix-ok"), "{e}");
        accepted.unwrap();
    }
}
