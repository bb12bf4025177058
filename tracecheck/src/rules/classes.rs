//! Definitions: classDef (with its methodNames/methodLineTables annotations) and methodDef.

use crate::attrs::{get, Attrs};
use crate::linetable;
use crate::model::{Class, Method, State};
use crate::summary::MethodStats;
use crate::violation::Rule;

impl State {
    pub(crate) fn class_def(&mut self, line: u64, attrs: &Attrs) {
        let Some(id) = self.req_u64(line, "classDef", attrs, "classId") else {
            return;
        };
        let name = get(attrs, "name").unwrap_or("").replace('/', ".");
        self.current_class = Some(id);
        if self.classes.contains_key(&id) {
            self.flush_allocs(Some(id));
        }
        if let Some(c) = self.classes.get(&id) {
            if c.live {
                let msg = format!(
                    "classId {id} redefined while live (class {} defined at line {})",
                    c.name, c.line
                );
                self.err(line, Rule::Ids, msg);
                return;
            }
        }
        let loader = get(attrs, "classLoader").unwrap_or("");
        if let Some(msg) = self.integrity.class_def(id, line, &name, loader) {
            self.err(line, Rule::Ids, msg);
        }
        self.summary.classes.push(name.clone());
        self.summary
            .class_loaders
            .entry(name.clone())
            .or_default()
            .push(get(attrs, "classLoader").unwrap_or("").to_string());
        let num_methods = self.opt_u64(line, "classDef", attrs, "numMethods");
        self.classes.insert(
            id,
            Class {
                name,
                live: true,
                line,
                methods: Vec::new(),
                source: get(attrs, "sourceName").unwrap_or("").to_string(),
                num_methods,
                method_names: None,
                line_tables: None,
            },
        );
    }

    /// An `annotation` child of the classDef being read: the Probekit strings.
    pub(crate) fn class_annotation(&mut self, line: u64, attrs: &Attrs) {
        let Some(id) = self.current_class else { return };
        let (Some(key), Some(value)) = (get(attrs, "name"), get(attrs, "value")) else {
            return;
        };
        let mut problems = Vec::new();
        let Some(c) = self.classes.get_mut(&id) else {
            return;
        };
        match key {
            "methodNames" => {
                let names: Vec<String> = linetable::method_names(value)
                    .into_iter()
                    .map(str::to_string)
                    .collect();
                if let Some(n) = c.num_methods.filter(|&n| n != names.len() as u64) {
                    problems.push(format!(
                        "class {}: methodNames has {} entries but numMethods=\"{n}\"",
                        c.name,
                        names.len()
                    ));
                }
                c.method_names = Some(names);
            }
            "methodLineTables" => match linetable::decode(value) {
                Ok(t) => c.line_tables = Some(t),
                Err(e) => problems.push(format!(
                    "class {}: methodLineTables {value:?} does not decode: {e}",
                    c.name
                )),
            },
            _ => {}
        }
        if let (Some(n), Some(t)) = (&c.method_names, &c.line_tables) {
            if n.len() != t.len() {
                problems.push(format!(
                    "class {}: methodLineTables has {} method(s), methodNames {}",
                    c.name,
                    t.len(),
                    n.len()
                ));
            }
        }
        for p in problems {
            self.err(line, Rule::LineTable, p);
        }
    }

    pub(crate) fn method_def(&mut self, line: u64, attrs: &Attrs) {
        let Some(id) = self.req_u64(line, "methodDef", attrs, "methodId") else {
            return;
        };
        let Some(class) = self.req_u64(line, "methodDef", attrs, "classIdRef") else {
            return;
        };
        let name = get(attrs, "name").unwrap_or("");
        let sig = match get(attrs, "signature") {
            Some(s) => s.to_string(),
            None => {
                self.err(
                    line,
                    Rule::Attribute,
                    "<methodDef> lacks attribute signature".to_string(),
                );
                "()".to_string()
            }
        };
        if let Some(m) = self.methods.get(&id) {
            if m.live {
                let msg = format!(
                    "methodId {id} redefined while live ({} defined at line {})",
                    m.key, m.line
                );
                self.err(line, Rule::Ids, msg);
                return;
            }
        }
        let class_name = self
            .classes
            .get(&class)
            .map(|c| c.name.clone())
            .unwrap_or_else(|| format!("<class {class}>"));
        if let Some(c) = self.classes.get_mut(&class) {
            c.methods.push(id);
        }
        let live = self.classes.get(&class).is_some_and(|c| c.live);
        let mut line_numbers = None;
        let mut missing = None;
        if let Some(c) = self.classes.get(&class) {
            if let (Some(names), Some(tables)) = (&c.method_names, &c.line_tables) {
                let own = linetable::class_file_key(name, &sig);
                match names.iter().position(|n| *n == own) {
                    Some(i) => {
                        line_numbers = tables.get(i).map(|t| {
                            let mut t = t.clone();
                            t.sort_unstable();
                            t.dedup();
                            t
                        });
                    }
                    None => {
                        missing = Some(format!(
                            "<methodDef> {own} is not among the methodNames of class {class_name}"
                        ))
                    }
                }
            }
        }
        if let Some(msg) = missing {
            self.err(line, Rule::LineTable, msg);
        }
        let start = self.opt_u64(line, "methodDef", attrs, "startLineNumber");
        let end = self.opt_u64(line, "methodDef", attrs, "endLineNumber");
        let line_range = match (start, end) {
            (Some(a), Some(b)) if a > 0 && b >= a => Some((a, b)),
            _ => None,
        };
        let method = Method {
            key: format!("{class_name}.{name}{sig}"),
            class,
            live,
            line,
            count_seen: false,
            line_range,
            line_numbers,
            stats: MethodStats::default(),
        };
        if let Some(old) = self.methods.insert(id, method) {
            self.retired_methods.push(old);
        }
    }
}
