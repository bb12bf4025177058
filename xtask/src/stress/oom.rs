//! OutOfMemoryError in the application, caught (stress/StressOom.java, `-Xmx48m`): run once
//! without the agent, then with `alloc=exact` and with `alloc=sampled:64k` through the
//! harness. The program's own lines (`oom ...`) and its exit code must be the same in
//! all three runs (the agent changes nothing the application sees), and each trace must
//! be valid with its EXPECT lines met.

use super::{figure, harness, Ctx, Verdict};
use crate::java;
use crate::run::{self, Job};

/// The lines that do not depend on how full the heap got.
fn own_lines(stdout: &str) -> Vec<&str> {
    stdout.lines().filter(|l| l.starts_with("oom ")).collect()
}

pub fn run(ctx: &Ctx) -> Verdict {
    let case = match harness::case("StressOom") {
        Ok(c) => c,
        Err(e) => return Verdict::Fail(e),
    };
    let base_dir = ctx.dir.join("no-agent");
    if let Err(e) = std::fs::create_dir_all(&base_dir) {
        return Verdict::Fail(e.to_string());
    }
    let base = match java::Run::new(ctx.jdk)
        .args(&case.jvm_args)
        .class_path(ctx.classes)
        .main("StressOom")
        .finish(&base_dir, case.timeout)
    {
        Ok(d) => d,
        Err(e) => return Verdict::Fail(e),
    };
    let want = own_lines(&base.stdout);
    if base.code() != Some(0) || want.len() != 2 {
        return Verdict::Fail(format!(
            "without the agent: exit {:?}, lines {want:?}; stderr: {}",
            base.code(),
            base.stderr_tail()
        ));
    }
    let mut figures = vec![format!(
        "no-agent {}",
        figure(&base.stdout).unwrap_or_default()
    )];
    for (label, alloc) in [("exact", "alloc=exact"), ("sampled", "alloc=sampled:64k")] {
        let mut c = case.clone();
        c.options = alloc.to_string();
        let dir = ctx.dir.join(label);
        let job = Job {
            jdk: ctx.jdk,
            mode: "bci",
            case: &c,
            classes: ctx.classes,
            agent: ctx.agent,
            dir,
        };
        let r = run::run(&job);
        let stdout = std::fs::read_to_string(job.dir.join("stdout.txt")).unwrap_or_default();
        if let Err(e) = r {
            return Verdict::Fail(format!("{alloc}: {e}"));
        }
        let got = own_lines(&stdout);
        if got != want {
            return Verdict::Fail(format!(
                "{alloc}: the program printed {got:?}, without the agent {want:?}"
            ));
        }
        figures.push(format!("{label} {}", figure(&stdout).unwrap_or_default()));
    }
    Verdict::Pass(figures.join(", "))
}
