//! PASS/FAIL lines and their count: the one tally of `cargo xtask test`, `stress` and `tidy`.

/// PASS/FAIL lines and their count (shared with `cargo xtask stress`).
#[derive(Default)]
pub struct Tally {
    passed: usize,
    failed: usize,
}

impl Tally {
    /// Prints the final count; true when nothing failed.
    pub fn finish(&self) -> bool {
        println!("{} passed, {} failed", self.passed, self.failed);
        self.failed == 0
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
