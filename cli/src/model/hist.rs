//! Durations' distribution: a log-bucketed histogram (16 buckets per power of two)
//! beside the longest durations exactly, so a percentile is exact (nearest rank, as
//! DuckDB's and Spark's `percentile_disc` give it) whenever its rank falls among the
//! durations still held, and otherwise the upper bound of its histogram bucket (within
//! 1/16 of an octave, about 4.4%, above the true value, and said so).
//! Buckets are allocated only over the range a method's durations actually span; the
//! exact durations are every one added until the reader prunes (to a memory budget it
//! keeps over all its histograms, see [`Histogram::prune`]), then every one at or above
//! the histogram's threshold.

/// Buckets per power of two.
const SUB: u32 = 16;

#[derive(Default, Clone, Debug)]
pub struct Histogram {
    /// Index of `counts[0]`.
    lo: u32,
    counts: Vec<u32>,
    total: u64,
    /// Every duration added that is at least `threshold`, as added.
    kept: Vec<u64>,
    /// 0 until a prune.
    threshold: u64,
}

/// A quantile and whether it is the exact duration at its rank.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Quantile {
    pub value: u64,
    /// False: `value` is the upper bound of the bucket holding the rank (the durations
    /// of that bucket were no longer all held).
    pub exact: bool,
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
    /// Counts `v`; true when its exact value is also kept (the caller's budget).
    #[inline]
    pub fn add(&mut self, v: u64) -> bool {
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
        let keep = v >= self.threshold;
        if keep {
            self.kept.push(v);
        }
        keep
    }

    /// Adds the counts and kept durations of `other` (durations counted elsewhere).
    pub fn merge(&mut self, other: &Histogram) {
        for (i, &n) in other.counts.iter().enumerate() {
            if n > 0 {
                self.add_to(other.lo + i as u32, n);
            }
        }
        let threshold = self.threshold.max(other.threshold);
        self.kept.extend_from_slice(&other.kept);
        if threshold > self.threshold.min(other.threshold) {
            self.threshold = threshold;
            self.kept.retain(|&v| v >= threshold);
        }
    }

    /// Keeps only the longest `1/share` of the durations counted so far, exactly (e.g.
    /// 25: the longest 4%, four times what a p99 needs, so it stays exact unless four
    /// times as many calls follow, all shorter); returns how many are still held.
    pub fn prune(&mut self, share: u64) -> usize {
        let want = (self.total / share + 1) as usize;
        if self.kept.len() > want {
            let at = self.kept.len() - want;
            let mut threshold = *self.kept.select_nth_unstable(at).1;
            if self.kept[at..].iter().filter(|&&v| v == threshold).count() > want / 2 + 1 {
                // Many calls of the same length: hold only the longer ones.
                threshold += 1;
            }
            self.threshold = self.threshold.max(threshold);
            let threshold = self.threshold;
            self.kept.retain(|&v| v >= threshold);
            if self.kept.len() < self.kept.capacity() / 4 {
                self.kept.shrink_to_fit();
            }
        }
        self.kept.len()
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

    /// The `q`-quantile (0..=1) by nearest rank: the duration at rank `ceil(q * n)` of
    /// the `n` sorted, exact when it is among the durations held (every one at or above
    /// the threshold), else its bucket's upper bound (never below the true value, at
    /// most ~4.4% above it); 0 when empty.
    pub fn quantile(&self, q: f64) -> Quantile {
        if self.total == 0 {
            return Quantile {
                value: 0,
                exact: true,
            };
        }
        let rank = ((q * self.total as f64).ceil() as u64).clamp(1, self.total);
        // The bucket holding the rank, and how many durations lie above it.
        let mut seen = 0u64;
        let mut at = self.counts.len() - 1;
        for (i, &c) in self.counts.iter().enumerate() {
            if seen + c as u64 >= rank {
                at = i;
                break;
            }
            seen += c as u64;
        }
        let b = self.lo + at as u32;
        let above = self.total - seen - self.counts[at] as u64;
        // Counted from the longest, the rank is among the durations held (every one at
        // or above the threshold, so every one of its bucket at or above it too).
        let from_top = self.total - rank + 1;
        if from_top <= self.kept.len() as u64 {
            let mut here: Vec<u64> = self
                .kept
                .iter()
                .copied()
                .filter(|&v| bucket(v) == b)
                .collect();
            let nth = (from_top - above) as usize;
            if nth >= 1 && nth <= here.len() {
                let at = here.len() - nth;
                return Quantile {
                    value: *here.select_nth_unstable(at).1,
                    exact: true,
                };
            }
        }
        Quantile {
            value: upper(b),
            exact: false,
        }
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

    /// The nearest-rank quantile of `values`, as `percentile_disc` gives it.
    fn nearest_rank(values: &[u64], q: f64) -> u64 {
        let mut v = values.to_vec();
        v.sort_unstable();
        let rank = ((q * v.len() as f64).ceil() as usize).clamp(1, v.len());
        v[rank - 1]
    }

    #[test]
    fn quantiles_are_exact_while_their_bucket_is_held() {
        let mut h = Histogram::default();
        assert_eq!(
            h.quantile(0.99),
            Quantile {
                value: 0,
                exact: true
            }
        );
        let values: Vec<u64> = (1..=1000u64).map(|v| v * 1000 + v % 7).collect();
        for &v in &values {
            assert!(h.add(v));
        }
        for q in [0.0, 0.01, 0.5, 0.9, 0.99, 0.999, 1.0] {
            let got = h.quantile(q);
            assert_eq!(
                got,
                Quantile {
                    value: nearest_rank(&values, q),
                    exact: true
                },
                "{q}"
            );
        }
        h.add(1); // grows downwards
        assert_eq!(h.quantile(0.0).value, 1);
    }

    #[test]
    fn pruned_quantiles_stay_exact_above_the_floor_and_say_when_not() {
        // Long calls first (a method's warm-up), then many short ones.
        let mut h = Histogram::default();
        let mut values: Vec<u64> = (0..2000u64).map(|v| 1_000_000 + v * 37 % 5000).collect();
        values.extend((0..2000u64).map(|v| 1000 + v * 13 % 700));
        for &v in &values[..2000] {
            h.add(v);
        }
        let held = h.prune(25);
        assert!(held < 2000 / 5, "{held}");
        // Still exact: p99 of what was added lies among the longest 4%.
        assert_eq!(
            h.quantile(0.99),
            Quantile {
                value: nearest_rank(&values[..2000], 0.99),
                exact: true
            }
        );
        for &v in &values[2000..] {
            assert!(!h.add(v), "{v} is below the floor");
        }
        // Twice the calls, all shorter: p99 still lies among the longest 4% of before.
        assert_eq!(
            h.quantile(0.99),
            Quantile {
                value: nearest_rank(&values, 0.99),
                exact: true
            }
        );
        // The median is not held: the bucket's upper bound, said so.
        let truth = nearest_rank(&values, 0.5);
        let got = h.quantile(0.5);
        assert!(!got.exact);
        assert!(
            got.value >= truth && got.value - truth <= truth / 16 + 1,
            "{got:?} {truth}"
        );
    }

    #[test]
    fn merged_is_counted_at_once() {
        let (mut a, mut b, mut whole) = (
            Histogram::default(),
            Histogram::default(),
            Histogram::default(),
        );
        let mut all = Vec::new();
        for v in (0..5000u64).map(|v| v * v % 100_003) {
            let h: &mut Histogram = if v % 3 == 0 { &mut a } else { &mut b };
            h.add(v);
            whole.add(v);
            all.push(v);
        }
        b.prune(25);
        a.merge(&b);
        for q in [0.5, 0.99, 1.0] {
            let (m, truth) = (a.quantile(q), nearest_rank(&all, q));
            let bound = upper(bucket(truth));
            assert_eq!(m.value, if m.exact { truth } else { bound }, "{q}");
            assert_eq!(
                whole.quantile(q),
                Quantile {
                    value: truth,
                    exact: true
                }
            );
        }
        assert!(!a.quantile(0.5).exact);
        assert_eq!(
            a.quantile(0.99),
            Quantile {
                value: nearest_rank(&all, 0.99),
                exact: true
            }
        );
        assert_eq!(
            (a.lo, &a.counts, a.total),
            (whole.lo, &whole.counts, whole.total)
        );
        let before = a.quantile(0.99);
        a.merge(&Histogram::default());
        assert_eq!(a.quantile(0.99), before);
    }
}
