//! Coverage files: lcov tracefiles (`.info`, one `TN` per test, exact counts) and JaCoCo
//! XML (`report.dtd`; one `sessioninfo` per test; LINE, METHOD and CLASS counters).

use crate::analysis::coverage::{Class, Model, Sheet};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;
use std::path::Path;

/// Classes grouped by source file.
fn by_source(m: &Model) -> BTreeMap<&str, Vec<&Class>> {
    let mut out: BTreeMap<&str, Vec<&Class>> = BTreeMap::new();
    for c in m.classes.values() {
        out.entry(c.source.as_str()).or_default().push(c);
    }
    out
}

/// An lcov test name: letters, digits and `_` only, unique.
fn test_name(label: &str, used: &mut BTreeSet<String>) -> String {
    let mut base: String = label
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    if base.is_empty() {
        base = "test".to_string();
    }
    let mut name = base.clone();
    let mut n = 2;
    while !used.insert(name.clone()) {
        name = format!("{base}_{n}");
        n += 1;
    }
    name
}

/// The lcov tracefile: per test, a record for each source file the test ran code of;
/// then `jtrace_outside_tests` with every file (its lines that never ran at 0), so
/// that the sum over test names is the whole run.
pub fn lcov(m: &Model, root: &Path) -> String {
    let files = by_source(m);
    let mut s = String::new();
    let mut used = BTreeSet::new();
    for (case, sheet) in &m.sheets {
        let (tn, all) = match case {
            Some(c) => (test_name(&c.label(), &mut used), false),
            None => (test_name("jtrace_outside_tests", &mut used), true),
        };
        for (source, classes) in &files {
            let touched = classes.iter().any(|c| {
                c.methods.iter().any(|me| {
                    sheet.methods.contains_key(&(
                        c.name.clone(),
                        me.name.clone(),
                        me.signature.clone(),
                    ))
                })
            });
            if !all && !touched {
                continue;
            }
            record(&mut s, &tn, &root.join(source), source, classes, sheet);
        }
    }
    s
}

fn record(s: &mut String, tn: &str, path: &Path, source: &str, classes: &[&Class], sheet: &Sheet) {
    let _ = writeln!(s, "TN:{tn}");
    let _ = writeln!(s, "SF:{}", path.display());
    let (mut fnf, mut fnh) = (0, 0);
    let mut fnda = String::new();
    let mut lines = BTreeSet::new();
    for c in classes {
        let simple = c.name.rsplit('.').next().unwrap_or(&c.name);
        for me in &c.methods {
            lines.extend(me.lines.iter().copied());
            if me.line == 0 {
                continue;
            }
            let name = format!("{simple}.{}{}", me.name, me.signature);
            let n = sheet
                .methods
                .get(&(c.name.clone(), me.name.clone(), me.signature.clone()))
                .copied()
                .unwrap_or(0);
            let _ = writeln!(s, "FN:{},{name}", me.line);
            let _ = writeln!(fnda, "FNDA:{n},{name}");
            fnf += 1;
            fnh += (n > 0) as u32;
        }
    }
    s.push_str(&fnda);
    let _ = writeln!(s, "FNF:{fnf}\nFNH:{fnh}");
    let mut lh = 0;
    for &l in &lines {
        let n = sheet
            .lines
            .get(&(source.to_string(), l))
            .copied()
            .unwrap_or(0);
        lh += (n > 0) as u32;
        let _ = writeln!(s, "DA:{l},{n}");
    }
    let _ = writeln!(s, "LF:{}\nLH:{lh}\nend_of_record", lines.len());
}

fn esc(v: &str) -> String {
    let mut out = Vec::new();
    trace::xml::escape_into(&mut out, v);
    String::from_utf8_lossy(&out).into_owned()
}

/// (missed, covered)
#[derive(Default, Clone, Copy)]
struct Counter(u64, u64);

impl Counter {
    fn add(&mut self, covered: bool) {
        if covered {
            self.1 += 1;
        } else {
            self.0 += 1;
        }
    }
    fn plus(&mut self, o: Counter) {
        self.0 += o.0;
        self.1 += o.1;
    }
    fn write(self, s: &mut String, indent: &str, kind: &str) {
        let _ = writeln!(
            s,
            "{indent}<counter type=\"{kind}\" missed=\"{}\" covered=\"{}\"/>",
            self.0, self.1
        );
    }
}

/// JaCoCo's XML report: a line is covered when it ran at least once (JaCoCo counts
/// instructions, which a trace does not: each line is one unit here, `ci="1"` covered,
/// `mi="1"` missed); the exact counts are in the lcov output.
pub fn jacoco(m: &Model) -> String {
    let mut s = String::from(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\
         <!DOCTYPE report PUBLIC \"-//JACOCO//DTD Report 1.1//EN\" \"report.dtd\">\n\
         <report name=\"jtrace\">\n",
    );
    let mut used = BTreeSet::new();
    for (case, _) in &m.sheets {
        let Some(c) = case else { continue };
        let id = test_name(&c.label(), &mut used);
        let start = c.start / 1_000_000;
        let dump = c.end.unwrap_or(c.start) / 1_000_000;
        let _ = writeln!(
            s,
            "  <sessioninfo id=\"{}\" start=\"{start}\" dump=\"{dump}\"/>",
            esc(&id)
        );
    }
    let total_line = |source: &str, l: u32| m.total_line(source, l);
    let total_method = |c: &Class, name: &str, sig: &str| -> u64 {
        let k = (c.name.clone(), name.to_string(), sig.to_string());
        m.sheets
            .iter()
            .map(|(_, sh)| sh.methods.get(&k).copied().unwrap_or(0))
            .sum()
    };
    let mut packages: BTreeMap<String, Vec<&Class>> = BTreeMap::new();
    for c in m.classes.values() {
        let pkg = c
            .name
            .rsplit_once('.')
            .map_or("", |(p, _)| p)
            .replace('.', "/");
        packages.entry(pkg).or_default().push(c);
    }
    let (mut rl, mut rm, mut rc) = (Counter::default(), Counter::default(), Counter::default());
    for (pkg, classes) in &packages {
        let _ = writeln!(s, "  <package name=\"{}\">", esc(pkg));
        let (mut pl, mut pm, mut pc) = (Counter::default(), Counter::default(), Counter::default());
        let mut sources: BTreeMap<String, BTreeSet<u32>> = BTreeMap::new();
        for c in classes {
            let file = c.source.rsplit('/').next().unwrap_or(&c.source).to_string();
            let _ = writeln!(
                s,
                "    <class name=\"{}\" sourcefilename=\"{}\">",
                esc(&c.name.replace('.', "/")),
                esc(&file)
            );
            let (mut cl, mut cm) = (Counter::default(), Counter::default());
            let mut class_lines = BTreeSet::new();
            for me in &c.methods {
                if me.line == 0 {
                    continue;
                }
                let mut ml = Counter::default();
                for &l in &me.lines {
                    ml.add(total_line(&c.source, l) > 0);
                    class_lines.insert(l);
                }
                let called = total_method(c, &me.name, &me.signature) > 0;
                let mut mm = Counter::default();
                mm.add(called);
                let _ = writeln!(
                    s,
                    "      <method name=\"{}\" desc=\"{}\" line=\"{}\">",
                    esc(&me.name),
                    esc(&me.signature),
                    me.line
                );
                ml.write(&mut s, "        ", "LINE");
                mm.write(&mut s, "        ", "METHOD");
                s.push_str("      </method>\n");
                cm.plus(mm);
            }
            for &l in &class_lines {
                cl.add(total_line(&c.source, l) > 0);
            }
            let mut cc = Counter::default();
            cc.add(cm.1 > 0);
            cl.write(&mut s, "      ", "LINE");
            cm.write(&mut s, "      ", "METHOD");
            cc.write(&mut s, "      ", "CLASS");
            s.push_str("    </class>\n");
            sources
                .entry(c.source.clone())
                .or_default()
                .extend(class_lines);
            pm.plus(cm);
            pc.plus(cc);
        }
        for (source, lines) in &sources {
            let file = source.rsplit('/').next().unwrap_or(source);
            let _ = writeln!(s, "    <sourcefile name=\"{}\">", esc(file));
            let mut sl = Counter::default();
            for &l in lines {
                let covered = total_line(source, l) > 0;
                sl.add(covered);
                let _ = writeln!(
                    s,
                    "      <line nr=\"{l}\" mi=\"{}\" ci=\"{}\" mb=\"0\" cb=\"0\"/>",
                    (!covered) as u8,
                    covered as u8
                );
            }
            sl.write(&mut s, "      ", "LINE");
            s.push_str("    </sourcefile>\n");
            pl.plus(sl);
        }
        pl.write(&mut s, "    ", "LINE");
        pm.write(&mut s, "    ", "METHOD");
        pc.write(&mut s, "    ", "CLASS");
        s.push_str("  </package>\n");
        rl.plus(pl);
        rm.plus(pm);
        rc.plus(pc);
    }
    rl.write(&mut s, "  ", "LINE");
    rm.write(&mut s, "  ", "METHOD");
    rc.write(&mut s, "  ", "CLASS");
    s.push_str("</report>\n");
    s
}
