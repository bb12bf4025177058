//! `jtrace gate` outputs: text for the log, Markdown for a CI step summary or a
//! pull-request comment (under GitHub's 1 MiB), JUnit XML (one `testcase` per gated
//! test, a failure carrying what rose) for the test views of Jenkins, GitLab and GitHub.

use super::fmt;
use super::testcases::esc;
use crate::analysis::counts::Metric;
use crate::gate::baseline::Count;
use crate::gate::judge::{Judgement, Limits, Rise, Verdict};
use std::fmt::Write;

/// `calls 0%, alloc 5%, ...`.
pub fn limits(l: &Limits) -> String {
    Metric::ALL
        .iter()
        .map(|&m| match l.get(m) {
            Some(p) => format!("{} {p}%", m.name()),
            None => format!("{} not judged", m.name()),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

fn time(before: Option<Count>, now: Option<u64>) -> String {
    let b = before.map_or("-".to_string(), |c| {
        if c.varies() {
            format!("{}..{}", fmt::ns(c.min), fmt::ns(c.max))
        } else {
            fmt::ns(c.min)
        }
    });
    format!("{b} -> {}", now.map_or("-".to_string(), fmt::ns))
}

/// One rise as lines of text, each starting with `indent`.
fn rise_lines(r: &Rise, indent: &str) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{indent}{} {}: {} -> {} (+{}, limit {})",
        r.metric,
        r.item,
        r.before,
        r.now,
        r.now - r.before.max,
        r.limit
    );
    for (caller, b, n) in r.callers.iter().take(crate::gate::paths::PATHS) {
        let _ = writeln!(s, "{indent}  from {caller}: {b} -> {n} (+{})", n - b.max);
    }
    for (p, n) in &r.paths {
        let _ = writeln!(s, "{indent}  path ({n}): {p}");
    }
    s
}

fn verdict_text(v: &Verdict) -> String {
    let mut s = String::new();
    let when = if v.time_before.is_none() && v.time_now.is_none() {
        String::new()
    } else {
        format!("; time {}, not judged", time(v.time_before, v.time_now))
    };
    let _ = writeln!(
        s,
        "FAIL {}  ({} counts rose{when}; {})",
        v.label,
        v.rises.len(),
        v.trace
    );
    for r in &v.rises {
        s.push_str(&rise_lines(r, "  "));
    }
    s
}

/// The log's text.
pub fn text(j: &Judgement, baseline: &str, l: &Limits) -> String {
    let mut s = String::new();
    let failed = j.failed_tests();
    let _ = writeln!(
        s,
        "jtrace gate: {} of {} tests rose against {baseline} (max rise: {})",
        failed,
        j.tests.len(),
        limits(l)
    );
    for v in j.tests.iter().filter(|v| v.failed()) {
        s.push('\n');
        s.push_str(&verdict_text(v));
    }
    let lower: usize = j.tests.iter().map(|v| v.lower).sum();
    if lower > 0 {
        let _ = writeln!(
            s,
            "\n{lower} counts fell below the baseline (jtrace gate --update records them)"
        );
    }
    for t in &j.new_tests {
        let _ = writeln!(
            s,
            "new test (not in the baseline{}): {t}",
            if j.new_fail { ", fails the gate" } else { "" }
        );
    }
    for t in &j.missing_tests {
        let _ = writeln!(
            s,
            "missing test (in the baseline, not in this run{}): {t}",
            if j.missing_fail {
                ", fails the gate"
            } else {
                ""
            }
        );
    }
    let _ = writeln!(
        s,
        "{}",
        if j.failed() {
            "gate: FAILED"
        } else {
            "gate: passed"
        }
    );
    s
}

/// A Markdown table cell (a backtick too would end the code spans the cells use).
fn md(s: &str) -> String {
    super::testcases::md_cell(s).replace('`', "'")
}

/// The step summary, cut (and said so) to stay under `limit` bytes.
pub fn markdown(j: &Judgement, baseline: &str, l: &Limits, limit: usize) -> String {
    let mut s = String::new();
    let failed = j.failed_tests();
    let _ = writeln!(
        s,
        "## jtrace gate: {}\n\n{} of {} tests rose against `{}` (max rise: {}). Counts are \
         exact; times are shown, never judged.\n",
        if j.failed() { "failed" } else { "passed" },
        failed,
        j.tests.len(),
        md(baseline),
        limits(l)
    );
    let mut parts: Vec<String> = Vec::new();
    if failed > 0 {
        parts.push(
            "| test | rose | largest rise | time (not judged) |\n|---|---:|---|---|\n".into(),
        );
        for v in j.tests.iter().filter(|v| v.failed()) {
            let r = &v.rises[0];
            parts.push(format!(
                "| {} | {} | {} `{}` {} → {} | {} |\n",
                md(&v.label),
                v.rises.len(),
                r.metric,
                md(&r.item),
                r.before,
                r.now,
                md(&time(v.time_before, v.time_now))
            ));
        }
        parts.push("\n".into());
    }
    for v in j.tests.iter().filter(|v| v.failed()) {
        let mut block = format!("<details><summary>{}</summary>\n\n```\n", md(&v.label));
        for r in &v.rises {
            block.push_str(&rise_lines(r, ""));
        }
        block.push_str("```\n</details>\n\n");
        parts.push(block);
    }
    for (what, list) in [
        ("New tests", &j.new_tests),
        ("Missing tests", &j.missing_tests),
    ] {
        if !list.is_empty() {
            parts.push(format!("**{what}** ({}):\n\n", list.len()));
            parts.extend(list.iter().map(|t| format!("- {}\n", md(t))));
            parts.push("\n".into());
        }
    }
    let tail = "\n_Cut to stay under GitHub's step summary limit; the full list is in the log._\n";
    for p in parts {
        if s.len() + p.len() + tail.len() > limit {
            s.push_str(tail);
            break;
        }
        s.push_str(&p);
    }
    s
}

/// JUnit XML: one `testcase` per gated test (named by the test), a `failure` with what
/// rose; new and missing tests as test cases too, failing only when asked.
pub fn junit_xml(j: &Judgement) -> String {
    let mut cases = String::new();
    let mut failures = 0;
    for v in &j.tests {
        let class = if v.class.is_empty() {
            "jtrace.gate"
        } else {
            &v.class
        };
        let _ = write!(
            cases,
            "    <testcase classname=\"{}\" name=\"{}\" time=\"{:.6}\"",
            esc(class),
            esc(&v.label),
            v.time_now.unwrap_or(0) as f64 / 1e9
        );
        if v.failed() {
            failures += 1;
            let r = &v.rises[0];
            let msg = format!(
                "{} counts rose; {} {}: {} -> {}",
                v.rises.len(),
                r.metric,
                r.item,
                r.before,
                r.now
            );
            let body: String = v.rises.iter().map(|r| rise_lines(r, "")).collect();
            let _ = write!(
                cases,
                ">\n      <failure type=\"jtrace.gate\" message=\"{}\">{}</failure>\n    </testcase>\n",
                esc(&msg),
                esc(&body)
            );
        } else {
            cases.push_str("/>\n");
        }
    }
    for (list, fail, what) in [
        (&j.new_tests, j.new_fail, "not in the baseline"),
        (
            &j.missing_tests,
            j.missing_fail,
            "in the baseline, not in this run",
        ),
    ] {
        for t in list {
            let _ = write!(
                cases,
                "    <testcase classname=\"jtrace.gate\" name=\"{}\">\n      ",
                esc(t)
            );
            if fail {
                failures += 1;
                let _ = write!(cases, "<failure type=\"jtrace.gate\" message=\"{what}\"/>");
            } else {
                let _ = write!(cases, "<skipped message=\"{what}\"/>");
            }
            cases.push_str("\n    </testcase>\n");
        }
    }
    let total = j.tests.len() + j.new_tests.len() + j.missing_tests.len();
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"jtrace gate\">\n  \
         <testsuite name=\"jtrace gate\" tests=\"{total}\" failures=\"{failures}\" errors=\"0\" skipped=\"{}\">\n{cases}  \
         </testsuite>\n</testsuites>\n",
        if j.new_fail { 0 } else { j.new_tests.len() }
            + if j.missing_fail { 0 } else { j.missing_tests.len() }
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gate::judge::Verdict;

    fn judgement(n: usize) -> Judgement {
        let v = |i: usize| Verdict {
            key: format!("k{i}"),
            label: format!("T.t{i}"),
            class: "T".into(),
            trace: "t.jtr".into(),
            rises: vec![Rise {
                metric: Metric::Calls,
                item: format!("example.Repo.find{i}(I)V"),
                before: Count::exact(10),
                now: 20,
                limit: 10,
                callers: vec![("example.Svc.load()V".into(), Count::exact(1), 11)],
                paths: vec![("T.t > Svc.load > Repo.find".into(), 20)],
            }],
            lower: 0,
            time_before: None,
            time_now: Some(1000),
        };
        Judgement {
            tests: (0..n).map(v).collect(),
            new_tests: vec!["T.fresh <a&b>".into()],
            ..Default::default()
        }
    }

    #[test]
    fn markdown_stays_under_the_limit_and_says_so() {
        let j = judgement(20_000);
        let m = markdown(&j, "b.json", &Limits::default(), 1 << 20);
        assert!(m.len() <= 1 << 20);
        assert!(m.contains("Cut to stay under"));
        let small = markdown(&judgement(2), "b.json", &Limits::default(), 1 << 20);
        assert!(small.contains("Repo.find1") && !small.contains("Cut to"));
    }

    #[test]
    fn junit_names_each_test_and_escapes() {
        let x = junit_xml(&judgement(2));
        assert!(x.contains("name=\"T.t0\""));
        assert!(x.contains("failures=\"2\""));
        assert!(x.contains("T.fresh &lt;a&amp;b&gt;"));
        assert!(x.contains("<skipped"));
    }
}
