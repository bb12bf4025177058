//! What the user asked to see: thread and method name patterns, a time window, and the
//! duration syntax (`10ms`, `1.5s`) shared by every option that takes a time.

/// A name pattern: `*` and `?` wildcards match the whole name; without wildcards the
/// pattern matches any name containing it.
#[derive(Debug, Clone)]
pub struct Pattern(String);

impl Pattern {
    pub fn new(p: &str) -> Pattern {
        Pattern(p.to_string())
    }

    /// The pattern as given.
    pub fn text(&self) -> &str {
        &self.0
    }

    pub fn matches(&self, name: &str) -> bool {
        if self.0.contains(['*', '?']) {
            glob(self.0.as_bytes(), name.as_bytes())
        } else {
            name.contains(&self.0)
        }
    }
}

/// Iterative wildcard matching (no recursion, linear in practice).
fn glob(p: &[u8], s: &[u8]) -> bool {
    let (mut pi, mut si) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while si < s.len() {
        if pi < p.len() && (p[pi] == b'?' || p[pi] == s[si]) {
            pi += 1;
            si += 1;
        } else if pi < p.len() && p[pi] == b'*' {
            star = Some((pi, si));
            pi += 1;
        } else if let Some((sp, ss)) = star {
            pi = sp + 1;
            si = ss + 1;
            star = Some((sp, ss + 1));
        } else {
            return false;
        }
    }
    p[pi..].iter().all(|&c| c == b'*')
}

/// A duration such as `250ns`, `20us`, `10ms`, `1.5s`, `2m` in nanoseconds. A bare number
/// is seconds when `bare_seconds`, else an error (is `--over 10` ten seconds or ten ms?).
pub fn parse_duration(s: &str, bare_seconds: bool) -> Result<u64, String> {
    let s = s.trim();
    let split = s
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(s.len());
    let (num, unit) = s.split_at(split);
    let scale: f64 = match unit.trim() {
        "ns" => 1.0,
        "us" | "µs" => 1e3,
        "ms" => 1e6,
        "s" => 1e9,
        "m" | "min" => 60e9,
        "" if bare_seconds => 1e9,
        "" => return Err(format!("{s:?}: give a unit (ns, us, ms, s, m), e.g. 10ms")),
        u => return Err(format!("{s:?}: unknown unit {u:?} (ns, us, ms, s, m)")),
    };
    let v: f64 = num
        .parse()
        .map_err(|_| format!("{s:?}: not a duration (e.g. 10ms, 1.5s)"))?;
    if !v.is_finite() || v < 0.0 || v * scale > u64::MAX as f64 {
        return Err(format!("{s:?}: out of range"));
    }
    Ok((v * scale).round() as u64)
}

/// The selection every analysis applies.
#[derive(Debug, Clone, Default)]
pub struct Filter {
    /// Only threads whose name matches.
    pub thread: Option<Pattern>,
    /// Only methods (`Class.method`) matching, where a subcommand selects methods.
    pub method: Option<Pattern>,
    /// Window start and end, relative to the trace's start (ns).
    pub from: Option<u64>,
    pub to: Option<u64>,
    /// Only what ran in tests matching (`--test`: method name, display name, unique id,
    /// `Class.method`), see `testcase`.
    pub test: Option<Pattern>,
    /// Only what ran in the window (`window=`) with this id (`--window`), see `windows`.
    pub window: Option<String>,
    /// How every view names methods and classes (`--names`, `--inner`).
    pub names: super::names::Names,
    /// Workers an answer may use (`--jobs`; 0 and 1: one pass on one core).
    pub jobs: usize,
}

impl Filter {
    pub fn thread_ok(&self, name: &str) -> bool {
        self.thread.as_ref().is_none_or(|p| p.matches(name))
    }

    pub fn method_ok(&self, name: &str) -> bool {
        self.method.as_ref().is_none_or(|p| p.matches(name))
    }

    pub fn windowed(&self) -> bool {
        self.from.is_some() || self.to.is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns() {
        assert!(Pattern::new("work").matches("worker-1"));
        assert!(Pattern::new("worker-*").matches("worker-1"));
        assert!(!Pattern::new("worker-*").matches("main"));
        assert!(Pattern::new("*.fib").matches("Demo.fib"));
        assert!(!Pattern::new("*.fib").matches("Demo.fibx"));
        assert!(Pattern::new("D?mo.*").matches("Demo.main"));
        assert!(Pattern::new("*").matches(""));
    }

    #[test]
    fn durations() {
        assert_eq!(parse_duration("10ms", false), Ok(10_000_000));
        assert_eq!(parse_duration("1.5s", false), Ok(1_500_000_000));
        assert_eq!(parse_duration("250ns", false), Ok(250));
        assert_eq!(parse_duration("20us", false), Ok(20_000));
        assert_eq!(parse_duration("2", true), Ok(2_000_000_000));
        assert!(parse_duration("2", false).is_err());
        assert!(parse_duration("2 parsecs", false).is_err());
        assert!(parse_duration("ms", false).is_err());
        assert!(parse_duration("1e400s", false).is_err());
    }
}
