//! Attribute values: the attributes of one element as read, and their numbers and times parsed (a leaf: the reader, the model and the rules use it).

use std::borrow::Cow;

pub(crate) type Attrs<'a> = Vec<(&'static str, Cow<'a, str>)>;

pub(crate) fn get<'a>(attrs: &'a Attrs<'_>, key: &str) -> Option<&'a str> {
    attrs
        .iter()
        .find(|(k, _)| *k == key)
        .map(|(_, v)| v.as_ref())
}

/// `\d+\.\d{9}` as nanoseconds.
pub(crate) fn parse_time(s: &str) -> Option<u128> {
    let (secs, frac) = s.split_once('.')?;
    if frac.len() != 9 {
        return None;
    }
    let secs = match parse_u64(secs) {
        Some(v) => u128::from(v),
        // Beyond u64 seconds: still a time, as u128 holds it.
        None if secs.bytes().all(|b| b.is_ascii_digit()) && !secs.is_empty() => {
            secs.parse::<u128>().ok()?
        }
        None => return None,
    };
    // Past u128 (39 digits of seconds): no time at all, not a wrapped one.
    secs.checked_mul(1_000_000_000)?
        .checked_add(u128::from(parse_u64(frac)?))
}

/// Decimal digits (no sign, no space) as a number; `None` if empty, not digits or
/// beyond `u64`. One pass: on the reader's hot path.
pub(crate) fn parse_u64(s: &str) -> Option<u64> {
    if s.is_empty() {
        return None;
    }
    let mut v: u64 = 0;
    for b in s.bytes() {
        let d = b.wrapping_sub(b'0');
        if d > 9 {
            return None;
        }
        v = v.checked_mul(10)?.checked_add(u64::from(d))?;
    }
    Some(v)
}

pub(crate) fn parse_i64(s: &str) -> Option<i64> {
    match s.strip_prefix('-') {
        Some(rest) => parse_u64(rest)
            .and_then(|v| i64::try_from(v).ok())
            .map(|v| -v),
        None => parse_u64(s).and_then(|v| i64::try_from(v).ok()),
    }
}

pub(crate) fn fmt_time(t: u128) -> String {
    format!("{}.{:09}", t / 1_000_000_000, t % 1_000_000_000)
}

/// A `methodEntry` or `methodExit` with its attributes parsed: what the call rules read.
/// The XML reader parses one from the element's text (`State::call_of`, where an
/// attribute that is missing or not a number is reported); a producer of typed
/// elements (`jtrace check` on a `.jtr`) fills one in directly. `None`: absent or
/// malformed (already reported).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Call {
    pub thread: Option<u64>,
    pub method: Option<u64>,
    pub class: Option<u64>,
    pub ticket: Option<u64>,
    /// `stackDepth` (entries only).
    pub depth: Option<u64>,
    /// Unix nanoseconds.
    pub time: Option<u128>,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Seconds past what u128 nanoseconds hold are no time (found by the `check` fuzz
    /// target: a multiplication that overflowed).
    #[test]
    fn a_time_past_u128_is_none() {
        let huge = format!("{}.000000000", "9".repeat(39));
        assert_eq!(parse_time(&huge), None);
        assert_eq!(
            parse_time("18446744073709551616.000000001"),
            Some(18_446_744_073_709_551_616u128 * 1_000_000_000 + 1)
        );
    }

    #[test]
    fn numbers_and_times() {
        assert_eq!(parse_u64("0"), Some(0));
        assert_eq!(parse_u64("18446744073709551615"), Some(u64::MAX));
        for bad in ["", "18446744073709551616", "-1", "+1", " 1", "1a", "1.0"] {
            assert_eq!(parse_u64(bad), None, "{bad}");
        }
        assert_eq!(parse_i64("-5"), Some(-5));
        assert_eq!(parse_time("12.000000034"), Some(12_000_000_034));
        assert_eq!(
            parse_time("18446744073709551616.000000000"),
            Some((u64::MAX as u128 + 1) * 1_000_000_000)
        );
        for bad in [
            "12",
            "12.00000003",
            "12.0000000345",
            ".000000001",
            "1.-00000001",
            "a.000000001",
        ] {
            assert_eq!(parse_time(bad), None, "{bad}");
        }
    }
}
