//! A `.jtr` as typed events: the trace crate's replay, with no XML in between.

use super::{Event, Outcome, Window};
use std::io::{Read, Seek};

/// Whether a thread's records are replayed whole, by its id and name.
pub type Wanted<'a> = dyn Fn(u32, &str) -> bool + 'a;

/// Streams the `.jtr` in `reader` to `sink`. A file cut short is read up to its last
/// whole block: the outcome says it is not complete, with a warning saying where.
/// With `wanted`, only the threads it accepts (by id and name) are replayed whole;
/// with a `window`, only what it needs.
pub fn read(
    name: &str,
    reader: impl Read + Seek,
    wanted: Option<&Wanted<'_>>,
    window: Window,
    sink: impl FnMut(&Event),
) -> Result<Outcome, String> {
    let done = match wanted {
        _ if window.from.is_some() || window.to.is_some() => {
            let w = wanted.map(|w| Box::new(w) as Box<dyn FnMut(u32, &str) -> bool>);
            trace::jtr::replay_window(reader, window, w, sink)
        }
        None => trace::jtr::replay(reader, sink),
        Some(w) => trace::jtr::replay_part(reader, w, sink),
    };
    outcome(name, done)
}

/// One side of a thread cut (see `trace::jtr::replay_cut`).
pub fn read_cut(
    name: &str,
    reader: impl Read + Seek,
    wanted: &Wanted<'_>,
    cut: trace::jtr::Cut,
    sink: impl FnMut(&Event),
) -> Result<Outcome, String> {
    let w = Box::new(wanted) as Box<dyn FnMut(u32, &str) -> bool>;
    outcome(name, trace::jtr::replay_cut(reader, cut, Some(w), sink))
}

/// The outcome of a replay of the file `name`.
fn outcome(
    name: &str,
    done: Result<(trace::jtr::Rendered, trace::header::Header), trace::jtr::JtrError>,
) -> Result<Outcome, String> {
    let (done, _header) = done.map_err(|e| format!("{name}: {e}"))?;
    let mut out = Outcome {
        complete: done.cut_short.is_none(),
        chunks_replayed: done.chunks_replayed,
        chunks_skipped: done.chunks_skipped,
        chunks_unread: done.chunks_unread,
        resumed_wrong: done.resumed_wrong,
        ..Outcome::default()
    };
    if let Some(why) = done.cut_short {
        out.warnings.push(format!(
            "{name}: the trace is cut short ({why}); read up to its last whole block"
        ));
    }
    Ok(out)
}
