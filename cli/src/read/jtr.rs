//! A `.jtr` as typed events: the trace crate's replay, with no XML in between.

use super::{Event, Outcome};
use std::io::Read;

/// Streams the `.jtr` in `reader` to `sink`. A file cut short is read up to its last
/// whole block: the outcome says it is not complete, with a warning saying where.
pub fn read(name: &str, reader: impl Read, sink: impl FnMut(&Event)) -> Result<Outcome, String> {
    let (done, _header) = trace::jtr::replay(reader, sink).map_err(|e| format!("{name}: {e}"))?;
    let mut out = Outcome {
        complete: done.cut_short.is_none(),
        ..Outcome::default()
    };
    if let Some(why) = done.cut_short {
        out.warnings.push(format!(
            "{name}: the trace is cut short ({why}); read up to its last whole block"
        ));
    }
    Ok(out)
}
