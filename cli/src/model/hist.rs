//! Durations' distribution in bounded memory: a log-bucketed histogram (16 buckets per
//! power of two, so a percentile is known to within 1/16 of an octave, about 4.4%).
//! Buckets are allocated only over the range a method's durations actually span.

/// Buckets per power of two.
const SUB: u32 = 16;

#[derive(Default, Clone, Debug)]
pub struct Histogram {
    /// Index of `counts[0]`.
    lo: u32,
    counts: Vec<u32>,
    total: u64,
}

/// The bucket of `v`: exact below `SUB`, then `SUB` buckets per octave.
#[inline]
fn bucket(v: u64) -> u32 {
    if v < SUB as u64 {
        return v as u32;
    }
    let octave = 63 - v.leading_zeros(); // >= 4
    let shift = octave - SUB.trailing_zeros();
    let sub = ((v >> shift) as u32) & (SUB - 1);
    (octave - SUB.trailing_zeros() + 1) * SUB + sub
}

/// The largest value in bucket `b`.
fn upper(b: u32) -> u64 {
    if b < SUB {
        return b as u64;
    }
    let shift = b / SUB - 1;
    let sub = (b % SUB) as u64;
    // In u128: the top bucket's bound is 2^64 - 1.
    let top = ((SUB as u128 + sub as u128 + 1) << shift) - 1;
    u64::try_from(top).unwrap_or(u64::MAX)
}

impl Histogram {
    #[inline]
    pub fn add(&mut self, v: u64) {
        let b = bucket(v);
        // Nearly always: a bucket inside the range already held.
        let i = b.wrapping_sub(self.lo) as usize;
        match self.counts.get_mut(i) {
            Some(c) => {
                *c = c.saturating_add(1);
                self.total += 1;
            }
            None => self.add_to(b, 1),
        }
    }

    /// Adds the counts of `other` (the same durations counted elsewhere).
    pub fn merge(&mut self, other: &Histogram) {
        for (i, &n) in other.counts.iter().enumerate() {
            if n > 0 {
                self.add_to(other.lo + i as u32, n);
            }
        }
    }

    #[inline(never)]
    fn add_to(&mut self, b: u32, n: u32) {
        if self.counts.is_empty() {
            self.lo = b;
        } else if b < self.lo {
            let grow = (self.lo - b) as usize;
            self.counts.splice(0..0, std::iter::repeat_n(0, grow));
            self.lo = b;
        }
        let i = (b - self.lo) as usize;
        if i >= self.counts.len() {
            self.counts.resize(i + 1, 0);
        }
        self.counts[i] = self.counts[i].saturating_add(n);
        self.total += n as u64;
    }

    /// The `q`-quantile (0..=1) as the upper bound of its bucket (never below the true
    /// value, at most ~4.4% above it); 0 when empty.
    pub fn quantile(&self, q: f64) -> u64 {
        if self.total == 0 {
            return 0;
        }
        let rank = ((q * self.total as f64).ceil() as u64).clamp(1, self.total);
        let mut seen = 0u64;
        for (i, &c) in self.counts.iter().enumerate() {
            seen += c as u64;
            if seen >= rank {
                return upper(self.lo + i as u32);
            }
        }
        upper(self.lo + self.counts.len() as u32 - 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_are_monotonic_and_tight() {
        let mut last = 0;
        for v in (0..100_000u64).chain([u64::MAX / 2, u64::MAX]) {
            let b = bucket(v);
            assert!(b >= last, "{v}");
            last = b;
            assert!(upper(b) >= v, "{v} {b} {}", upper(b));
            // Within 1/16 of the value (plus one for small ones).
            assert!(upper(b) - v <= v / 16 + 1, "{v} {}", upper(b));
        }
    }

    #[test]
    fn quantiles() {
        let mut h = Histogram::default();
        assert_eq!(h.quantile(0.99), 0);
        for v in 1..=1000u64 {
            h.add(v * 1000);
        }
        let p99 = h.quantile(0.99);
        assert!((990_000..=990_000 + 990_000 / 16).contains(&p99), "{p99}");
        let p50 = h.quantile(0.5);
        assert!((500_000..=500_000 + 500_000 / 16).contains(&p50), "{p50}");
        h.add(1); // grows downwards
        assert_eq!(h.quantile(0.0), 1);
    }

    #[test]
    fn merged_is_counted_at_once() {
        let (mut a, mut b, mut whole) = (
            Histogram::default(),
            Histogram::default(),
            Histogram::default(),
        );
        for v in (0..5000u64).map(|v| v * v % 100_003) {
            let h: &mut Histogram = if v % 3 == 0 { &mut a } else { &mut b };
            h.add(v);
            whole.add(v);
        }
        a.merge(&b);
        assert_eq!(format!("{a:?}"), format!("{whole:?}"));
        let empty = Histogram::default();
        a.merge(&empty);
        assert_eq!(format!("{a:?}"), format!("{whole:?}"));
    }
}
