//! `jtrace tests` outputs: a text table, a GitHub step summary (Markdown, under 1 MiB)
//! and JUnit XML (one `testcase` per test, with the trace's figures as properties).

use super::fmt;
use crate::analysis::testcases::TestStats;
use crate::model::testcase::TestCase;
use std::fmt::Write;

pub type Row = (TestCase, TestStats);

/// GitHub's limit for one step summary.
pub const SUMMARY_LIMIT: usize = 1 << 20;

fn short_method(key: &str) -> &str {
    key.split('(').next().unwrap_or(key)
}

pub fn text(rows: &[Row]) -> String {
    let mut s = String::new();
    let failed = rows.iter().filter(|(c, _)| c.outcome == "FAILED").count();
    let _ = writeln!(s, "{} tests, {failed} failed", rows.len());
    let _ = writeln!(
        s,
        "{:>10} {:>9} {:>6}  {:<10}  {:<40}  slowest call",
        "duration", "calls", "exc", "outcome", "test"
    );
    for (c, st) in rows {
        let slow = st.slowest.first().map_or(String::new(), |(ns, k)| {
            format!("{} {}", fmt::ns(*ns), short_method(k))
        });
        let _ = writeln!(
            s,
            "{:>10} {:>9} {:>6}  {:<10}  {:<40}  {slow}",
            c.duration().map_or("-".to_string(), fmt::ns),
            st.calls,
            st.exceptions,
            if c.outcome.is_empty() {
                "RUNNING"
            } else {
                &c.outcome
            },
            c.label()
        );
    }
    s
}

/// A changed test against the baseline: (label, calls before, calls after).
pub type Change = (String, u64, u64);

pub fn md_cell(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

/// The step summary: totals, slowest tests, tests whose calls changed against a
/// baseline, new exceptions; rows are dropped (and said so) to stay under `limit`.
pub fn markdown(
    rows: &[Row],
    changes: Option<&[Change]>,
    new_exceptions: &[(String, String)],
    top: usize,
    limit: usize,
) -> String {
    let mut s = String::new();
    let failed: Vec<&Row> = rows.iter().filter(|(c, _)| c.outcome == "FAILED").collect();
    let _ = writeln!(
        s,
        "## jtrace: {} tests, {} failed\n",
        rows.len(),
        failed.len()
    );
    let mut sections: Vec<(String, Vec<String>)> = Vec::new();
    let mut by_time: Vec<&Row> = rows.iter().collect();
    by_time.sort_by_key(|(c, _)| std::cmp::Reverse(c.duration().unwrap_or(0)));
    sections.push((
        "### Slowest tests\n\n| test | outcome | duration | calls | exceptions | slowest call |\n|---|---|---:|---:|---:|---|\n".to_string(),
        by_time
            .iter()
            .take(top)
            .map(|(c, st)| {
                let slow = st.slowest.first().map_or(String::new(), |(ns, k)| {
                    format!("{} `{}`", fmt::ns(*ns), md_cell(short_method(k)))
                });
                format!(
                    "| {} | {} | {} | {} | {} | {slow} |\n",
                    md_cell(&c.label()),
                    c.outcome,
                    c.duration().map_or("-".to_string(), fmt::ns),
                    st.calls,
                    st.exceptions
                )
            })
            .collect(),
    ));
    if let Some(ch) = changes {
        let head = format!("### Tests whose calls changed against the baseline ({})\n\n| test | calls before | calls after |\n|---|---:|---:|\n", ch.len());
        sections.push((
            head,
            ch.iter()
                .map(|(l, b, a)| format!("| {} | {b} | {a} |\n", md_cell(l)))
                .collect(),
        ));
    }
    if !new_exceptions.is_empty() {
        sections.push((
            "### New exceptions\n\n| test | exception |\n|---|---|\n".to_string(),
            new_exceptions
                .iter()
                .map(|(t, e)| format!("| {} | `{}` |\n", md_cell(t), md_cell(e)))
                .collect(),
        ));
    }
    let budget = limit.saturating_sub(s.len() + 200);
    let mut used = 0;
    for (head, lines) in sections {
        if used + head.len() > budget {
            break;
        }
        s.push_str(&head);
        used += head.len();
        let mut left = lines.len();
        for l in &lines {
            if used + l.len() > budget {
                break;
            }
            s.push_str(l);
            used += l.len();
            left -= 1;
        }
        if left > 0 {
            let _ = writeln!(
                s,
                "\n{left} more rows left out (GitHub's 1 MiB summary limit)"
            );
        }
        s.push('\n');
    }
    s
}

/// XML text or attribute value.
pub fn esc(s: &str) -> String {
    let mut out = Vec::new();
    trace::xml::escape_into(&mut out, s);
    String::from_utf8_lossy(&out).into_owned()
}

/// JUnit XML (the format CI test views read): one `testsuite` per test class, one
/// `testcase` per test, with jtrace's figures as `property` elements.
pub fn junit_xml(rows: &[Row]) -> String {
    let mut s =
        String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"jtrace\">\n");
    let mut classes: Vec<&str> = rows.iter().map(|(c, _)| c.class.as_str()).collect();
    classes.sort();
    classes.dedup();
    for class in classes {
        let mine: Vec<&Row> = rows.iter().filter(|(c, _)| c.class == class).collect();
        let failures = mine.iter().filter(|(c, _)| c.outcome == "FAILED").count();
        let skipped = mine
            .iter()
            .filter(|(c, _)| c.outcome == "SKIPPED" || c.outcome == "ABORTED")
            .count();
        let time: u64 = mine.iter().filter_map(|(c, _)| c.duration()).sum();
        let _ = writeln!(
            s,
            "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{failures}\" errors=\"0\" skipped=\"{skipped}\" time=\"{:.6}\">",
            esc(class),
            mine.len(),
            time as f64 / 1e9
        );
        for (c, st) in mine {
            let _ = writeln!(
                s,
                "    <testcase classname=\"{}\" name=\"{}\" time=\"{:.6}\">",
                esc(&c.class),
                esc(&c.name),
                c.duration().unwrap_or(0) as f64 / 1e9
            );
            s.push_str("      <properties>\n");
            let mut prop = |k: &str, v: &str| {
                let _ = writeln!(
                    s,
                    "        <property name=\"jtrace.{k}\" value=\"{}\"/>",
                    esc(v)
                );
            };
            prop("uniqueId", &c.id);
            prop("trace", &c.trace);
            prop("calls", &st.calls.to_string());
            prop("exceptions", &st.exceptions.to_string());
            for (i, (ns, k)) in st.slowest.iter().enumerate() {
                prop(
                    &format!("slowest.{}", i + 1),
                    &format!("{} {k}", fmt::ns(*ns)),
                );
            }
            s.push_str("      </properties>\n");
            match c.outcome.as_str() {
                "FAILED" => {
                    let _ = writeln!(s, "      <failure type=\"{}\"/>", esc(&c.exception));
                }
                "SKIPPED" | "ABORTED" => s.push_str("      <skipped/>\n"),
                _ => {}
            }
            s.push_str("    </testcase>\n");
        }
        s.push_str("  </testsuite>\n");
    }
    s.push_str("</testsuites>\n");
    s
}

/// A method whose calls or self time changed in a test: (key, calls before, after, self before, after).
type MethodChange = (String, u64, u64, u64, u64);

/// `jtrace diff --by-test`: the tests (matched by unique id) whose calls or self times
/// changed, each with its changed methods, largest change in calls first.
pub fn by_test(
    before: &[Row],
    after: &[Row],
    min_ratio: f64,
    min_self: u64,
    as_json: bool,
) -> Result<String, String> {
    let base: std::collections::HashMap<String, &Row> =
        before.iter().map(|r| (r.0.key(), r)).collect();
    let mut tests: Vec<(String, Vec<MethodChange>)> = Vec::new();
    let mut only_after = Vec::new();
    for (c, st) in after {
        let Some((_, b)) = base.get(&c.key()) else {
            only_after.push(c.label());
            continue;
        };
        let mut changed: Vec<MethodChange> = Vec::new();
        let names: std::collections::BTreeSet<&String> =
            st.methods.keys().chain(b.methods.keys()).collect();
        for m in names {
            let (cb, sb) = b.methods.get(m).copied().unwrap_or((0, 0));
            let (ca, sa) = st.methods.get(m).copied().unwrap_or((0, 0));
            let d = sa.abs_diff(sb);
            let self_changed = d >= min_self && d as f64 >= min_ratio * sb.max(1) as f64;
            if ca != cb || self_changed {
                changed.push((m.clone(), cb, ca, sb, sa));
            }
        }
        if !changed.is_empty() {
            changed.sort_by_key(|x| std::cmp::Reverse(x.1.abs_diff(x.2)));
            tests.push((c.label(), changed));
        }
    }
    if as_json {
        let v: Vec<serde_json::Value> = tests
            .iter()
            .map(|(t, ms)| {
                serde_json::json!({"test": t, "methods": ms.iter().map(|(m, cb, ca, sb, sa)| serde_json::json!({
                    "method": m, "calls_before": cb, "calls_after": ca, "self_ns_before": sb, "self_ns_after": sa})).collect::<Vec<_>>()})
            })
            .collect();
        let mut s = serde_json::to_string_pretty(
            &serde_json::json!({"changed": v, "new_tests": only_after}),
        )
        .map_err(|e| e.to_string())?;
        s.push('\n');
        return Ok(s);
    }
    let mut s = String::new();
    let _ = writeln!(s, "{} of {} tests changed", tests.len(), after.len());
    for (t, ms) in &tests {
        let _ = writeln!(s, "\n{t}");
        for (m, cb, ca, sb, sa) in ms {
            let _ = writeln!(
                s,
                "  {:>8} calls ({cb} -> {ca})  self {} -> {}  {m}",
                format!("{:+}", *ca as i128 - *cb as i128),
                fmt::ns(*sb),
                fmt::ns(*sa)
            );
        }
    }
    for t in &only_after {
        let _ = writeln!(s, "\nnew test: {t}");
    }
    Ok(s)
}
