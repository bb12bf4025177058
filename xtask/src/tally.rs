//! PASS/FAIL lines and their count: the one tally of `cargo xtask test`, `stress` and `tidy`.

use std::time::Instant;

/// PASS/FAIL lines and their count (shared with `cargo xtask stress`).
#[derive(Default)]
pub struct Tally {
    passed: usize,
    failed: usize,
    /// When the last step ended (or the tally's first lap began).
    lap: Option<Instant>,
}

impl Tally {
    /// Prints the final count; true when nothing failed.
    pub fn finish(&self) -> bool {
        println!("{} passed, {} failed", self.passed, self.failed);
        self.failed == 0
    }

    /// Prints how long the step just ended took, so the suite's time can be read by step.
    pub fn lap(&mut self, step: &str) {
        let now = Instant::now();
        if let Some(t) = self.lap {
            println!("TIME {step}: {:.0} s", (now - t).as_secs_f64());
        }
        self.lap = Some(now);
    }

    pub fn report(&mut self, ok: Result<(), String>, jdk: &str, what: &str) {
        match ok {
            Ok(()) => {
                self.passed += 1;
                println!("PASS {jdk} {what}");
            }
            Err(why) => {
                self.failed += 1;
                println!("FAIL {jdk} {what} ({})", why.replace('\n', " "));
            }
        }
    }
}
