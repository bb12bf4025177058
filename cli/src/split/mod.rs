//! One answer on several cores (`--jobs N`): a `.jtr` with its index is read by N
//! workers at once, each taking some threads whole (threads are independent until the
//! merge), and their models and analyses are merged into exactly what one pass gives.
//! XML input, a file without an index (cut short), `--test` and one job: one pass.

pub use crate::analysis::merge::Split;

use crate::model::cut::{self, CutSide};
use crate::model::filter::Filter;
use crate::model::idmap::FastMap;
use crate::model::{Analysis, Model, Part};
use crate::pass::{self, Pass};
use crate::read::{self, Selection, Trace};
use std::sync::Arc;

/// [`pass::run`] on up to `filter.jobs` cores.
pub fn run<A: Split>(trace: &Trace, filter: Filter, a: &mut A) -> Result<Pass, String> {
    let s = run_quiet(trace, filter, a)?;
    pass::warn(&s);
    Ok(s)
}

/// [`run`] without the warnings.
pub fn run_quiet<A: Split>(trace: &Trace, filter: Filter, a: &mut A) -> Result<Pass, String> {
    let whole_read = filter.from.is_none() && filter.to.is_none();
    let plan = match (filter.jobs, &filter.test, &filter.window) {
        (jobs, None, None) if jobs > 1 => {
            let cut = (whole_read && a.exits_alone())
                .then(|| cut_plan(trace))
                .flatten();
            match cut {
                Some((owner, sides)) => Some((2, owner, Some(sides))),
                None => plan(trace, jobs).map(|(w, o)| (w, o, None)),
            }
        }
        _ => None,
    };
    let Some((workers, owner, sides)) = plan else {
        return pass::run_quiet(trace, filter, a);
    };
    run_workers(trace, filter, a, workers, owner, sides)
}

/// The pass on `workers` workers, thread `owner`s and a thread cut by `sides`.
fn run_workers<A: Split>(
    trace: &Trace,
    filter: Filter,
    a: &mut A,
    workers: u32,
    owner: Arc<FastMap<u64, u32>>,
    sides: Option<[CutSide; 2]>,
) -> Result<Pass, String> {
    // One bar for the pass, over the file: the workers' reads add up to it.
    let bar = read::Progress::new(trace.size());
    let results: Vec<Result<(Pass, A), String>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..workers)
            .map(|worker| {
                let mut mine = a.fresh();
                let part = Part {
                    worker,
                    owner: owner.clone(),
                    cut: sides.map(|s| s[worker as usize]),
                };
                let filter = filter.clone();
                let bar = bar.clone();
                scope.spawn(move || {
                    worker_pass(trace, filter, part, &mut mine, bar).map(|p| (p, mine))
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
    let tail = whole.model.tail.take();
    let mut head = None;
    let mut wrong = whole.outcome.resumed_wrong;
    for p in parts {
        let (mut pass, an) = p?;
        head = head.or(pass.model.head.take());
        wrong += pass.outcome.resumed_wrong;
        if !whole.model.merge(pass.model) {
            // The workers named something differently (ids used before their
            // definition): one pass gives the answer.
            return pass::run_quiet(trace, filter, a);
        }
        merged.merge(an);
    }
    if sides.is_some() {
        match (tail, head) {
            (Some((t, tail)), Some((_, head))) if wrong == 0 => {
                cut::join(&whole.model.syms, t, tail, head, &mut merged)
            }
            // A cut thread not resumed as the index says: one pass.
            _ => return pass::run_quiet(trace, filter, a),
        }
    }
    whole.model.whole();
    *a = merged;
    whole.threads_found()
}

/// One worker's pass over its share of a `.jtr`: the threads `part` gives it are
/// replayed whole, the others only for what those need; `progress` is the bar the
/// workers share. No warnings.
fn worker_pass<A: Analysis>(
    trace: &Trace,
    filter: Filter,
    part: Part,
    a: &mut A,
    progress: read::Progress,
) -> Result<Pass, String> {
    let threads = filter.thread.clone();
    let wanted = |tid: u32, name: &str| {
        part.owns(tid as u64) && threads.as_ref().is_none_or(|p| p.matches(name))
    };
    let sel = Selection {
        threads: Some(&wanted),
        window: pass::window(trace, &filter),
        cut: part.cut.map(|c| read::Cut {
            tid: c.thread as u32,
            at: c.at,
            after: c.after,
        }),
    };
    let mut model = Model::part(filter, part.clone());
    let outcome = trace.read(sel, Some(progress), |ev| model.event(ev, a))?;
    Ok(Pass::finished(trace.name.clone(), model, outcome, a))
}

/// Per thread id its worker, and the two sides of a cut thread.
type Cut = (Arc<FastMap<u64, u32>>, [CutSide; 2]);

/// A cut of the thread that holds most of the records (more than all the others
/// together) into two parts of about equal size (see `crate::model::cut`): worker 0
/// reads the thread's records before the cut, worker 1 those after it and every other
/// thread. None when no thread holds most, or the file has no index with resume
/// points (with line records: and end states, which keep the frames' last lines).
fn cut_plan(trace: &Trace) -> Option<Cut> {
    let index = trace.index()?;
    if !trace.resumable() {
        return None;
    }
    let mut sizes: FastMap<u32, u64> = FastMap::default();
    for e in index.iter().filter(|e| e.tid != 0) {
        *sizes.entry(e.tid).or_default() += e.len as u64;
    }
    let total: u64 = sizes.values().sum();
    let (&tid, &bytes) = sizes
        .iter()
        .max_by_key(|&(&t, &b)| (b, std::cmp::Reverse(t)))?;
    if bytes * 2 <= total {
        return None;
    }
    // The first chunk of the thread past half of all records.
    let mut seen = 0;
    let half = index.iter().position(|e| {
        seen += (e.tid == tid) as u64 * e.len as u64;
        e.tid == tid && seen * 2 > total
    })?;
    (half..index.len()).find_map(|at| cut_at(index, &sizes, tid, at))
}

/// The cut of thread `tid` before its chunk at index position `at`, if one can be
/// made there: with a frame open where the chunk starts (the worker after the cut
/// knows the rebuilt frames by their number), chunks of the thread before it, and
/// no monitor wait or contended enter open there.
fn cut_at(
    index: &[trace::jtr::index::ChunkEntry],
    sizes: &FastMap<u32, u64>,
    tid: u32,
    at: usize,
) -> Option<Cut> {
    let e = index.get(at).filter(|e| e.tid == tid)?;
    let depth = e.resume?.depth;
    // The thread's chunk before: a monitor wait or contended enter open at its end
    // is not cut through (its rebuilt time may differ from the whole replay's).
    let before = index[..at].iter().rev().find(|e| e.tid == tid)?;
    if depth == 0 || before.resume?.flags & trace::jtr::index::PENDING != 0 {
        return None;
    }
    let owner = sizes.keys().map(|&t| (t as u64, 1)).collect();
    let side = |after| CutSide {
        thread: tid as u64,
        at,
        depth,
        after,
    };
    Some((Arc::new(owner), [side(false), side(true)]))
}

/// The workers and, per thread id, its worker: threads by the bytes of their records,
/// largest first, each to the worker with the fewest bytes so far. None when the file
/// has no index or fewer than two threads to share.
fn plan(trace: &Trace, jobs: usize) -> Option<(u32, Arc<FastMap<u64, u32>>)> {
    let mut sizes = trace.thread_sizes()?;
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
    use std::path::Path;
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
        let s = run_quiet(&Trace::open(path).unwrap(), filter, &mut both).unwrap();
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
            folded::folded_text(&s.model.syms, &tree.tree, true, folded::Min::Fixed(0)).0,
            format!("{:?}", s.model.totals),
        ]
    }

    /// `report`'s answers (JSON and text), and the totals.
    fn report(path: &Path, jobs: usize, sides: Option<(u32, usize)>) -> Vec<String> {
        let filter = Filter {
            jobs,
            ..Filter::default()
        };
        let mut report = Report::default();
        let s = match sides {
            None => run_quiet(&Trace::open(path).unwrap(), filter, &mut report).unwrap(),
            Some((tid, at)) => {
                let trace = Trace::open(path).unwrap();
                let index = trace.index().unwrap();
                let mut sizes = FastMap::default();
                for e in index.iter().filter(|e| e.tid != 0) {
                    *sizes.entry(e.tid).or_default() += e.len as u64;
                }
                let (owner, sides) = cut_at(index, &sizes, tid, at).unwrap();
                run_workers(&trace, filter, &mut report, 2, owner, Some(sides)).unwrap()
            }
        };
        let all = |_: &str| true;
        let doc = report.doc(&s, &all, None);
        vec![
            serde_json::to_string_pretty(&doc).unwrap(),
            crate::render::text::report(&report.doc(&s, &all, Some(20)), &doc),
            format!("{:?}", s.model.totals),
        ]
    }

    /// Answers `a` and `b` are the same; else the first line that differs.
    fn same(a: &[String], b: &[String], what: &str) {
        for (x, y) in a.iter().zip(b) {
            if let Some((l, (p, q))) = x
                .lines()
                .zip(y.lines())
                .enumerate()
                .find(|(_, (p, q))| p != q)
            {
                panic!("{what}: line {l}: {p:?} against {q:?}");
            }
            assert_eq!(x.len(), y.len(), "{what}");
        }
    }

    /// A thread's calls cut over two workers give `report` the answer of one pass,
    /// wherever the cut falls: every stored trace re-chunked finely, cut at every chunk
    /// of every thread where a cut can be made (frames open there, exceptions passing),
    /// and the cut the plan makes at 2 and 3 jobs.
    #[test]
    fn a_thread_cut_gives_the_answer_of_one_pass() {
        let mut cuts = 0;
        for name in read::STORED {
            let path = crate::cmd::window_test::rechunked(&read::stored(name, "jtr"), 5);
            let one = report(&path, 1, None);
            let trace = Trace::open(&path).unwrap();
            let index = trace.index().unwrap();
            let mut sizes = FastMap::default();
            for e in index.iter().filter(|e| e.tid != 0) {
                *sizes.entry(e.tid).or_default() += e.len as u64;
            }
            for (at, e) in index.iter().enumerate() {
                if e.tid != 0 && cut_at(index, &sizes, e.tid, at).is_some() {
                    cuts += 1;
                    let got = report(&path, 2, Some((e.tid, at)));
                    same(
                        &one,
                        &got,
                        &format!("{name} cut at chunk {at} of thread {}", e.tid),
                    );
                }
            }
            for jobs in [2, 3] {
                same(
                    &one,
                    &report(&path, jobs, None),
                    &format!("{name} at {jobs} jobs"),
                );
            }
            let _ = std::fs::remove_file(&path);
        }
        assert!(cuts >= 100, "{cuts} cuts");
    }

    #[test]
    fn workers_give_the_answer_of_one_pass() {
        let dir = std::env::temp_dir().join(format!("jtrace-split-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let mut split = 0;
        for name in read::STORED {
            let path = indexed(name, &dir);
            let trace = Trace::open(&path).unwrap();
            assert!(trace.thread_sizes().is_some(), "{name}");
            // Traces with one thread of calls are read in one pass.
            split += plan(&trace, 2).is_some() as usize;
            let one = answers(&path, 1);
            for jobs in [2, 3] {
                assert_eq!(one, answers(&path, jobs), "{name} at {jobs} jobs");
            }
            // The stored file (no index) is read in one pass.
            assert!(
                plan(&Trace::open(&read::stored(name, "jtr")).unwrap(), 2).is_none(),
                "{name}"
            );
        }
        assert!(split >= 4, "{split} traces split");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
