//! A `.jtr` as typed events: the trace crate's replay of an opened file, with no XML in between.

use super::{Event, Outcome, Selection};
use std::io::{Read, Seek};
use trace::jtr::Opened;

/// Streams what `sel` selects of the `.jtr` opened as `opened`, whose bytes `reader`
/// reads, to `sink`.
pub fn read(
    name: &str,
    opened: &Opened,
    reader: impl Read + Seek,
    sel: Selection<'_>,
    sink: impl FnMut(&Event),
) -> Result<Outcome, String> {
    let sel = trace::jtr::Selection {
        threads: sel
            .threads
            .map(|w| Box::new(w) as Box<dyn FnMut(u32, &str) -> bool>),
        window: sel.window,
        cut: sel.cut,
    };
    let done = opened
        .replay(reader, sel, sink)
        .map_err(|e| format!("{name}: {e}"))?;
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
