//! The clock map: one fixed linear map from raw ticks (TSC or monotonic nanoseconds) to Unix nanoseconds.
//!
//! The agent measures the map once (`jtrace::clock::calibrate`); the renderer applies
//! it, and a `.jtr` file stores its three numbers in its header so that rendering later
//! gives the very times the agent would have written.

/// Converts ticks to Unix nanoseconds. Fixed once built, so converted times never go
/// backwards for a thread whose ticks do not.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Converter {
    /// Tick at the anchor.
    pub base_ticks: u64,
    /// Unix nanoseconds at the anchor.
    pub base_real_ns: u64,
    /// Nanoseconds per tick as a 32.32 fixed-point number.
    pub mult: u64,
}

impl Converter {
    /// The identity map shifted to `base_real_ns` (ticks are nanoseconds).
    pub fn nanoseconds(base_ticks: u64, base_real_ns: u64) -> Converter {
        Converter {
            base_ticks,
            base_real_ns,
            mult: 1 << 32,
        }
    }

    /// Unix nanoseconds of a tick; ticks before the anchor clamp to it.
    #[inline]
    pub fn to_unix_ns(&self, ticks: u64) -> u64 {
        let d = ticks.saturating_sub(self.base_ticks) as u128;
        self.base_real_ns + ((d * self.mult as u128) >> 32) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn maps_linearly_and_clamps_before_the_anchor() {
        let c = Converter {
            base_ticks: 1000,
            base_real_ns: 5_000,
            mult: 1 << 31, // half a nanosecond per tick
        };
        assert_eq!(c.to_unix_ns(10), 5_000);
        assert_eq!(c.to_unix_ns(1000), 5_000);
        assert_eq!(c.to_unix_ns(3000), 6_000);
        let n = Converter::nanoseconds(0, 7);
        assert_eq!(n.to_unix_ns(3), 10);
    }
}
