//! Number formatting shared by the text outputs: durations, byte counts, dates.

/// A duration for people: `850ns`, `12.3us`, `4.56ms`, `1.234s`.
pub fn ns(v: u64) -> String {
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
