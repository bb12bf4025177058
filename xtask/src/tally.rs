//! PASS/FAIL lines and their count: the one tally of `cargo xtask test`, `stress` and `tidy`.

use std::time::Instant;

/// PASS/FAIL lines and their count (shared with `cargo xtask stress`).
pub struct Tally {
    passed: usize,
    failed: usize,
    /// When the last step ended (at first, when the tally was made).
    lap: Instant,
}

impl Default for Tally {
    fn default() -> Tally {
        Tally {
            passed: 0,
            failed: 0,
            lap: Instant::now(),
        }
    }
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
        println!("TIME {step}: {:.0} s", (now - self.lap).as_secs_f64());
        self.lap = now;
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
