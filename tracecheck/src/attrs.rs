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
    let digits = |p: &str| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit());
    if !digits(secs) || frac.len() != 9 || !digits(frac) {
        return None;
    }
    Some(secs.parse::<u128>().ok()? * 1_000_000_000 + frac.parse::<u128>().ok()?)
}

pub(crate) fn parse_u64(s: &str) -> Option<u64> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
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
