//! `cargo xtask test`, step cli: one thread's calls cut over two workers (CliCut: one thread recursing deep and throwing through many frames, in many record chunks): `report` on the fresh agent `.jtr` at 1, 2 and 3 jobs answers byte for byte as the one pass over the run's XML, and at 2 jobs two workers read it (counted with `JTRACE_READ_STATS`).

use crate::steps::cli_windows::{answer, both_named};
use std::path::Path;

pub(crate) fn same_cut(jtrace: &Path, run: &Path) -> Result<(), String> {
    let dirs = both_named(run, "cut")?;
    for args in [&["report", "--json"][..], &["report", "--top", "50"][..]] {
        let mut a: Vec<&str> = args.to_vec();
        a.push("trace");
        let (want, _) = answer(jtrace, &dirs[0], &a)?;
        let mut chunks = 0;
        for jobs in ["1", "2", "3"] {
            let mut b = a.clone();
            b.extend(["--jobs", jobs]);
            // Each worker lists every record chunk of the file.
            let (got, [_, listed, wrong]) = answer(jtrace, &dirs[1], &b)?;
            if jobs == "1" {
                chunks = listed.max(1);
            }
            let workers = listed / chunks;
            if got != want {
                let at = got.iter().zip(&want).take_while(|(x, y)| x == y).count();
                return Err(format!(
                    "jtrace {}: the .jtr's answer differs from the XML's at byte {at}: {:?} / {:?}",
                    b.join(" "),
                    String::from_utf8_lossy(
                        &want[at.saturating_sub(60)..(at + 60).min(want.len())]
                    ),
                    String::from_utf8_lossy(&got[at.saturating_sub(60)..(at + 60).min(got.len())]),
                ));
            }
            if (jobs != "1" && workers != 2) || wrong > 0 {
                return Err(format!(
                    "jtrace {}: {workers} workers read the trace, not 2 (no cut made), \
                     {wrong} resumed wrong",
                    b.join(" ")
                ));
            }
        }
    }
    Ok(())
}
