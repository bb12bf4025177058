//! One pass over one trace: open it, stream its events through the [`Model`] into an
//! analysis, report the reader's warnings on stderr.

use crate::model::filter::Filter;
use crate::model::testcase::TestScope;
use crate::model::{Analysis, Model};
use crate::read;
use std::path::Path;

/// What a pass leaves besides the analysis' own results.
pub struct Session {
    pub file: String,
    pub model: Model,
    pub outcome: read::Outcome,
}

/// Reads `path` once into `a`. Warnings (a trace cut short, malformed elements, frames
/// left open) go to stderr, prefixed `jtrace: warning:`.
pub fn run<A: Analysis>(path: &Path, filter: Filter, a: &mut A) -> Result<Session, String> {
    let s = run_quiet(path, filter, a)?;
    warn(&s);
    Ok(s)
}

/// The same pass without the warnings (a second pass over a file already reported).
pub fn run_quiet<A: Analysis>(path: &Path, filter: Filter, a: &mut A) -> Result<Session, String> {
    run_tapped(path, filter, a, |_| {})
}

/// A pass that also hands every event to `tap` before the model sees it (for answers
/// about the trace itself, not its calls; with `--thread`, a `.jtr` gives the tap only
/// what the chosen threads need). No warnings. With `--test`, the analysis
/// sees only what the chosen tests did.
pub fn run_tapped<A: Analysis>(
    path: &Path,
    filter: Filter,
    a: &mut A,
    tap: impl FnMut(&read::Event),
) -> Result<Session, String> {
    match filter.test.clone() {
        Some(p) => {
            let mut scope = TestScope::new(p.clone(), a);
            let s = pass(path, filter, &mut scope, tap)?;
            match scope.counts() {
                (0, _) => Err(format!(
                    "{}: --test: the trace marks no tests (record it with jtrace record, \
                     or put jtrace.jar on the test class path)",
                    s.file
                )),
                (n, 0) => Err(format!(
                    "{}: --test {}: none of the {n} tests has that name (jtrace tests lists \
                     them; * and ? make a pattern)",
                    s.file,
                    p.text()
                )),
                _ => Ok(s),
            }
        }
        None => pass(path, filter, a, tap),
    }
}

fn pass<A: Analysis>(
    path: &Path,
    filter: Filter,
    a: &mut A,
    mut tap: impl FnMut(&read::Event),
) -> Result<Session, String> {
    let input = read::open(path)?;
    let file = input.name.clone();
    // `--thread`: a `.jtr` replays only the chosen threads (and what they need of
    // the others); the model ignores the others' events anyway.
    let threads = filter.thread.clone();
    let wanted = |name: &str| threads.as_ref().is_none_or(|p| p.matches(name));
    let mut model = Model::new(filter);
    let outcome = read::read_threads(input, threads.is_some().then_some(&wanted), |ev| {
        tap(ev);
        model.event(ev, a)
    })?;
    model.finish(a);
    Ok(Session {
        file,
        model,
        outcome,
    })
}

/// Warnings about the read on stderr, prefixed `jtrace: warning:`.
pub fn warn(s: &Session) {
    let (file, model, outcome) = (&s.file, &s.model, &s.outcome);
    for w in &outcome.warnings {
        eprintln!("jtrace: warning: {w}");
    }
    let t = &model.totals;
    if t.open_frames > 0 && outcome.complete {
        eprintln!(
            "jtrace: warning: {file}: {} frames were still open at the end of the trace \
             (threads that never returned); they are counted up to their thread's end",
            t.open_frames
        );
    }
    if t.mismatched_exits > 0 {
        eprintln!(
            "jtrace: warning: {file}: {} exits named no open frame and were ignored",
            t.mismatched_exits
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::report::Report;
    use crate::analysis::tree::CallTree;
    use crate::model::filter::Pattern;

    /// The report (JSON) and call tree of `path` for the threads `thread` names.
    fn answer(path: &Path, thread: Option<&str>) -> (String, read::Outcome) {
        let filter = Filter {
            thread: thread.map(Pattern::new),
            ..Filter::default()
        };
        let mut a = (Report::default(), CallTree::default());
        let mut s = run_quiet(path, filter, &mut a).unwrap();
        s.file = String::new();
        let doc = a.0.doc(&s, &|_| true, None);
        let mut out = serde_json::to_string_pretty(&doc).unwrap().into_bytes();
        crate::render::text::tree_to(&mut out, &s.model.syms, &a.1.tree, 0, None, true).unwrap();
        (String::from_utf8(out).unwrap(), s.outcome)
    }

    /// `--thread` on a `.jtr` replays only that thread's records (and the others'
    /// allocations), and answers exactly as the full pass over its XML twin does.
    #[test]
    fn one_thread_of_a_jtr_answers_as_the_full_pass() {
        let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("../trace/tests/data");
        let (mut skipped, mut unread) = (0, 0);
        for name in [
            "v1-exceptions",
            "v1-monitors",
            "v2-switch",
            "v3-monitors",
            "v3-tags",
        ] {
            let (jtr, xml) = (
                data.join(format!("{name}.jtr")),
                data.join(format!("{name}.xml")),
            );
            let mut whole = (Report::default(), CallTree::default());
            let threads: Vec<String> = run_quiet(&xml, Filter::default(), &mut whole)
                .unwrap()
                .model
                .syms
                .threads
                .iter()
                .map(|t| t.name.clone())
                .collect();
            let indexed = with_index(&jtr);
            let (all, o) = answer(&jtr, None);
            assert_eq!(o.chunks_skipped, 0, "{name}");
            assert_eq!(all, answer(&xml, None).0, "{name}");
            assert_eq!(all, answer(&indexed, None).0, "{name}");
            for t in &threads {
                let want = answer(&xml, Some(t)).0;
                let (got, o) = answer(&jtr, Some(t));
                assert_eq!(got, want, "{name} --thread {t}");
                assert!(o.chunks_replayed + o.chunks_skipped > 0, "{name} {t}");
                assert_eq!(o.chunks_unread, 0, "{name}: no index, nothing unread");
                skipped += o.chunks_skipped;
                let (got, i) = answer(&indexed, Some(t));
                assert_eq!(got, want, "{name} --thread {t} with the index");
                assert_eq!(i.chunks_skipped, o.chunks_skipped, "{name} {t}");
                unread += i.chunks_unread;
            }
            let _ = std::fs::remove_file(&indexed);
        }
        assert!(skipped > 0, "no chunk was ever left out");
        assert!(unread > 0, "the index never let a chunk go unread");
    }

    /// `path` written again by the `.jtr` writer, which appends the index.
    fn with_index(path: &Path) -> std::path::PathBuf {
        let f = std::fs::File::open(path).unwrap();
        let mut r = trace::jtr::JtrReader::open(std::io::BufReader::new(f)).unwrap();
        let out = std::env::temp_dir().join(format!(
            "jtrace-indexed-{}-{}",
            std::process::id(),
            path.file_name().unwrap().to_string_lossy()
        ));
        let file = std::fs::File::create(&out).unwrap();
        let mut w = trace::jtr::JtrWriter::new(file, &r.header, &r.conv).unwrap();
        while let Some(m) = r.next_msg().unwrap() {
            let end = matches!(m, trace::defs::Msg::Finish { .. });
            w.write(&m).unwrap();
            if end {
                break;
            }
        }
        out
    }
}
