//! Probekit `methodNames` / `methodLineTables` strings: encoder and decoder.
//!
//! These are the class-scope strings the Probekit BCI engine pushes into instrumented
//! classes (see `shared/spec/METHODLINETABLES.md`). We produce byte-identical strings so
//! consumers written for Probekit's coverage runtime can read ours.
//!
//! `methodLineTables` format, per method in class-file order and per executable unit the
//! unit's source line (0 = unknown); methods separated by `,`. A line within 0..=9 above
//! the previous one is written as one digit, after a `+` that switches on "increment
//! mode"; any other line is written `#<decimal>` and switches increment mode off. The
//! previous line (starting at 0) and the mode are **never reset**, not even at `,`, so
//! `#75+11,41` continues incrementing into the next method. Byte-compatibility with the
//! original engine depends on keeping that quirk.

#[cfg(test)]
use std::fmt;

/// Encode per-method unit line tables. An empty method (no Code attribute or no
/// LineNumberTable) is written as a single unit with line 0, as the engine does: a
/// method without line info still runs as one executable unit.
pub fn encode(methods: &[Vec<u32>]) -> String {
    let mut out = String::new();
    let mut prev: u32 = 0;
    let mut increment_mode = false;
    for (i, lines) in methods.iter().enumerate() {
        if i > 0 {
            // State deliberately carries over the comma (see module docs).
            out.push(',');
        }
        let no_info = [0u32];
        let lines: &[u32] = if lines.is_empty() { &no_info } else { lines };
        for &n in lines {
            // `n - prev` only after checking `n >= prev`, so no overflow near u32::MAX.
            if n >= prev && n - prev <= 9 {
                if !increment_mode {
                    out.push('+');
                    increment_mode = true;
                }
                out.push(char::from(b'0' + (n - prev) as u8));
            } else {
                out.push('#');
                out.push_str(&n.to_string());
                increment_mode = false;
            }
            prev = n;
        }
    }
    out
}

#[cfg(test)]
/// Where and why a `methodLineTables` string could not be decoded. Offsets are byte
/// offsets into the input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LineTableError {
    /// A character outside `0-9 # + ,`.
    UnexpectedChar { offset: usize, ch: char },
    /// `#` not followed by a decimal number.
    MissingNumber { offset: usize },
    /// `+` not followed by an increment digit (the encoder never writes a bare `+`).
    MissingIncrement { offset: usize },
    /// A digit that is neither part of a `#` number nor in increment mode: the string
    /// was probably truncated or had a `#` lost, so we refuse to guess.
    DigitOutsideIncrement { offset: usize },
    /// A method with no units (leading, trailing or doubled `,`); the encoder always
    /// writes at least one unit per method.
    EmptyMethod { offset: usize },
    /// A line number that does not fit in `u32`.
    Overflow { offset: usize },
}

#[cfg(test)]
impl fmt::Display for LineTableError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LineTableError::UnexpectedChar { offset, ch } => {
                write!(f, "unexpected character {ch:?} at offset {offset}")
            }
            LineTableError::MissingNumber { offset } => {
                write!(f, "'#' without a line number at offset {offset}")
            }
            LineTableError::MissingIncrement { offset } => {
                write!(f, "'+' without an increment digit at offset {offset}")
            }
            LineTableError::DigitOutsideIncrement { offset } => {
                write!(f, "digit outside increment mode at offset {offset}")
            }
            LineTableError::EmptyMethod { offset } => {
                write!(f, "method with no executable units at offset {offset}")
            }
            LineTableError::Overflow { offset } => {
                write!(f, "line number overflows u32 at offset {offset}")
            }
        }
    }
}

#[cfg(test)]
impl std::error::Error for LineTableError {}

#[cfg(test)]
/// Decode a `methodLineTables` string (the encoder's test oracle). A method encoded from an empty table comes back
/// as `[0]` (the format cannot tell the two apart). `""` decodes to no methods, which
/// is what [`encode`] gives for a class without methods.
///
/// Accepted beyond the encoder's canonical output, because the meaning is unambiguous:
/// `#` for small numbers (`#5`), leading zeros (`#007`), a redundant `+` while already
/// in increment mode (`+1+2`). Everything else non-canonical is an error.
pub fn decode(s: &str) -> Result<Vec<Vec<u32>>, LineTableError> {
    let mut methods = Vec::new();
    if s.is_empty() {
        return Ok(methods);
    }
    let bytes = s.as_bytes();
    let mut current: Vec<u32> = Vec::new();
    let mut prev: u32 = 0;
    let mut increment_mode = false;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b',' => {
                if current.is_empty() {
                    return Err(LineTableError::EmptyMethod { offset: i });
                }
                methods.push(std::mem::take(&mut current));
                i += 1;
            }
            b'#' => {
                let start = i + 1;
                let end = start
                    + bytes[start..]
                        .iter()
                        .take_while(|b| b.is_ascii_digit())
                        .count();
                if end == start {
                    return Err(LineTableError::MissingNumber { offset: i });
                }
                // All-ASCII-digit slice: parse can only fail by overflow.
                let n = s[start..end]
                    .parse::<u32>()
                    .map_err(|_| LineTableError::Overflow { offset: start })?;
                current.push(n);
                prev = n;
                increment_mode = false;
                i = end;
            }
            b'+' => {
                if !bytes.get(i + 1).is_some_and(u8::is_ascii_digit) {
                    return Err(LineTableError::MissingIncrement { offset: i });
                }
                increment_mode = true;
                i += 1;
            }
            d @ b'0'..=b'9' => {
                if !increment_mode {
                    return Err(LineTableError::DigitOutsideIncrement { offset: i });
                }
                prev = prev
                    .checked_add(u32::from(d - b'0'))
                    .ok_or(LineTableError::Overflow { offset: i })?;
                current.push(prev);
                i += 1;
            }
            _ => {
                // Every byte before `i` was ASCII, so `i` is a char boundary.
                let ch = s[i..].chars().next().unwrap_or('\u{FFFD}');
                return Err(LineTableError::UnexpectedChar { offset: i, ch });
            }
        }
    }
    if current.is_empty() {
        return Err(LineTableError::EmptyMethod { offset: s.len() });
    }
    methods.push(current);
    Ok(methods)
}

/// `methodNames`: each method's name immediately followed by its JVM signature, in
/// class-file order, joined with `+` (e.g. `<init>()V+main([Ljava/lang/String;)V`).
/// `+` cannot occur in a name or signature, so the string splits back unambiguously.
pub fn method_names<'a>(methods: impl IntoIterator<Item = (&'a str, &'a str)>) -> String {
    let mut out = String::new();
    for (i, (name, sig)) in methods.into_iter().enumerate() {
        if i > 0 {
            out.push('+');
        }
        out.push_str(name);
        out.push_str(sig);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn both_ways(table: &[Vec<u32>], s: &str) {
        assert_eq!(encode(table), s);
        assert_eq!(decode(s).unwrap(), table);
    }

    #[test]
    fn documentation_example() {
        both_ways(
            &[vec![51, 52, 54, 54, 55, 75, 76, 77], vec![81, 82]],
            "#51+1201#75+11,41",
        );
    }

    #[test]
    fn small_first_line_starts_with_plus() {
        both_ways(&[vec![5]], "+5");
    }

    #[test]
    fn first_method_without_line_info_is_plus_zero() {
        assert_eq!(encode(&[vec![]]), "+0");
        both_ways(&[vec![0]], "+0");
    }

    #[test]
    fn partial_example_far_jump_after_comma() {
        // "...#437,#457+123...": next method starts 20 lines after the previous one.
        let t = vec![vec![12, 437], vec![457, 458, 460, 463], vec![470]];
        let s = encode(&t);
        assert_eq!(s, "#12#437,#457+123,7");
        assert!(s.contains("#437,#457+123"));
        assert_eq!(decode(&s).unwrap(), t);
    }

    #[test]
    fn partial_example_increment_after_absolute_across_comma() {
        // "...#437,+2...": '#' ends a method, the next starts 2 lines later, so a fresh
        // '+' is needed after the comma (increment mode was off).
        let t = vec![vec![1, 437], vec![439, 440], vec![0]];
        let s = encode(&t);
        assert_eq!(s, "+1#437,+21,#0");
        assert!(s.contains("#437,+2"));
        assert_eq!(decode(&s).unwrap(), t);
    }

    #[test]
    fn methods_without_code_or_lines() {
        let t = vec![vec![10, 10, 12], vec![], vec![5, 30, 31], vec![], vec![3]];
        let s = "#10+02,#0,+5#30+1,#0,+3";
        assert_eq!(encode(&t), s);
        assert_eq!(
            decode(s).unwrap(),
            vec![vec![10, 10, 12], vec![0], vec![5, 30, 31], vec![0], vec![3]]
        );
    }

    #[test]
    fn state_is_not_reset_at_comma() {
        // Increment mode carries over: bare digits right after the comma.
        both_ways(&[vec![3], vec![4], vec![4]], "+3,1,0");
        // Previous number carries over: 8 after 100 is a '#' even in a new method.
        both_ways(&[vec![100], vec![8]], "#100,#8");
    }

    #[test]
    fn boundaries() {
        both_ways(&[vec![9]], "+9");
        both_ways(&[vec![10]], "#10");
        both_ways(&[vec![20, 29, 39]], "#20+9#39");
        both_ways(&[vec![20, 19]], "#20#19");
        both_ways(&[vec![u32::MAX, u32::MAX]], "#4294967295+0");
        both_ways(&[vec![u32::MAX - 9, u32::MAX]], "#4294967286+9");
        both_ways(&[], "");
    }

    #[test]
    fn lenient_but_unambiguous_forms() {
        assert_eq!(decode("#5").unwrap(), vec![vec![5]]);
        assert_eq!(decode("#007").unwrap(), vec![vec![7]]);
        assert_eq!(decode("+1+2").unwrap(), vec![vec![1, 3]]);
    }

    #[test]
    fn garbage_is_an_error() {
        use LineTableError::*;
        let cases: &[(&str, LineTableError)] = &[
            ("5", DigitOutsideIncrement { offset: 0 }),
            ("#51,2", DigitOutsideIncrement { offset: 4 }),
            ("#", MissingNumber { offset: 0 }),
            ("#+1", MissingNumber { offset: 0 }),
            ("+", MissingIncrement { offset: 0 }),
            ("+1+", MissingIncrement { offset: 2 }),
            ("+,1", MissingIncrement { offset: 0 }),
            (",", EmptyMethod { offset: 0 }),
            ("+1,", EmptyMethod { offset: 3 }),
            ("+1,,+2", EmptyMethod { offset: 3 }),
            ("#4294967296", Overflow { offset: 1 }),
            ("#4294967295+1", Overflow { offset: 12 }),
            ("#1 2", UnexpectedChar { offset: 2, ch: ' ' }),
            (
                "+1é",
                UnexpectedChar {
                    offset: 2, ch: 'é'
                },
            ),
            ("-3", UnexpectedChar { offset: 0, ch: '-' }),
        ];
        for (s, want) in cases {
            let got = decode(s).expect_err(s);
            assert_eq!(&got, want, "{s:?}");
            assert!(!got.to_string().is_empty());
        }
    }

    #[test]
    fn method_names_joined_with_plus() {
        assert_eq!(
            method_names([("<init>", "()V"), ("main", "([Ljava/lang/String;)V")]),
            "<init>()V+main([Ljava/lang/String;)V"
        );
        assert_eq!(method_names([("run", "()V")]), "run()V");
        assert_eq!(method_names(std::iter::empty()), "");
        let owned = [("a".to_string(), "(I)I".to_string())];
        assert_eq!(
            method_names(owned.iter().map(|(n, s)| (n.as_str(), s.as_str()))),
            "a(I)I"
        );
    }

    /// Tables whose lines wander by small steps, so increment mode (and its carry over
    /// commas) is exercised far more than uniformly random lines would.
    fn walk_tables() -> impl Strategy<Value = Vec<Vec<u32>>> {
        prop::collection::vec(prop::collection::vec(-3i64..13, 1..30), 1..20).prop_map(|ms| {
            let mut line: i64 = 0;
            ms.into_iter()
                .map(|steps| {
                    steps
                        .into_iter()
                        .map(|d| {
                            line = (line + d).max(0);
                            line as u32
                        })
                        .collect()
                })
                .collect()
        })
    }

    proptest! {
        #[test]
        fn round_trip_random_lines(
            t in prop::collection::vec(prop::collection::vec(0u32..70_000, 1..30), 1..20)
        ) {
            prop_assert_eq!(decode(&encode(&t)).unwrap(), t);
        }

        #[test]
        fn round_trip_small_steps(t in walk_tables()) {
            prop_assert_eq!(decode(&encode(&t)).unwrap(), t);
        }

        #[test]
        fn decode_never_panics(s in ".*") {
            let _ = decode(&s);
        }

        #[test]
        fn decode_never_panics_on_format_alphabet(s in "[0-9#+,]{0,40}") {
            // Whatever decodes must re-encode to something decoding the same.
            if let Ok(t) = decode(&s) {
                prop_assert_eq!(decode(&encode(&t)).unwrap(), t);
            }
        }
    }
}
