//! Number formatting shared by the text outputs: durations, byte counts, dates.

/// A duration for people: `850ns`, `12.3us`, `4.56ms`, `1.234s`.
pub fn ns(v: u64) -> String {
    let mut o = String::new();
    ns_into(&mut o, v);
    o
}

/// [`ns`] appended to `o` (the path views write one per row, millions of rows).
pub fn ns_into(o: &mut String, v: u64) {
    o.push_str(NsText::new(v).as_str());
}

/// [`ns`] made without an allocation, right-aligned in a buffer of spaces: a fixed
/// width of it is a column cell (`replay` writes two per line, tens of millions).
/// Integer arithmetic gives exactly what formatting the `f64` quotient gives, except
/// at a tie (`12.35us`: the quotient's binary value decides) and beyond 2^50 ns, where
/// the `f64` itself is formatted. The text is put together in a register, a character
/// or two at a time, and stored once: bytes stored one by one and read back as a
/// column cell stalled the read (a load spanning several stores is not forwarded;
/// half of the formatting's samples in `replay`).
pub struct NsText {
    buf: [u8; NS_TEXT],
    /// The text's length: it is the end of `buf`.
    width: usize,
}

/// `00` to `99`.
const PAIRS: &[u8; 200] = b"0001020304050607080910111213141516171819\
    2021222324252627282930313233343536373839\
    4041424344454647484950515253545556575859\
    6061626364656667686970717273747576777879\
    8081828384858687888990919293949596979899";

/// The size of [`NsText`]'s buffer: as long as the longest `ns` (`18446744073.710s`).
pub const NS_TEXT: usize = 16;

/// Text being put together from its end: its first character in the lowest byte.
#[derive(Clone, Copy)]
struct Text {
    bytes: u128,
    len: usize,
}

impl Text {
    #[inline(always)]
    fn of(suffix: &[u8]) -> Text {
        let mut t = Text { bytes: 0, len: 0 };
        for &b in suffix.iter().rev() {
            t.byte(b);
        }
        t
    }

    /// One character before the text.
    #[inline(always)]
    fn byte(&mut self, b: u8) {
        self.bytes = (self.bytes << 8) | b as u128;
        self.len += 1;
    }

    /// Two digits of `v` (under 100) before the text.
    #[inline(always)]
    fn pair(&mut self, v: u64) {
        let i = 2 * v as usize;
        let p = u16::from_le_bytes([PAIRS[i], PAIRS[i + 1]]);
        self.bytes = (self.bytes << 16) | p as u128;
        self.len += 2;
    }

    /// `v` in decimal before the text, two digits at a time.
    #[inline(always)]
    fn digits(&mut self, mut v: u64) {
        while v >= 100 {
            self.pair(v % 100);
            v /= 100;
        }
        if v >= 10 {
            self.pair(v);
        } else {
            self.byte(b'0' + v as u8);
        }
    }

    /// `v` in units of `UNIT` ns rounded, with the digits of `FRAC` (10, 100, 1000)
    /// after the point, and the suffix; none at a tie or beyond 2^50 ns (the `f64`
    /// decides). Constant divisors: multiplications.
    #[inline(always)]
    fn fixed<const UNIT: u64, const FRAC: u64>(v: u64, suffix: &[u8]) -> Option<Text> {
        if v % UNIT == UNIT / 2 || v >= 1 << 50 {
            return None;
        }
        // q has more than the fraction's digits (v is at least 10 units): its digits
        // with the point before the fraction's.
        let q = (v + UNIT / 2) / UNIT;
        let (int, frac) = (q / FRAC, q % FRAC);
        let mut t = Text::of(suffix);
        if FRAC == 1_000 {
            t.pair(frac % 100);
            t.byte(b'0' + (frac / 100) as u8);
        } else if FRAC == 100 {
            t.pair(frac);
        } else {
            t.byte(b'0' + frac as u8);
        }
        t.byte(b'.');
        t.digits(int);
        Some(t)
    }
}

impl NsText {
    #[inline]
    pub fn new(v: u64) -> NsText {
        let t = if v < 1_000 {
            let mut t = Text::of(b"ns");
            t.digits(v);
            Some(t)
        } else if v < 1_000_000 {
            Text::fixed::<100, 10>(v, b"us")
        } else if v < 1_000_000_000 {
            Text::fixed::<10_000, 100>(v, b"ms")
        } else {
            Text::fixed::<1_000_000, 1_000>(v, b"s")
        };
        let Some(t) = t else {
            return NsText::of_float(v);
        };
        // Right-aligned (at most 12 characters below 2^50 ns), spaces before it.
        let spaces = u128::from_le_bytes([b' '; NS_TEXT]) >> (8 * t.len);
        NsText {
            buf: ((t.bytes << (8 * (NS_TEXT - t.len))) | spaces).to_le_bytes(),
            width: t.len,
        }
    }

    /// A tie or a duration beyond 2^50 ns: the `f64` quotient formatted.
    #[cold]
    #[inline(never)]
    fn of_float(v: u64) -> NsText {
        use std::fmt::Write as _;
        let f = v as f64;
        let mut o = String::new();
        let _ = if v < 1_000_000 {
            write!(o, "{:.1}us", f / 1e3)
        } else if v < 1_000_000_000 {
            write!(o, "{:.2}ms", f / 1e6)
        } else {
            write!(o, "{:.3}s", f / 1e9)
        };
        let width = o.len().min(NS_TEXT);
        let mut buf = [b' '; NS_TEXT];
        buf[NS_TEXT - width..].copy_from_slice(&o.as_bytes()[o.len() - width..]);
        NsText { buf, width }
    }

    pub fn as_str(&self) -> &str {
        // ASCII digits, point and suffix.
        std::str::from_utf8(&self.buf[NS_TEXT - self.width..]).unwrap_or_default()
    }

    /// The text's length (its width in a column).
    pub fn width(&self) -> usize {
        self.width
    }

    /// The whole buffer: the text right-aligned after spaces.
    pub fn padded(&self) -> &[u8; NS_TEXT] {
        &self.buf
    }
}

/// The length of [`ns`]`(v)` (a column's width): [`NsText`]'s, made in registers.
pub fn ns_len(v: u64) -> usize {
    NsText::new(v).width()
}

/// The number of decimal digits of `v`.
pub fn u64_len(v: u64) -> usize {
    v.checked_ilog10().map_or(1, |d| d as usize + 1)
}

/// A byte count: `512 B`, `1.5 KiB`, `3.2 MiB`, `1.1 GiB`.
pub fn bytes(v: u64) -> String {
    let f = v as f64;
    if v < 1024 {
        format!("{v} B")
    } else if v < 1 << 20 {
        format!("{:.1} KiB", f / 1024.0)
    } else if v < 1 << 30 {
        format!("{:.1} MiB", f / (1u64 << 20) as f64)
    } else {
        format!("{:.2} GiB", f / (1u64 << 30) as f64)
    }
}

/// Unix nanoseconds as `YYYY-MM-DD HH:MM:SS.mmm UTC` (no time-zone database needed).
pub fn date(unix_ns: u64) -> String {
    let secs = unix_ns / 1_000_000_000;
    let ms = (unix_ns / 1_000_000) % 1000;
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    // Howard Hinnant's days-to-civil algorithm.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + (m <= 2) as i64;
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02}:{:02}.{ms:03} UTC",
        rem / 3600,
        rem / 60 % 60,
        rem % 60
    )
}

/// A signed change: `+3`, `-1.20ms`, `0`.
pub fn signed(v: i128, f: impl Fn(u64) -> String) -> String {
    match v {
        0 => "0".to_string(),
        v if v > 0 => format!("+{}", f(v as u64)),
        v => format!("-{}", f(v.unsigned_abs() as u64)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The integer path agrees with formatting the `f64` quotient, ties and carries
    /// (`999.96us` is `1000.0us`) included.
    #[test]
    fn ns_as_the_float_formats() {
        let float = |v: u64| {
            let f = v as f64;
            if v < 1_000 {
                format!("{v}ns")
            } else if v < 1_000_000 {
                format!("{:.1}us", f / 1e3)
            } else if v < 1_000_000_000 {
                format!("{:.2}ms", f / 1e6)
            } else {
                format!("{:.3}s", f / 1e9)
            }
        };
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut vs: Vec<u64> = (0..2_000_000).collect();
        for k in [1_000u64, 1_000_000, 1_000_000_000, 1 << 50] {
            vs.extend(k.saturating_sub(2_000)..k + 2_000);
        }
        for _ in 0..2_000_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            vs.push(x >> (x % 64));
            vs.push((x % 100_000) * 50 + 12_345_000);
        }
        for v in vs {
            assert_eq!(ns(v), float(v), "{v}");
            let t = NsText::new(v);
            let pad = std::str::from_utf8(t.padded()).unwrap();
            assert_eq!(pad, format!("{:>w$}", float(v), w = NS_TEXT), "{v}");
            assert_eq!(ns_len(v), ns(v).len(), "{v}");
            assert_eq!(u64_len(v), v.to_string().len(), "{v}");
        }
    }

    #[test]
    fn formats() {
        assert_eq!(ns(850), "850ns");
        assert_eq!(ns(12_345), "12.3us");
        assert_eq!(ns(4_560_000), "4.56ms");
        assert_eq!(ns(1_234_000_000), "1.234s");
        assert_eq!(bytes(512), "512 B");
        assert_eq!(bytes(1536), "1.5 KiB");
        assert_eq!(date(0), "1970-01-01 00:00:00.000 UTC");
        assert_eq!(
            date(1_716_203_600_270_000_000),
            "2024-05-20 11:13:20.270 UTC"
        );
        assert_eq!(signed(-1_200_000, ns), "-1.20ms");
        assert_eq!(signed(3, |v| v.to_string()), "+3");
    }
}
