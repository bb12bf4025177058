//! Decoders for the Probekit class strings a `classDef` carries as annotations with `lines=on`.
//!
//! Written from `shared/spec/METHODLINETABLES.md` apart from the agent's encoder (the agent's
//! tests decode with it), so the two implementations check each other:
//! * `methodNames`: `name(sig)ret` per method in class-file order, joined with `+`;
//! * `methodLineTables`: per method, the source line of each executable unit. `#N` is an
//!   absolute line, a bare digit `d` is `previous + d` (`+` only marks increment mode), `,`
//!   separates methods; the "previous line" state carries over method boundaries.

use std::fmt;

/// Splits a `methodNames` string into its `name(sig)ret` entries (empty string: no methods).
pub fn method_names(s: &str) -> Vec<&str> {
    if s.is_empty() {
        Vec::new()
    } else {
        s.split('+').collect()
    }
}

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

impl std::error::Error for LineTableError {}

/// Decode a `methodLineTables` string (also the agent encoder's test oracle). A method encoded from an empty table comes back
/// as `[0]` (the format cannot tell the two apart). `""` decodes to no methods, which
/// is what the agent's encoder gives for a class without methods.
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

/// The `methodNames` entry of a `methodDef` (TPTP writes `-init-`/`-clinit-`, the class
/// file and Probekit `<init>`/`<clinit>`).
pub fn class_file_key(name: &str, signature: &str) -> String {
    let name = match name {
        "-init-" => "<init>",
        "-clinit-" => "<clinit>",
        n => n,
    };
    format!("{name}{signature}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn documented_examples() {
        assert_eq!(
            decode("#51+1201#75+11,41").unwrap(),
            vec![vec![51, 52, 54, 54, 55, 75, 76, 77], vec![81, 82]]
        );
        assert_eq!(
            decode("#10+02,#0,+5#30+1,#0,+3").unwrap(),
            vec![vec![10, 10, 12], vec![0], vec![5, 30, 31], vec![0], vec![3]]
        );
        assert_eq!(decode("+5").unwrap(), vec![vec![5]]);
        assert_eq!(decode("+0").unwrap(), vec![vec![0]]);
        assert_eq!(
            decode("#437,#457+123").unwrap(),
            vec![vec![437], vec![457, 458, 460, 463]]
        );
        assert_eq!(decode("#437,+2").unwrap(), vec![vec![437], vec![439]]);
        assert_eq!(decode("").unwrap(), Vec::<Vec<u32>>::new());
    }

    #[test]
    fn malformed() {
        assert!(decode("#").is_err());
        assert!(decode("#5,,+1").is_err());
        assert!(decode("#5x").is_err());
        assert!(decode("#5,").is_err());
        assert!(decode("#99999999999").is_err());
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
    fn names() {
        assert_eq!(
            method_names("<init>()V+main([Ljava/lang/String;)V"),
            vec!["<init>()V", "main([Ljava/lang/String;)V"]
        );
        assert!(method_names("").is_empty());
        assert_eq!(class_file_key("-init-", "()V"), "<init>()V");
        assert_eq!(class_file_key("f", "(I)I"), "f(I)I");
    }
}
