//! Probekit `methodNames` / `methodLineTables` strings: the encoder (its decoder, the tests' oracle, is `tracecheck::linetable`).
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
    use tracecheck::linetable::decode;

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
