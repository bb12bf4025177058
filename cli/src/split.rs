//! One answer on several cores (`--jobs N`): a `.jtr` with its index is read by N
//! workers at once, each taking some threads whole (threads are independent until the
//! merge), and their models and analyses are merged into exactly what one pass gives.
//! XML input, a file without an index (cut short), `--test` and one job: one pass.

use crate::model::filter::Filter;
use crate::model::idmap::FastMap;
pub use crate::model::merge::Split;
use crate::model::Part;
use crate::pass::{self, Pass};
use crate::read;
use std::path::Path;
use std::sync::Arc;

/// [`pass::run`] on up to `filter.jobs` cores.
pub fn run<A: Split>(path: &Path, filter: Filter, a: &mut A) -> Result<Pass, String> {
    let s = run_quiet(path, filter, a)?;
    pass::warn(&s);
    Ok(s)
}

/// [`run`] without the warnings.
pub fn run_quiet<A: Split>(path: &Path, filter: Filter, a: &mut A) -> Result<Pass, String> {
    let plan = match (filter.jobs, &filter.test) {
        (jobs, None) if jobs > 1 => plan(path, jobs),
        _ => None,
    };
    let Some((workers, owner)) = plan else {
        return pass::run_quiet(path, filter, a);
    };
    // One bar for the pass, over the file: the workers' reads add up to it.
    let size = std::fs::metadata(path).map_or(0, |m| m.len());
    let bar = read::Progress::new(size);
    let results: Vec<Result<(Pass, A), String>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..workers)
            .map(|worker| {
                let mut mine = a.fresh();
                let part = Part {
                    worker,
                    owner: owner.clone(),
                };
                let filter = filter.clone();
                let bar = bar.clone();
                scope.spawn(move || {
                    pass::run_part(path, filter, part, &mut mine, bar).map(|p| (p, mine))
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|_| Err("a worker failed".into())))
            .collect()
    });
    let mut parts = results.into_iter();
    let (mut whole, mut merged) = parts.next().ok_or("no worker")??;
    for p in parts {
        let (pass, an) = p?;
        if !whole.model.merge(pass.model) {
            // The workers named something differently (ids used before their
            // definition): one pass gives the answer.
            return pass::run_quiet(path, filter, a);
        }
        merged.merge(an);
    }
    whole.model.whole();
    *a = merged;
    Ok(whole)
}

/// The workers and, per thread id, its worker: threads by the bytes of their records,
/// largest first, each to the worker with the fewest bytes so far. None when the file
/// has no index or fewer than two threads to share.
fn plan(path: &Path, jobs: usize) -> Option<(u32, Arc<FastMap<u64, u32>>)> {
    let mut sizes = read::thread_sizes(path)?;
    sizes.retain(|&(tid, _)| tid != 0);
    let workers = jobs.min(sizes.len()).min(u32::MAX as usize) as u32;
    if workers < 2 {
        return None;
    }
    sizes.sort_by_key(|&(tid, bytes)| (std::cmp::Reverse(bytes), tid));
    let mut load = vec![0u64; workers as usize];
    let mut owner = FastMap::default();
    for (tid, bytes) in sizes {
        let w = (0..workers as usize).min_by_key(|&w| (load[w], w))?;
        load[w] += bytes;
        owner.insert(tid as u64, w as u32);
    }
    Some((workers, Arc::new(owner)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::folded;
    use crate::analysis::report::Report;
    use crate::analysis::tree::CallTree;
    use trace::jtr::{JtrReader, JtrWriter};

    /// A stored trace written again by the agent's writer, which adds the index.
    fn indexed(name: &str, dir: &Path) -> std::path::PathBuf {
        let data = std::fs::read(read::stored(name, "jtr")).unwrap();
        let mut r = JtrReader::open(&data[..]).unwrap();
        let out = dir.join(format!("{name}.jtr"));
        let file = std::fs::File::create(&out).unwrap();
        let mut w = JtrWriter::new(std::io::BufWriter::new(file), &r.header, &r.conv).unwrap();
        while let Some(msg) = r.next_msg().unwrap() {
            w.write(&msg).unwrap();
        }
        w.flush().unwrap();
        out
    }

    /// Every answer that splits: report (JSON and text), tree, folded stacks, from
    /// one pass and from two and three workers, byte for byte.
    fn answers(path: &Path, jobs: usize) -> Vec<String> {
        let filter = Filter {
            jobs,
            ..Filter::default()
        };
        let mut both = (Report::default(), Some(CallTree::default()));
        let s = run_quiet(path, filter, &mut both).unwrap();
        let (report, tree) = both;
        let tree = tree.unwrap();
        let all = |_: &str| true;
        let doc = report.doc(&s, &all, None);
        let mut text = Vec::new();
        crate::render::text::tree_to(&mut text, &s.model.syms, &tree.tree, 0, None, true).unwrap();
        vec![
            serde_json::to_string_pretty(&doc).unwrap(),
            crate::render::text::report(&report.doc(&s, &all, Some(20)), &doc),
            String::from_utf8(text).unwrap(),
            folded::folded_text(&s.model.syms, &tree.tree, true, 0),
            format!("{:?}", s.model.totals),
        ]
    }

    #[test]
    fn workers_give_the_answer_of_one_pass() {
        let dir = std::env::temp_dir().join(format!("jtrace-split-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let mut split = 0;
        for name in read::STORED {
            let path = indexed(name, &dir);
            assert!(read::thread_sizes(&path).is_some(), "{name}");
            // Traces with one thread of calls are read in one pass.
            split += plan(&path, 2).is_some() as usize;
            let one = answers(&path, 1);
            for jobs in [2, 3] {
                assert_eq!(one, answers(&path, jobs), "{name} at {jobs} jobs");
            }
            // The stored file (no index) is read in one pass.
            assert!(plan(&read::stored(name, "jtr"), 2).is_none(), "{name}");
        }
        assert!(split >= 4, "{split} traces split");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
