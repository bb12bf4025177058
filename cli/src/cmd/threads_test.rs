//! `--thread` on a `.jtr`, with and without the file's index: every answer equals the full pass over the run's XML, and the chunks of other threads are left out (counted).

use crate::analysis::report::Report;
use crate::analysis::tree::CallTree;
use crate::model::filter::Filter;
use crate::model::filter::Pattern;
use crate::pass::run_quiet;
use crate::read;
use std::path::Path;

/// The report (JSON) and call tree of `path` for the threads `thread` names.
fn answer(path: &Path, thread: Option<&str>) -> (String, read::Outcome) {
    let filter = Filter {
        thread: thread.map(Pattern::new),
        ..Filter::default()
    };
    let mut a = (Report::default(), CallTree::default());
    let mut s = run_quiet(&crate::read::Trace::open(path).unwrap(), filter, &mut a).unwrap();
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
    let (mut skipped, mut unread) = (0, 0);
    for &name in read::STORED {
        let (jtr, xml) = (read::stored(name, "jtr"), read::stored(name, "xml"));
        let mut whole = (Report::default(), CallTree::default());
        let threads: Vec<String> = run_quiet(
            &crate::read::Trace::open(&xml).unwrap(),
            Filter::default(),
            &mut whole,
        )
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
    super::window_test::rechunked(path, usize::MAX)
}
