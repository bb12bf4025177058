//! The plain-text outputs: `report`, `tree` and `slow`, as aligned tables.

use super::fmt::{self, NsText};
use crate::analysis::report::ReportDoc;
use crate::analysis::slow::SlowCall;
use crate::analysis::tree::{is_marked, label_name, PathTree, SLOW_MARK};
use crate::model::Symbols;
use std::fmt::Write;

/// Columns two spaces apart; numbers (cells starting with a digit, `+` or `-`, and
/// empty ones) right-aligned, names left-aligned; the last column is never padded.
pub fn table(out: &mut String, header: &[&str], rows: &[Vec<String>]) {
    let numeric: Vec<bool> = (0..header.len())
        .map(|i| {
            rows.iter().all(|r| {
                r.get(i).is_none_or(|c| {
                    c.is_empty()
                        || c.starts_with(|ch: char| ch.is_ascii_digit() || ch == '+' || ch == '-')
                })
            })
        })
        .collect();
    let n = header.len();
    let mut w: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    for r in rows {
        for (i, c) in r.iter().enumerate().take(n) {
            w[i] = w[i].max(c.chars().count());
        }
    }
    let mut line = |cells: &mut dyn Iterator<Item = &str>| {
        let mut l = String::from(" ");
        for (i, c) in cells.enumerate() {
            l.push(' ');
            let pad = " ".repeat(w[i].saturating_sub(c.chars().count()));
            if i + 1 == n {
                l.push_str(c);
            } else if numeric[i] {
                l.push_str(&pad);
                l.push_str(c);
                l.push(' ');
            } else {
                l.push_str(c);
                l.push_str(&pad);
                l.push(' ');
            }
        }
        out.push_str(l.trim_end());
        out.push('\n');
    };
    line(&mut header.iter().copied());
    for r in rows {
        line(&mut r.iter().map(String::as_str));
    }
}

/// What a section shows when it is cut to `--top`.
fn heading(out: &mut String, title: &str, shown: usize, of: Option<usize>) {
    match of {
        Some(all) if all > shown => {
            let _ = writeln!(out, "\n{title} (top {shown} of {all})");
        }
        _ => {
            let _ = writeln!(out, "\n{title}");
        }
    }
}

/// `jtrace report`. `totals` are the row counts before `--top` cut them.
pub fn report(d: &ReportDoc, totals: &ReportDoc) -> String {
    let mut o = String::new();
    let t = &d.trace;
    let _ = writeln!(o, "jtrace report: {}", t.file);
    let _ = writeln!(
        o,
        "  {} from {}, {} threads, {} calls{}",
        fmt::ns(t.duration_ns),
        fmt::date(t.start_unix_ns),
        t.threads,
        t.calls,
        if t.complete {
            ""
        } else {
            ", CUT SHORT (read up to its end)"
        }
    );
    if !t.complete {
        // Where it stops: the reader's warning names the byte or block.
        if let Some(w) = t.warnings.iter().find(|w| w.contains("cut short")) {
            let _ = writeln!(o, "  {w}");
        }
    }
    if let Some((a, b)) = t.window {
        let _ = writeln!(
            o,
            "  window: {} .. {} after the start",
            fmt::ns(a),
            fmt::ns(b)
        );
    }
    if t.open_frames > 0 && t.window.is_some() {
        let _ = writeln!(
            o,
            "  {} calls still running at the window's end: counted up to it",
            t.open_frames
        );
    } else if t.open_frames > 0 {
        let _ = writeln!(
            o,
            "  {} frames still open at the end: counted up to their thread's (or the trace's) end",
            t.open_frames
        );
    }

    section(
        &mut o,
        "Methods by working time (self time minus waiting: monitors, sleeps, parks, blocking I/O)",
        (&d.methods, Some(totals.methods.len())),
        None,
        &[
            "calls", "total", "self", "wait", "mean", "p99", "max", "method",
        ],
        |m| {
            let mut name = m.method.clone();
            if m.open > 0 {
                let _ = write!(name, " ({} open)", m.open);
            }
            vec![
                m.calls.to_string(),
                fmt::ns(m.total_ns),
                fmt::ns(m.self_ns),
                if m.wait_ns > 0 {
                    fmt::ns(m.wait_ns)
                } else {
                    String::new()
                },
                fmt::ns(m.mean_ns),
                fmt::ns(m.p99_ns),
                fmt::ns(m.max_ns),
                name,
            ]
        },
    );
    section(
        &mut o,
        "Threads by time in traced code",
        (&d.threads, Some(totals.threads.len())),
        None,
        &["start", "lifetime", "calls", "traced", "thread"],
        |th| {
            vec![
                format!("+{}", fmt::ns(th.start_ns)),
                match th.end_ns {
                    Some(_) => fmt::ns(th.lifetime_ns),
                    None => format!("{} (no end)", fmt::ns(th.lifetime_ns)),
                },
                th.calls.to_string(),
                fmt::ns(th.traced_ns),
                th.name.clone(),
            ]
        },
    );
    section(
        &mut o,
        "Allocations by bytes",
        (&d.allocations, Some(totals.allocations.len())),
        Some("none (trace with alloc=exact or alloc=sampled:N to see them)"),
        &["count", "bytes", "class", "site"],
        |a| {
            vec![
                a.count.to_string(),
                fmt::bytes(a.bytes),
                a.readable.clone(),
                a.site.clone(),
            ]
        },
    );
    section(
        &mut o,
        "Monitors",
        (&d.monitors, Some(totals.monitors.len())),
        Some("no contention, no waits"),
        &[
            "contended",
            "blocked",
            "longest",
            "waits",
            "waited",
            "class",
            "where",
        ],
        |m| {
            vec![
                m.contended.to_string(),
                fmt::ns(m.blocked_ns),
                fmt::ns(m.max_blocked_ns),
                m.waits.to_string(),
                fmt::ns(m.waited_ns),
                m.readable.clone(),
                m.site.clone(),
            ]
        },
    );
    section(
        &mut o,
        "Exceptions",
        (&d.exceptions, Some(totals.exceptions.len())),
        Some("none"),
        &["thrown", "caught", "class", "thrown in", "caught in"],
        |e| {
            vec![
                e.thrown.to_string(),
                e.caught.to_string(),
                e.readable.clone(),
                e.thrown_in.clone(),
                if e.caught_in.is_empty() {
                    "(not caught in traced code)".to_string()
                } else {
                    e.caught_in.clone()
                },
            ]
        },
    );

    let g = &d.gc;
    let _ = writeln!(
        o,
        "\nGC: {} collections, {} total pause, {} longest",
        g.collections,
        fmt::ns(g.total_pause_ns),
        fmt::ns(g.max_pause_ns)
    );

    section(
        &mut o,
        "Slowest calls",
        (&d.slowest, None),
        None,
        &["duration", "start", "thread", "method"],
        |c| {
            vec![
                fmt::ns(c.duration_ns),
                format!("+{}", fmt::ns(c.start_ns)),
                c.thread.clone(),
                c.method.clone(),
            ]
        },
    );
    o
}

/// One section of the report: its heading (rows shown, of how many), then the rows as a
/// table, or `empty` (indented) when there are none and the section says so.
fn section<T>(
    o: &mut String,
    title: &str,
    (items, of): (&[T], Option<usize>),
    empty: Option<&str>,
    headers: &[&str],
    row: impl Fn(&T) -> Vec<String>,
) {
    heading(o, title, items.len(), of);
    match empty {
        Some(note) if items.is_empty() => {
            let _ = writeln!(o, "  {note}");
        }
        _ => table(o, headers, &items.iter().map(row).collect::<Vec<_>>()),
    }
}

/// Rows of a path tree (calls, total, self and the indented frame name; `skip_root`
/// leaves out the root node, the call tree's "all"), written as they are made, in two
/// passes over the rows (the columns' widths, then the lines): a large tree's text is
/// never held whole. The layout is [`table`]'s.
pub fn tree_to(
    out: &mut dyn std::io::Write,
    s: &Symbols,
    t: &PathTree,
    min_total: u64,
    max_depth: Option<usize>,
    skip_root: bool,
) -> std::io::Result<()> {
    tree_lines(out, s, t, min_total, max_depth, skip_root, "")
}

/// [`tree_to`] with `prefix` before every line.
fn tree_lines(
    out: &mut dyn std::io::Write,
    s: &Symbols,
    t: &PathTree,
    min_total: u64,
    max_depth: Option<usize>,
    skip_root: bool,
    prefix: &str,
) -> std::io::Result<()> {
    let rows: Vec<_> = t
        .rows(min_total, max_depth)
        .into_iter()
        .filter(|r| !(skip_root && r.depth == 0))
        .collect();
    let is_call = |n: &crate::analysis::tree::Node| n.calls > 0 || !skip_root;
    // The columns' widths, from the numbers' lengths.
    let header = ["calls", "total", "self", "frame"];
    let mut w: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    for r in &rows {
        let n = &t.nodes[r.node as usize];
        if is_call(n) {
            w[0] = w[0].max(fmt::u64_len(n.calls));
            w[2] = w[2].max(fmt::ns_len(n.self_ns));
        }
        w[1] = w[1].max(fmt::ns_len(t.subtotal(r.node)));
    }
    // Each line is made in place in the output buffer: `table`'s layout (two spaces
    // before each column, numbers right-aligned, the frame not padded, trailing blanks
    // cut), a number column from its digits without a string of its own.
    let mut buf: Vec<u8> = Vec::with_capacity(1 << 16);
    let end_line = |buf: &mut Vec<u8>, start: usize| {
        // Blanks at the end only where a frame's name is empty or ends in one.
        if buf.last().is_none_or(|b| !b.is_ascii_graphic()) {
            let line = std::str::from_utf8(&buf[start..]).unwrap_or_default();
            let kept = line.trim_end().len();
            buf.truncate(start + kept);
        }
        buf.push(b'\n');
    };
    let start = buf.len();
    buf.extend_from_slice(prefix.as_bytes());
    buf.push(b' ');
    for (i, h) in header.iter().enumerate().take(3) {
        pad_cell(&mut buf, w[i], h.as_bytes());
    }
    buf.extend_from_slice(b" frame");
    end_line(&mut buf, start);
    let mut digits = itoa::Buffer::new();
    for r in &rows {
        let n = &t.nodes[r.node as usize];
        let call = is_call(n);
        let start = buf.len();
        buf.extend_from_slice(prefix.as_bytes());
        buf.push(b' ');
        let calls = if call { digits.format(n.calls) } else { "" };
        pad_cell(&mut buf, w[0], calls.as_bytes());
        pad_cell(
            &mut buf,
            w[1],
            NsText::new(t.subtotal(r.node)).as_str().as_bytes(),
        );
        let own = call.then(|| NsText::new(n.self_ns));
        pad_cell(
            &mut buf,
            w[2],
            own.as_ref().map_or("", NsText::as_str).as_bytes(),
        );
        buf.push(b' ');
        let indent = 2 * r.depth.saturating_sub(skip_root as usize);
        buf.resize(buf.len() + indent, b' ');
        buf.extend_from_slice(label_name(s, n.label).as_bytes());
        if is_marked(n.label) {
            buf.extend_from_slice(SLOW_MARK.as_bytes());
        }
        end_line(&mut buf, start);
        if buf.len() >= 1 << 16 {
            out.write_all(&buf)?;
            buf.clear();
        }
    }
    out.write_all(&buf)
}

/// About the bytes of a row of [`tree_lines`] at `depth` (its three number columns, the
/// indent and the frame's name), for [`PathTree::fit_rows`].
pub fn row_bytes<'a>(s: &'a Symbols, t: &'a PathTree) -> impl Fn(usize, u32) -> u64 + 'a {
    move |depth, n| 40 + 2 * depth as u64 + label_name(s, t.nodes[n as usize].label).len() as u64
}

/// Two spaces, `cell` right-aligned in `width`, one space (a number column).
fn pad_cell(buf: &mut Vec<u8>, width: usize, cell: &[u8]) {
    buf.push(b' ');
    // Cells are ASCII: a byte is a column.
    buf.resize(buf.len() + width.saturating_sub(cell.len()), b' ');
    buf.extend_from_slice(cell);
    buf.push(b' ');
}

/// `jtrace slow`: each slow call, then its subtree merged by path, written as it is
/// made (a slow `main`'s subtree is the whole call tree).
pub fn slow_to(
    o: &mut dyn std::io::Write,
    s: &Symbols,
    calls: &[SlowCall],
    over: u64,
    shown_of: usize,
    depth: Option<usize>,
) -> std::io::Result<()> {
    writeln!(
        o,
        "{} calls took {} or more{}",
        shown_of,
        fmt::ns(over),
        if calls.len() < shown_of {
            format!(" (the {} slowest shown)", calls.len())
        } else {
            String::new()
        }
    )?;
    for c in calls {
        let root = &c.tree.nodes[0];
        writeln!(
            o,
            "\n{} {} thread {} at +{}{}",
            fmt::ns(c.duration),
            label_name(s, root.label),
            s.threads
                .get(c.thread as usize)
                .map_or("?", |t| t.name.as_str()),
            fmt::ns(c.start.saturating_sub(s.start)),
            if c.open {
                " (still open at the end)"
            } else {
                ""
            }
        )?;
        tree_lines(o, s, &c.tree, 0, depth, false, "  ")?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use crate::analysis::tree::tests::tree_of;

    /// `fit_rows` finds the least `min` that keeps the rows under the budget, and its
    /// estimate is what the rows are: a budget of every row gives 0.
    #[test]
    fn rows_fit_their_budget() {
        let (t, s) = tree_of(200, usize::MAX);
        let per_row = super::row_bytes(&s, &t);
        let all = t.rows_bytes(0, None, &per_row);
        assert_eq!(t.fit_rows(all, None, &per_row), 0);
        let min = t.fit_rows(all / 4, None, &per_row);
        assert!(min > 0);
        assert!(t.rows_bytes(min, None, &per_row) <= all / 4);
        assert!(
            t.rows_bytes(min / 2, None, &per_row) > all / 4
                || min == (t.nodes[1].total >> 20).max(1)
        );
        // Rows by depth add up to every row.
        assert_eq!(t.bytes_by_depth(&per_row).iter().sum::<u64>(), all);
        // The estimate is close to the text written (within a quarter).
        let mut text = Vec::new();
        super::tree_to(&mut text, &s, &t, 0, None, true).unwrap();
        let written = text.len() as u64;
        assert!(
            all * 4 >= written * 3 && all * 3 <= written * 4,
            "{all} vs {written}"
        );
    }
}
