//! The JVM's exit as a signal: waits that VM death ends at once and for good (the clock's calibration window, the deferred membarrier registration).
//!
//! A short program's exit should not wait for what only a longer one needs: the rest
//! of the TSC calibration window, or a registration that a live-phase load defers.

use std::sync::{Condvar, Mutex};
use std::time::Duration;

static EXIT: Signal = Signal::new();

/// VM death: every wait, now and later, ends.
pub fn begin() {
    EXIT.raise();
}

/// Waits at most `most`, less if the JVM's exit begins; true once it has.
pub fn wait(most: Duration) -> bool {
    EXIT.wait(most)
}

/// A flag that, once raised, ends every wait on it.
struct Signal {
    raised: Mutex<bool>,
    wake: Condvar,
}

impl Signal {
    const fn new() -> Self {
        Signal {
            raised: Mutex::new(false),
            wake: Condvar::new(),
        }
    }

    fn raise(&self) {
        if let Ok(mut r) = self.raised.lock() {
            *r = true;
        }
        self.wake.notify_all();
    }

    fn wait(&self, most: Duration) -> bool {
        match self.raised.lock() {
            Ok(r) => match self.wake.wait_timeout_while(r, most, |r| !*r) {
                Ok((r, _)) => *r,
                Err(_) => false,
            },
            Err(_) => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Instant;

    #[test]
    fn raising_ends_the_wait_and_every_later_one() {
        let s = Signal::new();
        let t = Instant::now();
        assert!(!s.wait(Duration::from_millis(30)));
        assert!(t.elapsed() >= Duration::from_millis(30));
        std::thread::scope(|sc| {
            sc.spawn(|| {
                std::thread::sleep(Duration::from_millis(20));
                s.raise();
            });
            let t = Instant::now();
            assert!(s.wait(Duration::from_secs(30)));
            assert!(
                t.elapsed() < Duration::from_secs(10),
                "raising did not end the wait"
            );
        });
        let t = Instant::now();
        assert!(s.wait(Duration::from_secs(30)));
        assert!(
            t.elapsed() < Duration::from_secs(10),
            "a later wait was not ended"
        );
    }
}
