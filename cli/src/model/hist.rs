//! Durations' distribution: a log-bucketed histogram (16 buckets per power of two)
//! beside each method's longest [`HELD`] durations exactly, so a percentile is exact
//! (nearest rank, as DuckDB's and Spark's `percentile_disc` give it) whenever its rank
//! counted from the longest is at most [`HELD`] (a p99 of up to about 200,000 calls),
//! and otherwise the upper bound of its histogram bucket (within 1/16 of an octave,
//! about 4.4%, above the true value, and said so). Which it is depends only on the
//! durations, never on their order or on how a `--jobs` split shared them out: the
//! longest `HELD` of a whole are among the longest `HELD` of its parts.
//! Buckets are allocated only over the range a method's durations actually span.

/// Exact durations a histogram answers from: its longest (16 to 24 KiB a method).
pub const HELD: usize = 2048;

/// Buckets per power of two.
const SUB: u32 = 16;

/// Laid out by hand (`repr(C)`): what every duration reads (the threshold, the counts'
/// pointer and length) is its first 24 bytes, so that a holder can keep them in the
/// cache line of its own hottest figures; the held durations come after.
#[derive(Default, Clone, Debug)]
#[repr(C)]
pub struct Histogram {
    /// Durations shorter are counted in `counts` alone, those equal to it in `at` too,
    /// longer ones held in `kept` too. 0 until the first prune: every duration is
    /// then held or (a zero) counted in `at`.
    threshold: u64,
    /// `counts[0]` is the bucket that `counts[1]` counts, the rest one count a bucket
    /// from there (the lowest bucket in the same allocation as the counts: an added
    /// duration reads one line of them, not a second for the range). Empty before the
    /// first duration.
    counts: Box<[u32]>,
    /// Durations equal to `threshold` (counted, not held: calls of the same length are
    /// common).
    at: u64,
    /// Every duration added longer than `threshold` (all of them until a prune), as
    /// added; with the `at` durations equal to it, the longest `HELD` at least.
    kept: Vec<u64>,
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
    #[inline]
    pub fn add(&mut self, v: u64) {
        let b = bucket(v);
        // Nearly always: a bucket inside the range already counted (none when empty).
        let lo = self.counts.first().copied().unwrap_or(0);
        match self.counts.get_mut(b.wrapping_sub(lo) as usize + 1) {
            Some(c) => *c = c.saturating_add(1),
            None => self.add_to(b, 1),
        }
        if v > self.threshold {
            self.kept.push(v);
            if self.kept.len() > HELD + HELD / 2 {
                self.prune();
            }
        } else if v == self.threshold {
            self.at += 1;
        }
    }

    /// Adds the counts and kept durations of `other` (durations counted elsewhere).
    pub fn merge(&mut self, other: &Histogram) {
        if let Some((&lo, counts)) = other.counts.split_first() {
            for (i, &n) in counts.iter().enumerate() {
                if n > 0 {
                    self.add_to(lo + i as u32, n);
                }
            }
        }
        // A duration among the longest HELD of both is at least either threshold: the
        // side that set its threshold held HELD durations at least as long.
        let t = self.threshold.max(other.threshold);
        let mut at = 0;
        for side in [&*self, other] {
            at += side.kept.iter().filter(|&&v| v == t).count() as u64;
            if side.threshold == t {
                at += side.at;
            }
        }
        self.kept.retain(|&v| v > t);
        self.kept.extend(other.kept.iter().filter(|&&v| v > t));
        self.threshold = t;
        self.at = at;
        if self.kept.len() > HELD + HELD / 2 {
            self.prune();
        }
    }

    /// Keeps the longest `HELD` durations: those longer than the `HELD`-th longest,
    /// and how many equal it.
    #[cold]
    fn prune(&mut self) {
        let i = self.kept.len() - HELD;
        let t = *self.kept.select_nth_unstable(i).1;
        // Every held duration is longer than the old threshold, so is `t`.
        self.at = self.kept.iter().filter(|&&v| v == t).count() as u64;
        self.kept.retain(|&v| v > t);
        self.threshold = t;
    }

    /// Counts `n` durations in bucket `b`, the range grown to hold it.
    #[inline(never)]
    fn add_to(&mut self, b: u32, n: u32) {
        let mut counts = std::mem::take(&mut self.counts).into_vec();
        match counts.first().copied() {
            None => counts.push(b),
            Some(lo) if b < lo => {
                counts.splice(1..1, std::iter::repeat_n(0, (lo - b) as usize));
                counts[0] = b;
            }
            Some(_) => {}
        }
        let i = (b - counts[0]) as usize + 1;
        if i >= counts.len() {
            counts.resize(i + 1, 0);
        }
        counts[i] = counts[i].saturating_add(n);
        self.counts = counts.into_boxed_slice();
    }

    /// The longest duration added (0 when none).
    pub fn max(&self) -> u64 {
        // The longest is held, or it is the threshold (counted in `at`).
        let floor = if self.at > 0 { self.threshold } else { 0 };
        self.kept.iter().copied().max().unwrap_or(floor)
    }

    /// The `q`-quantile (0..=1) by nearest rank: the duration at rank `ceil(q * n)` of
    /// the `n` sorted, exact when it is among the longest `HELD`, else its bucket's upper
    /// bound (never below the true value, at most ~4.4% above it); 0 when empty.
    pub fn quantile(&self, q: f64) -> Quantile {
        let Some((&lo, counts)) = self.counts.split_first() else {
            return Quantile {
                value: 0,
                exact: true,
            };
        };
        let total: u64 = counts.iter().map(|&c| c as u64).sum();
        let rank = ((q * total as f64).ceil() as u64).clamp(1, total);
        // The bucket holding the rank, and how many durations lie above it.
        let mut seen = 0u64;
        let mut at = counts.len() - 1;
        for (i, &c) in counts.iter().enumerate() {
            if seen + c as u64 >= rank {
                at = i;
                break;
            }
            seen += c as u64;
        }
        let b = lo + at as u32;
        let above = total - seen - counts[at] as u64;
        // Counted from the longest, the rank is among the longest HELD (all held):
        // exact, whatever else happens to be held (which depends on the order the
        // durations came in).
        let from_top = total - rank + 1;
        if from_top <= HELD as u64 {
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
            } else if from_top <= self.kept.len() as u64 + self.at {
                return Quantile {
                    value: self.threshold,
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
            h.add(v);
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
        assert_eq!(h.max(), *values.iter().max().unwrap());
        h.add(1); // grows downwards
        assert_eq!(h.quantile(0.0).value, 1);
    }

    #[test]
    fn quantiles_beyond_the_held_durations_say_so() {
        // Long calls first (a method's warm-up), then many more short ones.
        let mut h = Histogram::default();
        let mut values: Vec<u64> = (0..10_000u64).map(|v| 1_000_000 + v * 37 % 5000).collect();
        values.extend((0..140_000u64).map(|v| 1000 + v * 13 % 700));
        for &v in &values {
            h.add(v);
        }
        assert!(h.kept.len() <= HELD + HELD / 2, "{}", h.kept.len());
        assert_eq!(h.max(), *values.iter().max().unwrap());
        // p99 of 150,000 lies 1,501 from the longest: held.
        assert_eq!(
            h.quantile(0.99),
            Quantile {
                value: nearest_rank(&values, 0.99),
                exact: true
            }
        );
        // The median is not: the bucket's upper bound, said so.
        let truth = nearest_rank(&values, 0.5);
        let got = h.quantile(0.5);
        assert!(!got.exact);
        assert_eq!(got.value, upper(bucket(truth)));
    }

    #[test]
    fn zero_durations_are_counted_exactly_before_any_prune() {
        let mut h = Histogram::default();
        assert_eq!(h.max(), 0);
        let values: Vec<u64> = (0..3000u64)
            .map(|v| if v % 3 == 0 { v } else { 0 })
            .collect();
        for &v in &values {
            h.add(v);
        }
        assert_eq!(h.max(), 2997);
        for q in [0.5, 0.6, 0.99, 1.0] {
            let want = Quantile {
                value: nearest_rank(&values, q),
                exact: true,
            };
            assert_eq!(h.quantile(q), want, "{q}");
        }
    }

    #[test]
    fn calls_of_the_same_length_are_counted_not_held() {
        let values: Vec<u64> = (0..150_000u64)
            .map(|v| if v % 1000 == 0 { 9000 + v } else { 500 })
            .collect();
        let (mut whole, mut a, mut b) = (
            Histogram::default(),
            Histogram::default(),
            Histogram::default(),
        );
        for (i, &v) in values.iter().enumerate() {
            whole.add(v);
            if i % 3 == 0 { &mut a } else { &mut b }.add(v);
        }
        assert!(whole.kept.len() < HELD, "{}", whole.kept.len());
        a.merge(&b);
        assert_eq!((a.max(), whole.max()), (158_000, 158_000));
        for q in [0.99, 0.998, 0.999, 1.0] {
            let want = Quantile {
                value: nearest_rank(&values, q),
                exact: true,
            };
            assert_eq!(whole.quantile(q), want, "{q}");
            assert_eq!(a.quantile(q), want, "{q}");
        }
    }

    #[test]
    fn merged_is_counted_at_once_whatever_the_split() {
        let all: Vec<u64> = (0..200_000u64).map(|v| v * v % 100_003).collect();
        let mut whole = Histogram::default();
        for &v in &all {
            whole.add(v);
        }
        for parts in [2u64, 3, 7] {
            let mut hs: Vec<Histogram> = (0..parts).map(|_| Histogram::default()).collect();
            for (i, &v) in all.iter().enumerate() {
                // Unevenly: a long run to the first part, then round robin.
                let p = if i < 80_000 { 0 } else { i as u64 % parts } as usize;
                hs[p].add(v);
            }
            let mut merged = hs.remove(0);
            for h in &hs {
                merged.merge(h);
            }
            assert_eq!(&merged.counts, &whole.counts);
            assert_eq!(merged.max(), *all.iter().max().unwrap());
            for q in [0.0, 0.5, 0.9, 0.99, 0.999, 1.0] {
                assert_eq!(
                    merged.quantile(q),
                    whole.quantile(q),
                    "{parts} parts, q {q}"
                );
            }
        }
        assert_eq!(
            whole.quantile(0.99),
            Quantile {
                value: nearest_rank(&all, 0.99),
                exact: true
            }
        );
        assert!(!whole.quantile(0.5).exact);
        let before = whole.quantile(0.99);
        whole.merge(&Histogram::default());
        assert_eq!(whole.quantile(0.99), before);
    }
}
