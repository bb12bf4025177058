//! Line and method coverage with exact counts: every `line` element (`lines=on`) and
//! every method entry, per test and outside tests; the lines that could have run come
//! from each class's `methodLineTables` annotation.

use crate::model::testcase::{TestCase, Tests};
use crate::model::{Analysis, Frame, Symbols, Tag, NONE};
use std::collections::{BTreeMap, HashMap};

/// Counts of one test (or of everything outside tests).
#[derive(Debug, Default, Clone)]
pub struct Counts {
    /// (method index, line) → executions.
    pub lines: HashMap<(u32, u32), u64>,
    /// method index → entries.
    pub methods: HashMap<u32, u64>,
}

#[derive(Default)]
pub struct Coverage {
    pub tests: Tests,
    /// One per test, in `tests.cases` order.
    pub per_test: Vec<Counts>,
    /// What ran outside every test (class initialisation, `@BeforeAll`, the runner).
    pub outside: Counts,
}

impl Coverage {
    fn counts(&mut self, thread: u32, time: u64) -> &mut Counts {
        match self.tests.at(thread, time) {
            Some(i) => &mut self.per_test[i],
            None => &mut self.outside,
        }
    }
}

impl Analysis for Coverage {
    fn enter(&mut self, _s: &Symbols, t: u32, stack: &[Frame]) {
        let Some(f) = stack.last() else { return };
        *self.counts(t, f.start).methods.entry(f.method).or_default() += 1;
    }
    fn line(&mut self, _s: &Symbols, t: u32, m: u32, line: u32, time: u64, _stack: &[Frame]) {
        *self.counts(t, time).lines.entry((m, line)).or_default() += 1;
    }
    fn tag(&mut self, _s: &Symbols, t: u32, tag: &Tag, _stack: &[Frame]) {
        if self.tests.tag(t, tag).is_some() {
            self.per_test.push(Counts::default());
        }
    }
}

/// A method in a coverage report.
#[derive(Debug, Clone)]
pub struct Method {
    pub name: String,
    pub signature: String,
    /// Its first line (0: no line table).
    pub line: u32,
    /// The lines it could run.
    pub lines: Vec<u32>,
}

/// A class in a coverage report: dotted name, source path relative to a source root
/// (`example/Calc.java`), methods.
#[derive(Debug, Clone)]
pub struct Class {
    pub name: String,
    pub source: String,
    pub methods: Vec<Method>,
}

/// One test's (or the outside's) counts keyed by class source and method, for the lcov and JaCoCo outputs.
#[derive(Debug, Default, Clone)]
pub struct Sheet {
    /// (source, line) → executions.
    pub lines: HashMap<(String, u32), u64>,
    /// (class, method name, signature) → entries.
    pub methods: HashMap<(String, String, String), u64>,
}

/// Everything the lcov and JaCoCo outputs need, from one or more traces.
#[derive(Debug, Default)]
pub struct Model {
    /// By dotted class name (one class, however many traces defined it).
    pub classes: BTreeMap<String, Class>,
    /// (test, its sheet); the outside sheet last, with no test.
    pub sheets: Vec<(Option<TestCase>, Sheet)>,
}

impl Model {
    /// Adds one trace's coverage.
    pub fn add(&mut self, s: &Symbols, cov: Coverage, trace: &str) {
        for (ix, extra) in s.class_extra.iter().enumerate() {
            let name = s.class_name(ix as u32).to_string();
            if extra.line_tables.is_empty()
                || extra.source.is_empty()
                || self.classes.contains_key(&name)
            {
                continue;
            }
            let Ok(tables) = tracecheck::linetable::decode(&extra.line_tables) else {
                continue;
            };
            let names = tracecheck::linetable::method_names(&extra.method_names);
            let pkg = name.rsplit_once('.').map_or("", |(p, _)| p);
            let source = if pkg.is_empty() {
                extra.source.clone()
            } else {
                format!("{}/{}", pkg.replace('.', "/"), extra.source)
            };
            let methods = names
                .iter()
                .zip(tables)
                .map(|(n, lines)| {
                    let (mname, sig) = n.split_at(n.find('(').unwrap_or(n.len()));
                    let mut lines: Vec<u32> = lines.into_iter().filter(|&l| l > 0).collect();
                    let first = lines.first().copied().unwrap_or(0);
                    lines.sort_unstable();
                    lines.dedup();
                    Method {
                        name: mname.to_string(),
                        signature: sig.to_string(),
                        line: first,
                        lines,
                    }
                })
                .collect();
            self.classes.insert(
                name.clone(),
                Class {
                    name,
                    source,
                    methods,
                },
            );
        }
        let sheet = |c: &Counts| {
            let mut out = Sheet::default();
            for (&(m, line), &n) in &c.lines {
                let info = s.method(m);
                if info.class_ix == NONE {
                    continue;
                }
                if let Some(cl) = self.classes.get(&info.class) {
                    *out.lines.entry((cl.source.clone(), line)).or_default() += n;
                }
            }
            for (&m, &n) in &c.methods {
                let info = s.method(m);
                let name = match info.name.as_str() {
                    "-init-" => "<init>",
                    "-clinit-" => "<clinit>",
                    x => x,
                };
                *out.methods
                    .entry((info.class.clone(), name.to_string(), info.signature.clone()))
                    .or_default() += n;
            }
            out
        };
        for (mut case, counts) in cov.tests.cases.into_iter().zip(&cov.per_test) {
            case.trace = trace.to_string();
            self.sheets.push((Some(case), sheet(counts)));
        }
        let outside = sheet(&cov.outside);
        match self.sheets.iter_mut().find(|(c, _)| c.is_none()) {
            Some((_, o)) => {
                for (k, v) in outside.lines {
                    *o.lines.entry(k).or_default() += v;
                }
                for (k, v) in outside.methods {
                    *o.methods.entry(k).or_default() += v;
                }
            }
            None => self.sheets.push((None, outside)),
        }
    }

    /// Keeps the classes whose source is under one of `roots`; returns how many were left out.
    pub fn keep_sources(&mut self, roots: &[std::path::PathBuf]) -> usize {
        let before = self.classes.len();
        self.classes
            .retain(|_, c| roots.iter().any(|r| r.join(&c.source).is_file()));
        before - self.classes.len()
    }

    /// Total executions of `line` of `source` over every sheet.
    pub fn total_line(&self, source: &str, line: u32) -> u64 {
        let k = (source.to_string(), line);
        self.sheets
            .iter()
            .map(|(_, s)| s.lines.get(&k).copied().unwrap_or(0))
            .sum()
    }
}
