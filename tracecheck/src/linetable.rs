//! Decoders for the Probekit class strings a `classDef` carries as annotations with `lines=on`.
//!
//! Written from `shared/spec/METHODLINETABLES.md` independently of the agent's encoder, so
//! the two implementations check each other:
//! * `methodNames`: `name(sig)ret` per method in class-file order, joined with `+`;
//! * `methodLineTables`: per method, the source line of each executable unit. `#N` is an
//!   absolute line, a bare digit `d` is `previous + d` (`+` only marks increment mode), `,`
//!   separates methods; the "previous line" state carries over method boundaries.

/// Splits a `methodNames` string into its `name(sig)ret` entries (empty string: no methods).
pub fn method_names(s: &str) -> Vec<&str> {
    if s.is_empty() {
        Vec::new()
    } else {
        s.split('+').collect()
    }
}

/// Decodes a `methodLineTables` string into one line list per method (empty string: no
/// methods). Every method has at least one entry.
pub fn decode(s: &str) -> Result<Vec<Vec<u32>>, String> {
    if s.is_empty() {
        return Ok(Vec::new());
    }
    let b = s.as_bytes();
    let mut methods: Vec<Vec<u32>> = vec![Vec::new()];
    let mut prev: u32 = 0;
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b',' => methods.push(Vec::new()),
            b'+' => {}
            b'#' => {
                let start = i + 1;
                let mut end = start;
                while end < b.len() && b[end].is_ascii_digit() {
                    end += 1;
                }
                if end == start {
                    return Err(format!("'#' without a number at offset {i}"));
                }
                prev = s[start..end]
                    .parse()
                    .map_err(|_| format!("line number {:?} out of range", &s[start..end]))?;
                methods.last_mut().expect("a method").push(prev);
                i = end;
                continue;
            }
            d if d.is_ascii_digit() => {
                prev = prev
                    .checked_add(u32::from(d - b'0'))
                    .ok_or("line number overflow")?;
                methods.last_mut().expect("a method").push(prev);
            }
            other => {
                return Err(format!(
                    "unexpected character {:?} at offset {i}",
                    char::from(other)
                ))
            }
        }
        i += 1;
    }
    if let Some(n) = methods.iter().position(Vec::is_empty) {
        return Err(format!("method {n} has no executable unit"));
    }
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
