//! `cargo xtask test`, step cli: one thread's calls cut over two workers (CliCut: one thread recursing deep and throwing through many frames, in many record chunks): `report` on the fresh agent `.jtr` at 1, 2 and 3 jobs answers byte for byte as the one pass over the run's XML, and at 2 jobs two workers read it (counted with `JTRACE_READ_STATS`).

use crate::cases::Case;
use crate::cli_windows::answer;
use crate::java::Jdk;
use crate::run::Job;
use crate::tally::Tally;
use std::path::Path;

/// Traces CliCut (bci mode, `jtr=` beside the XML) and compares its answers.
pub fn run(
    tally: &mut Tally,
    jdk: &Jdk,
    agent: &Path,
    jtrace: &Path,
    classes: &Path,
    base: &Path,
    case: &Case,
) {
    let job = Job {
        jdk,
        mode: "bci",
        case,
        classes,
        agent,
        dir: base.join("CliCut"),
    };
    if crate::run::reported(tally, &job, &format!("cli/CliCut[{}]", job.mode)) {
        tally.report(
            same_cut(jtrace, &job.dir),
            &jdk.name,
            "cli:report with one thread cut over two workers, the same as the XML's one pass",
        );
    }
}

fn same_cut(jtrace: &Path, run: &Path) -> Result<(), String> {
    // Both files under one name, so that the answers name the same file.
    let mut dirs = Vec::new();
    for ext in ["xml", "jtr"] {
        let dir = run.join(format!("cut-{ext}"));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        let file = run.join(format!("trace.{ext}"));
        std::os::unix::fs::symlink(&file, dir.join("trace"))
            .map_err(|e| format!("{}: {e}", file.display()))?;
        dirs.push(dir);
    }
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
