//! Stress programs that fit the test harness as they are: run through `run::run` (the same
//! validation and EXPECT comparison as java-tests/) in the default mode, bci, under
//! `-Xcheck:jni -Xverify:all`; the figure comes from the program's `FIGURE` line.

use super::{figure, Ctx, Verdict};
use crate::cases;
use crate::run::{self, Job};
use crate::util;

/// Loads `stress/NAME.java`'s directives.
pub fn case(name: &str) -> Result<cases::Case, String> {
    cases::load(&util::root().join("stress").join(format!("{name}.java")))
}

pub fn run(ctx: &Ctx, name: &str) -> Verdict {
    let case = match case(name) {
        Ok(c) => c,
        Err(e) => return Verdict::Fail(e),
    };
    let job = Job {
        jdk: ctx.jdk,
        mode: "bci",
        case: &case,
        classes: ctx.classes,
        agent: ctx.agent,
        dir: ctx.dir.clone(),
    };
    let result = run::run(&job);
    let stdout = std::fs::read_to_string(ctx.dir.join("stdout.txt")).unwrap_or_default();
    let fig = figure(&stdout).unwrap_or_else(|| "no figure".to_string());
    match result {
        // tracecheck (run by the harness) also holds stackDepth to traceEvents.xsd's
        // xsd:short: frames deeper than 32767 carry none (issue 9, item 4).
        Ok(()) => Verdict::Pass(fig),
        Err(e) => Verdict::Fail(format!("{e} [{fig}]")),
    }
}
