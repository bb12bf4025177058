//! Windows (`window=`): the `window` tags that open and close each kept window, and the calls they claim.
//!
//! A window is opened by `<tag name="window">` whose value says `"event":"start"` and
//! closed by one that says `"event":"end"`, on the same thread with the same `id`; the
//! end's `calls` is the number of `methodEntry` elements of that thread between the two,
//! and its `outcome` is `returned`, `threw` or `open` (the trace closed or the thread
//! ended first). In a trace with the `window` option every `methodEntry` lies inside a
//! window of its thread.

use crate::model::{OpenWindow, State};
use crate::summary::WindowInfo;
use crate::violation::Rule;

/// The value of a tag: a flat JSON object of numbers and strings, as pairs.
pub(crate) fn json_pairs(v: &str) -> Option<Vec<(String, String)>> {
    let s = v.trim().strip_prefix('{')?.strip_suffix('}')?;
    let mut out = Vec::new();
    let mut it = s.chars().peekable();
    loop {
        while it.peek().is_some_and(|c| c.is_whitespace() || *c == ',') {
            it.next();
        }
        if it.peek().is_none() {
            return Some(out);
        }
        let key = string(&mut it)?;
        while it.peek().is_some_and(|c| c.is_whitespace()) {
            it.next();
        }
        if it.next()? != ':' {
            return None;
        }
        while it.peek().is_some_and(|c| c.is_whitespace()) {
            it.next();
        }
        let value = if it.peek() == Some(&'"') {
            string(&mut it)?
        } else {
            let mut n = String::new();
            while it.peek().is_some_and(|c| *c != ',' && !c.is_whitespace()) {
                n.push(it.next()?);
            }
            n
        };
        out.push((key, value));
    }
}

fn string(it: &mut std::iter::Peekable<std::str::Chars>) -> Option<String> {
    if it.next()? != '"' {
        return None;
    }
    let mut s = String::new();
    loop {
        match it.next()? {
            '"' => return Some(s),
            '\\' => match it.next()? {
                'n' => s.push('\n'),
                't' => s.push('\t'),
                'r' => s.push('\r'),
                'u' => {
                    let hex: String = (0..4).filter_map(|_| it.next()).collect();
                    s.push(
                        char::from_u32(u32::from_str_radix(&hex, 16).ok()?).unwrap_or('\u{FFFD}'),
                    );
                }
                c => s.push(c),
            },
            c => s.push(c),
        }
    }
}

impl State {
    /// A `tag` element: a window's start or end is checked and kept.
    pub(crate) fn tag(&mut self, line: u64, name: Option<&str>, value: Option<&str>) {
        if name != Some("window") {
            return;
        }
        let Some(pairs) = value.and_then(json_pairs) else {
            return self.err(
                line,
                Rule::Windows,
                "a window tag's value is not a JSON object".into(),
            );
        };
        let get = |k: &str| pairs.iter().find(|(n, _)| n == k).map(|(_, v)| v.as_str());
        let Some(tid) = get("threadIdRef").and_then(|t| t.parse::<u64>().ok()) else {
            return self.err(
                line,
                Rule::Windows,
                "a window tag without threadIdRef".into(),
            );
        };
        if !self.threads.contains_key(&tid) {
            return self.err(
                line,
                Rule::Windows,
                format!("a window tag names thread {tid}, which is not defined"),
            );
        }
        let id = get("id").unwrap_or("").to_string();
        let method = get("methodIdRef").and_then(|m| m.parse().ok()).unwrap_or(0);
        match get("event") {
            Some("start") => {
                if get("test").is_none() && !self.methods.contains_key(&method) {
                    self.err(
                        line,
                        Rule::Windows,
                        format!("window {id} names method {method}, which is not defined"),
                    );
                }
                if let Some(w) = self.windows.get(&tid) {
                    let msg = format!(
                        "window {id} opens on thread {tid} inside window {} (line {})",
                        w.id, w.line
                    );
                    self.err(line, Rule::Windows, msg);
                }
                self.windows.insert(
                    tid,
                    OpenWindow {
                        id,
                        method,
                        line,
                        entries: 0,
                    },
                );
            }
            Some("end") => {
                let Some(w) = self.windows.remove(&tid) else {
                    return self.err(
                        line,
                        Rule::Windows,
                        format!("window {id} ends on thread {tid}, where no window is open"),
                    );
                };
                if w.id != id || w.method != method {
                    self.err(
                        line,
                        Rule::Windows,
                        format!(
                            "window {id} ends, but window {} is open (line {})",
                            w.id, w.line
                        ),
                    );
                }
                let claimed = get("calls").and_then(|c| c.parse::<u64>().ok());
                if claimed != Some(w.entries) {
                    self.err(
                        line,
                        Rule::Windows,
                        format!(
                            "window {id} claims {} calls; the trace has {} entries in it",
                            get("calls").unwrap_or("none"),
                            w.entries
                        ),
                    );
                }
                let outcome = get("outcome").unwrap_or("");
                if !matches!(outcome, "returned" | "threw" | "open") {
                    self.err(
                        line,
                        Rule::Windows,
                        format!(
                            "window {id}: outcome \"{outcome}\" is not returned, threw or open"
                        ),
                    );
                }
                let thread = self
                    .threads
                    .get(&tid)
                    .map(|t| t.info.name.clone())
                    .unwrap_or_default();
                self.summary.windows.push(WindowInfo {
                    id,
                    thread,
                    calls: w.entries,
                    outcome: outcome.to_string(),
                    kept: get("kept").unwrap_or("").to_string(),
                    test: get("test").unwrap_or("").to_string(),
                });
            }
            other => self.err(
                line,
                Rule::Windows,
                format!("a window tag's event is {other:?}, not start or end"),
            ),
        }
    }

    /// A methodEntry on thread `tid`: counted in its open window; outside one, in a
    /// trace with windows, a violation.
    pub(crate) fn window_entry(&mut self, line: u64, tid: u64) {
        match self.windows.get_mut(&tid) {
            Some(w) => w.entries += 1,
            None if self.summary.options.contains_key("window") => self.err(
                line,
                Rule::Windows,
                format!("a methodEntry of thread {tid} outside any window (the trace has window=)"),
            ),
            None => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::json_pairs;

    #[test]
    fn flat_objects_parse() {
        let p = json_pairs(r#"{"threadIdRef":2,"time":"1.5","event":"end","a\"b":"x\\y\u0041"}"#)
            .unwrap();
        assert_eq!(p[0], ("threadIdRef".into(), "2".into()));
        assert_eq!(p[2], ("event".into(), "end".into()));
        assert_eq!(p[3], ("a\"b".into(), "x\\yA".into()));
        assert!(json_pairs("not json").is_none());
        assert_eq!(json_pairs("{}").unwrap(), vec![]);
    }
}
