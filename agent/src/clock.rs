//! Event timestamps: a raw tick read on the hot path (TSC, no system call) and its conversion map, measured once.
//!
//! Callbacks store raw ticks. With an invariant TSC (`constant_tsc` and `nonstop_tsc`
//! in /proc/cpuinfo) a tick is one `rdtsc` (about 15 ns here); otherwise it is
//! `CLOCK_MONOTONIC` nanoseconds read through the vDSO (no system call either).
//! The renderer converts ticks with one linear map fixed once, so converted times never
//! go backwards for a thread whose ticks do not.

use crate::sys::os::{clock_ns, rdtsc, CLOCK_MONOTONIC, CLOCK_REALTIME};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::OnceLock;
use std::time::Duration;
pub use trace::clock::Converter;

static USE_TSC: AtomicBool = AtomicBool::new(false);
static ANCHOR: OnceLock<Anchor> = OnceLock::new();

/// A simultaneous reading of ticks, monotonic and real time, taken at agent load.
struct Anchor {
    ticks: u64,
    mono_ns: u64,
    real_ns: u64,
}

/// How long the TSC rate is measured before the first conversion.
const CALIBRATION: Duration = Duration::from_millis(25);

/// Current Unix time in nanoseconds (for the few elements not stamped on the hot path).
pub fn real_ns() -> u64 {
    clock_ns(CLOCK_REALTIME)
}

/// The raw tick for an event. Hot path: one predictable branch plus rdtsc.
#[inline(always)]
pub fn ticks() -> u64 {
    if USE_TSC.load(Ordering::Relaxed) {
        rdtsc()
    } else {
        clock_ns(CLOCK_MONOTONIC)
    }
}

fn tsc_is_invariant() -> bool {
    if !cfg!(target_arch = "x86_64") {
        return false;
    }
    let Ok(info) = std::fs::read_to_string("/proc/cpuinfo") else {
        return false;
    };
    info.lines()
        .find(|l| l.starts_with("flags"))
        .is_some_and(|l| {
            let has = |f: &str| l.split_whitespace().any(|w| w == f);
            has("constant_tsc") && has("nonstop_tsc")
        })
}

/// Chooses the tick source and takes the anchor. Call once at agent load.
pub fn init() {
    ANCHOR.get_or_init(|| {
        let tsc = tsc_is_invariant() && std::env::var_os("JTRACE_NO_TSC").is_none();
        USE_TSC.store(tsc, Ordering::Relaxed);
        Anchor {
            ticks: ticks(),
            mono_ns: clock_ns(CLOCK_MONOTONIC),
            real_ns: real_ns(),
        }
    });
}

/// About how many ticks `ns` nanoseconds take, by the rate since the anchor (for
/// decisions while recording, such as `keep=over:`; the trace's times come from the
/// calibrated map). No system call: the monotonic clock is read through the vDSO.
pub fn ticks_in_ns(ns: u64) -> u64 {
    let Some(a) = ANCHOR.get() else { return ns };
    if !USE_TSC.load(Ordering::Relaxed) {
        return ns;
    }
    let dt = rdtsc().saturating_sub(a.ticks) as u128;
    let dm = clock_ns(CLOCK_MONOTONIC).saturating_sub(a.mono_ns) as u128;
    if dm < 1_000_000 {
        // Too soon to measure: assume 3 GHz, within a factor of two of any TSC here.
        return ns.saturating_mul(3);
    }
    ((ns as u128 * dt) / dm).min(u64::MAX as u128) as u64
}

/// Measures the tick rate against CLOCK_MONOTONIC, sleeping out the rest of the
/// calibration window if the agent started less than that ago. Called once per trace,
/// by the thread that renders or records it (never on an application thread).
pub fn calibrate() -> Converter {
    init();
    let a = ANCHOR.get().expect("clock::init ran");
    if !USE_TSC.load(Ordering::Relaxed) {
        return Converter::nanoseconds(a.ticks, a.real_ns);
    }
    let elapsed = clock_ns(CLOCK_MONOTONIC).saturating_sub(a.mono_ns);
    if let Some(rest) = (CALIBRATION.as_nanos() as u64).checked_sub(elapsed) {
        // VM death ends the window: the rate is then measured over less, but every
        // event of the trace lies in that shorter span (or just after it), and a
        // timestamp's error is its distance from the anchor times the rate's relative
        // error: at most the reading jitter. So a short program's exit (a `-javaagent`
        // load comes late in it) does not wait out the window.
        crate::exiting::wait(Duration::from_nanos(rest));
    }
    let t = rdtsc();
    let m = clock_ns(CLOCK_MONOTONIC);
    let dt = t.saturating_sub(a.ticks).max(1) as u128;
    let dm = m.saturating_sub(a.mono_ns) as u128;
    Converter {
        base_ticks: a.ticks,
        base_real_ns: a.real_ns,
        mult: ((dm << 32) / dt).min(u64::MAX as u128) as u64,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conversion_is_monotonic_and_close_to_real_time() {
        init();
        let c = calibrate();
        let t1 = ticks();
        std::thread::sleep(Duration::from_millis(20));
        let t2 = ticks();
        let (a, b) = (c.to_unix_ns(t1), c.to_unix_ns(t2));
        assert!(b > a);
        let diff = b - a;
        assert!(diff >= 15_000_000, "20ms sleep measured as {diff} ns");
        let now = real_ns();
        let err = now.abs_diff(c.to_unix_ns(ticks()));
        assert!(err < 50_000_000, "converted time off real time by {err} ns");
    }
}
