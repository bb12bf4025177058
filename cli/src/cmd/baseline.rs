//! `jtrace baseline TRACE... -o FILE`: the exact counts of each test of one or more runs,
//! as the file `jtrace gate` judges later runs against (meant to be committed).

use super::common::emit;
use crate::gate::{self, baseline::Baseline};
use std::path::PathBuf;

#[derive(clap::Args, Debug)]
#[command(
    after_help = "Example: jtrace baseline run1/jtrace-*.jtr run2/jtrace-*.jtr -o jtrace-baseline.json\n\
                  Traces of several runs of the same tests give each count's range."
)]
pub struct Args {
    /// Traces of test runs (jtrace record writes one per JVM); several runs of the same
    /// tests give ranges for the counts that differ between them
    #[arg(required = true)]
    pub traces: Vec<PathBuf>,
    #[command(flatten)]
    pub out: super::common::Out,
}

pub fn run(a: Args) -> Result<(), String> {
    super::common::form(a.out.output.as_deref(), super::common::Form::Json, &[])?;
    let run = gate::observe(&a.traces)?;
    let b = Baseline::learn(&run.observations, run.kept(), &run.recorded());
    let tests = b
        .tests
        .keys()
        .filter(|k| !k.starts_with("(outside"))
        .count();
    if tests == 0 {
        eprintln!(
            "jtrace: warning: no tests marked in the trace(s): the baseline holds what ran \
             outside tests only (record the test run with jtrace record)"
        );
    }
    eprintln!(
        "jtrace: baseline of {tests} tests from {} traces; {} counts vary between runs",
        run.kept(),
        b.varying
    );
    emit(a.out.output.as_deref(), &super::common::json(&b)?)
}
