//! `jtrace diff`: two traces' per-method figures side by side, sorted by the largest
//! change in self time. Call counts are exact, so a changed count is a fact.

use super::fmt;
use super::text::table;
use crate::analysis::report::Report;
use crate::model::Symbols;
use serde::Serialize;
use std::collections::BTreeMap;

#[derive(Serialize, Clone, Debug, Default, PartialEq, Eq)]
pub struct Side {
    pub calls: u64,
    pub self_ns: u64,
    pub total_ns: u64,
}

#[derive(Serialize, Clone, Debug, PartialEq, Eq)]
pub struct Delta {
    pub calls: i128,
    pub self_ns: i128,
    pub total_ns: i128,
}

#[derive(Serialize, Clone, Debug)]
pub struct DiffRow {
    /// The name for people (`--names`); `class`, `name` and `signature` keep the trace's.
    pub method: String,
    pub class: String,
    pub name: String,
    pub signature: String,
    /// Absent from a trace: zeros.
    pub before: Side,
    pub after: Side,
    pub delta: Delta,
}

#[derive(Serialize, Clone, Debug)]
pub struct DiffDoc {
    pub before: String,
    pub after: String,
    pub methods: Vec<DiffRow>,
}

type Named = (String, String, String);

/// Per method (class, name, signature): its figures and its readable name.
fn sides(s: &Symbols, r: &Report, ok: &dyn Fn(&str) -> bool) -> BTreeMap<Named, (String, Side)> {
    let mut out = BTreeMap::new();
    for (m, a) in r.methods() {
        let info = s.method(m);
        if !info.named(ok) {
            continue;
        }
        let (_, e) = out
            .entry((
                info.class.clone(),
                info.name.clone(),
                info.signature.clone(),
            ))
            .or_insert_with(|| (info.readable.clone(), Side::default()));
        e.calls += a.calls;
        e.self_ns += a.self_ns;
        e.total_ns += a.total;
    }
    out
}

pub fn doc(
    before: (&str, &Symbols, &Report),
    after: (&str, &Symbols, &Report),
    method_ok: &dyn Fn(&str) -> bool,
) -> DiffDoc {
    let b = sides(before.1, before.2, method_ok);
    let mut a = sides(after.1, after.2, method_ok);
    let mut rows = Vec::new();
    for (k, (name, bs)) in b {
        let as_ = a.remove(&k).map(|(_, s)| s).unwrap_or_default();
        rows.push((k, name, bs, as_));
    }
    for (k, (name, as_)) in a {
        rows.push((k, name, Side::default(), as_));
    }
    let mut methods: Vec<DiffRow> = rows
        .into_iter()
        .map(|((class, name, signature), method, b, a)| DiffRow {
            method,
            class,
            name,
            signature,
            delta: Delta {
                calls: a.calls as i128 - b.calls as i128,
                self_ns: a.self_ns as i128 - b.self_ns as i128,
                total_ns: a.total_ns as i128 - b.total_ns as i128,
            },
            before: b,
            after: a,
        })
        .collect();
    methods.sort_by(|x, y| {
        (y.delta.self_ns.abs(), y.delta.calls.abs())
            .cmp(&(x.delta.self_ns.abs(), x.delta.calls.abs()))
            .then_with(|| (&x.class, &x.name, &x.signature).cmp(&(&y.class, &y.name, &y.signature)))
    });
    DiffDoc {
        before: before.0.to_string(),
        after: after.0.to_string(),
        methods,
    }
}

pub fn text(d: &DiffDoc, all: usize) -> String {
    let mut o = format!("jtrace diff: {} -> {}\n", d.before, d.after);
    if d.methods.len() < all {
        o.push_str(&format!(
            "  methods by change in self time (top {} of {all})\n",
            d.methods.len()
        ));
    }
    o.push('\n');
    let rows: Vec<Vec<String>> = d
        .methods
        .iter()
        .map(|m| {
            vec![
                m.before.calls.to_string(),
                m.after.calls.to_string(),
                fmt::signed(m.delta.calls, |v| v.to_string()),
                fmt::ns(m.before.self_ns),
                fmt::ns(m.after.self_ns),
                fmt::signed(m.delta.self_ns, fmt::ns),
                fmt::signed(m.delta.total_ns, fmt::ns),
                m.method.clone(),
            ]
        })
        .collect();
    table(
        &mut o,
        &[
            "calls",
            "->calls",
            "change",
            "self",
            "->self",
            "change",
            "total change",
            "method",
        ],
        &rows,
    );
    o
}
