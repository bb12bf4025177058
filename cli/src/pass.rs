//! One pass over one opened trace: stream its events through the [`Model`] into an
//! analysis, report the reader's warnings on stderr.

use crate::model::filter::Filter;
use crate::model::testcase::TestScope;
use crate::model::windows::WindowScope;
use crate::model::{Analysis, Model};
use crate::read::{self, Selection, Trace};

/// What a pass leaves besides the analysis' own results.
pub struct Pass {
    pub file: String,
    pub model: Model,
    pub outcome: read::Outcome,
}

/// Thread names an error lists at most.
const LISTED: usize = 20;

impl Pass {
    /// The pass, unless `--thread` named no thread of the trace: then an error listing
    /// the trace's threads (an answer about none of them would look like an idle one).
    pub fn threads_found(self) -> Result<Pass, String> {
        let Some(p) = &self.model.filter.thread else {
            return Ok(self);
        };
        let threads = &self.model.syms.threads;
        if threads.iter().any(|t| p.matches(&t.name)) {
            return Ok(self);
        }
        let mut names: Vec<&str> = threads.iter().map(|t| t.name.as_str()).collect();
        names.sort_unstable();
        names.dedup();
        Err(format!(
            "{}: --thread {}: no thread has that name; the trace's threads: {} (* and ? \
             make a pattern)",
            self.file,
            p.text(),
            match names.len() {
                0 => "none".to_string(),
                n if n > LISTED =>
                    format!("{} and {} more", names[..LISTED].join(", "), n - LISTED),
                _ => names.join(", "),
            }
        ))
    }

    /// The read is over: the model finished into `a`, the read statistics said.
    pub(crate) fn finished<A: Analysis>(
        file: String,
        mut model: Model,
        outcome: read::Outcome,
        a: &mut A,
    ) -> Pass {
        model.finish(a);
        read_stats(&outcome);
        Pass {
            file,
            model,
            outcome,
        }
    }
}

/// Reads `trace` once into `a`. Warnings (a trace cut short, malformed elements, frames
/// left open) go to stderr, prefixed `jtrace: warning:`.
pub fn run<A: Analysis>(trace: &Trace, filter: Filter, a: &mut A) -> Result<Pass, String> {
    let s = run_quiet(trace, filter, a)?;
    warn(&s);
    Ok(s)
}

/// The same pass without the warnings (a second pass over a file already reported).
pub fn run_quiet<A: Analysis>(trace: &Trace, filter: Filter, a: &mut A) -> Result<Pass, String> {
    run_tapped(trace, filter, a, |_| {})
}

/// A pass that also hands every event to `tap` before the model sees it (for answers
/// about the trace itself, not its calls; with `--thread`, a `.jtr` gives the tap only
/// what the chosen threads need). No warnings. With `--test`, the analysis
/// sees only what the chosen tests did.
pub fn run_tapped<A: Analysis>(
    trace: &Trace,
    filter: Filter,
    a: &mut A,
    tap: impl FnMut(&read::Event),
) -> Result<Pass, String> {
    if let Some(id) = filter.window.clone() {
        let mut scope = WindowScope::new(&id, a);
        let s = pass(trace, filter, &mut scope, tap)?;
        return match scope.counts() {
            (0, _) => Err(format!(
                "{}: --window: the trace has no windows (record with window=Class.method)",
                s.file
            )),
            (n, false) => Err(format!(
                "{}: --window {id}: none of the {n} windows has that id (jtrace windows lists them)",
                s.file
            )),
            _ => Ok(s),
        }
        .and_then(Pass::threads_found);
    }
    match filter.test.clone() {
        Some(p) => {
            let mut scope = TestScope::new(p.clone(), a);
            let s = pass(trace, filter, &mut scope, tap)?;
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
        None => pass(trace, filter, a, tap),
    }
    .and_then(Pass::threads_found)
}

fn pass<A: Analysis>(
    trace: &Trace,
    filter: Filter,
    a: &mut A,
    mut tap: impl FnMut(&read::Event),
) -> Result<Pass, String> {
    // `--thread`: a `.jtr` replays only the chosen threads (and what they need of
    // the others); the model ignores the others' events anyway.
    let threads = filter.thread.clone();
    let wanted = |_: u32, name: &str| threads.as_ref().is_none_or(|p| p.matches(name));
    let sel = Selection {
        threads: filter.thread.is_some().then_some(&wanted as &read::Wanted),
        window: window(trace, &filter),
        cut: None,
    };
    let mut model = Model::new(filter);
    let outcome = trace.read(sel, None, |ev| {
        tap(ev);
        model.event(ev, a)
    })?;
    Ok(Pass::finished(trace.name.clone(), model, outcome, a))
}

/// What of a `.jtr` with an index the read may confine itself to: the window; with
/// `--test` and no `--from`, from the first chosen test's start on (nothing before it
/// is any chosen test's), found from the file's test marks alone
/// (`crate::model::testcase::first_start`), or from `--to` if that is earlier.
pub(crate) fn window(trace: &Trace, filter: &Filter) -> read::Window {
    let from = match &filter.test {
        Some(p) if filter.from.is_none() => trace.tags().and_then(|(start, tags)| {
            let tags = tags.iter().map(|(t, ns)| {
                let tag = crate::model::Tag {
                    name: t.name.clone(),
                    fields: t.fields.clone(),
                    time: *ns,
                };
                (t.tid, tag)
            });
            let first = crate::model::testcase::first_start(tags, p)?.saturating_sub(*start);
            // Not past `--to`: what is open there is the answer's too.
            Some(filter.to.map_or(first, |to| first.min(to)))
        }),
        _ => filter.from,
    };
    read::Window {
        from,
        to: filter.to,
    }
}

/// A diagnostic for tests and benchmarks (`JTRACE_READ_STATS` set): how much of a
/// `.jtr` the read took, one line per pass (per worker under `--jobs`).
fn read_stats(o: &read::Outcome) {
    if std::env::var_os("JTRACE_READ_STATS").is_some() {
        let all = o.chunks_replayed + o.chunks_skipped;
        eprintln!(
            "jtrace: read: {} of {all} record chunks ({} replayed whole), {} resumed wrong",
            all - o.chunks_unread,
            o.chunks_replayed,
            o.resumed_wrong
        );
    }
}

/// Warnings about the read on stderr, prefixed `jtrace: warning:`.
pub fn warn(s: &Pass) {
    let (file, model, outcome) = (&s.file, &s.model, &s.outcome);
    for w in &outcome.warnings {
        eprintln!("jtrace: warning: {w}");
    }
    let t = &model.totals;
    // Under `--to`, calls still running at the window's end are open by design.
    if t.open_frames > 0 && outcome.complete && model.filter.to.is_none() {
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
