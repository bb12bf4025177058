//! The reference model: what the checker knows of the trace so far (live threads with their open frames, classes, methods, objects) and the summary it builds; every rule reads and updates this `State`.

use crate::attrs::{get, parse_u64, Attrs};
use crate::summary::{AllocStats, MethodStats, Summary, ThreadInfo};
use crate::violation::{Rule, Violation, MAX_VIOLATIONS};
use crate::vocab;
use ahash::{AHashMap as HashMap, AHashSet as HashSet};

pub(crate) use crate::idmap::IdMap;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Phase {
    /// Expecting `HEADER[n]`.
    Header(usize),
    Body,
    AfterTraceEnd,
    AfterAgentDestroy,
}

pub(crate) struct Frame {
    pub(crate) method: u64,
    pub(crate) ticket: u64,
    pub(crate) line: u64,
    /// An exception is propagating through this frame.
    pub(crate) throwing: bool,
}

pub(crate) struct Thread {
    pub(crate) seq: usize,
    pub(crate) info: ThreadInfo,
    pub(crate) start_line: u64,
    pub(crate) stack: Vec<Frame>,
    pub(crate) last_ticket: Option<u64>,
    pub(crate) last_time: Option<(u128, u64)>,
    pub(crate) contending: Option<(i64, u64)>,
    pub(crate) waiting: Option<(i64, u64)>,
    /// Entries per method id (rustc-hash: a multiply-and-rotate hash, where ahash's
    /// portable fallback costs tens of instructions on the trace's small integer ids).
    pub(crate) per_method: rustc_hash::FxHashMap<u64, u64>,
}

/// A window open on a thread (its `window` start tag), checked by `rules/windows.rs`.
#[derive(Debug, Clone, Default)]
pub(crate) struct OpenWindow {
    pub(crate) id: String,
    pub(crate) method: u64,
    /// The start tag's line.
    pub(crate) line: u64,
    /// `methodEntry` elements of its thread since.
    pub(crate) entries: u64,
}

pub(crate) struct Class {
    pub(crate) name: String,
    pub(crate) live: bool,
    pub(crate) line: u64,
    pub(crate) methods: Vec<u64>,
    pub(crate) source: String,
    pub(crate) num_methods: Option<u64>,
    /// `methodNames` annotation entries (`name(sig)ret`), with `lines=on`.
    pub(crate) method_names: Option<Vec<String>>,
    /// Decoded `methodLineTables` annotation, with `lines=on`.
    pub(crate) line_tables: Option<Vec<Vec<u32>>>,
}

pub(crate) struct Method {
    pub(crate) key: String,
    pub(crate) class: u64,
    pub(crate) live: bool,
    pub(crate) line: u64,
    pub(crate) count_seen: bool,
    /// `startLineNumber..=endLineNumber` when both are given and non-zero.
    pub(crate) line_range: Option<(u64, u64)>,
    /// Sorted, deduplicated lines of its executable units (from its class's
    /// methodLineTables), with `lines=on`.
    pub(crate) line_numbers: Option<Vec<u32>>,
    pub(crate) stats: MethodStats,
}

pub(crate) struct State {
    /// Sum over methodCount elements of count minus the method's entries.
    pub(crate) counts_outside: u64,
    /// Entries deeper than stackDepth's range (written clamped), and the deepest: what
    /// traceEnd must declare.
    pub(crate) clamped_depths: u64,
    pub(crate) deepest_depth: u64,
    pub(crate) violations: Vec<Violation>,
    pub(crate) phase: Phase,
    pub(crate) node_id: Option<String>,
    pub(crate) process_id: Option<String>,
    pub(crate) agent_id: Option<String>,
    pub(crate) trace_id: Option<String>,
    pub(crate) vocab: HashMap<&'static str, &'static [&'static str]>,
    pub(crate) threads: IdMap<Thread>,
    pub(crate) finished_threads: Vec<Thread>,
    pub(crate) ended_thread_lines: HashMap<u64, u64>,
    pub(crate) thread_seq: usize,
    pub(crate) classes: IdMap<Class>,
    pub(crate) methods: IdMap<Method>,
    pub(crate) retired_methods: Vec<Method>,
    /// Live objects and the class id their objAlloc/objDef named (0: none).
    pub(crate) objects: HashMap<i64, u64>,
    /// Live objects that have been thrown (to count distinct exceptions).
    pub(crate) thrown_objects: HashSet<i64>,
    /// The classDef whose children are being read.
    pub(crate) current_class: Option<u64>,
    /// objAlloc figures per (class id, isArray), named at the end (or when the id is reused).
    pub(crate) alloc_by_class: HashMap<(u64, u32), AllocStats>,
    pub(crate) gc_open: Option<u64>,
    pub(crate) element_counts: HashMap<&'static str, u64>,
    /// methodExit and methodEntry elements under TRACE (the hot ones, counted apart
    /// from `element_counts`, into which `finish` adds them).
    pub(crate) call_counts: [u64; 2],
    pub(crate) shutdown_line: Option<u64>,
    /// Issue 23's rules (one classDef per class, the close of a stopped trace).
    pub(crate) integrity: crate::integrity::Integrity,
    pub(crate) summary: Summary,
    /// The window open on each thread (`window` tags).
    pub(crate) windows: HashMap<u64, OpenWindow>,
}

impl State {
    pub(crate) fn new() -> State {
        State {
            counts_outside: 0,
            clamped_depths: 0,
            deepest_depth: 0,
            violations: Vec::new(),
            phase: Phase::Header(0),
            node_id: None,
            process_id: None,
            agent_id: None,
            trace_id: None,
            vocab: vocab::ELEMENTS.iter().copied().collect(),
            threads: IdMap::default(),
            finished_threads: Vec::new(),
            ended_thread_lines: HashMap::new(),
            thread_seq: 0,
            classes: IdMap::default(),
            methods: IdMap::default(),
            retired_methods: Vec::new(),
            objects: HashMap::new(),
            thrown_objects: HashSet::new(),
            current_class: None,
            alloc_by_class: HashMap::new(),
            gc_open: None,
            element_counts: HashMap::new(),
            call_counts: [0; 2],
            shutdown_line: None,
            integrity: Default::default(),
            summary: Summary::default(),
            windows: HashMap::new(),
        }
    }

    pub(crate) fn err(&mut self, line: u64, rule: Rule, message: String) {
        if self.violations.len() < MAX_VIOLATIONS {
            self.violations.push(Violation {
                line,
                rule,
                message,
            });
        }
    }

    pub(crate) fn full(&self) -> bool {
        self.violations.len() >= MAX_VIOLATIONS
    }

    /// A required numeric attribute.
    pub(crate) fn req_u64(&mut self, line: u64, el: &str, attrs: &Attrs, key: &str) -> Option<u64> {
        match get(attrs, key) {
            None => {
                self.err(
                    line,
                    Rule::Attribute,
                    format!("<{el}> lacks attribute {key}"),
                );
                None
            }
            Some(v) => self.num(line, el, key, v),
        }
    }

    /// An optional numeric attribute (`None` if absent or malformed).
    pub(crate) fn opt_u64(&mut self, line: u64, el: &str, attrs: &Attrs, key: &str) -> Option<u64> {
        let v = get(attrs, key)?;
        self.num(line, el, key, v)
    }

    pub(crate) fn num(&mut self, line: u64, el: &str, key: &str, v: &str) -> Option<u64> {
        let n = parse_u64(v);
        if n.is_none() {
            self.err(
                line,
                Rule::Attribute,
                format!("<{el}> {key}=\"{v}\" is not a non-negative decimal integer"),
            );
        }
        n
    }

    pub(crate) fn method_name(&self, id: u64) -> String {
        match self.methods.get(&id) {
            Some(m) => format!("method {id} ({})", m.key),
            None => format!("method {id}"),
        }
    }

    pub(crate) fn class_name_of(&self, class: u64) -> String {
        self.classes
            .get(&class)
            .map(|c| c.name.clone())
            .unwrap_or_default()
    }

    pub(crate) fn thread_name_of(&self, id: u64) -> String {
        match self.threads.get(&id) {
            Some(t) => t.info.name.clone(),
            None => self
                .finished_threads
                .iter()
                .rev()
                .find(|t| t.info.id == id)
                .map(|t| t.info.name.clone())
                .unwrap_or_else(|| format!("#{id}")),
        }
    }

    pub(crate) fn finish(mut self) -> Summary {
        for (l, msg) in self.integrity.finish() {
            self.err(l, Rule::Nesting, msg);
        }
        self.flush_allocs(None);
        for (name, n) in ["methodExit", "methodEntry"]
            .into_iter()
            .zip(self.call_counts)
        {
            if n > 0 {
                *self.element_counts.entry(name).or_default() += n;
            }
        }
        for (name, n) in self.element_counts.drain() {
            self.summary.elements.insert(name.to_string(), n);
        }
        let method_keys: HashMap<u64, String> = self
            .methods
            .iter()
            .map(|(id, m)| (id, m.key.clone()))
            .collect();
        // In definition order (the methodDef's line).
        let mut defs: Vec<(u64, String, u64)> = self
            .retired_methods
            .iter()
            .map(|m| (m.line, m.key.clone(), m.stats.entries))
            .chain(
                self.methods
                    .values()
                    .map(|m| (m.line, m.key.clone(), m.stats.entries)),
            )
            .collect();
        defs.sort();
        for (_, key, entries) in defs {
            self.summary
                .method_defs
                .entry(key)
                .or_default()
                .push(entries);
        }
        for m in self
            .retired_methods
            .drain(..)
            .chain(self.methods.drain().map(|(_, m)| m))
        {
            let s = self.summary.methods.entry(m.key).or_default();
            s.entries += m.stats.entries;
            s.exits += m.stats.exits;
            s.exception_exits += m.stats.exception_exits;
            s.max_depth = s.max_depth.max(m.stats.max_depth);
            s.throws += m.stats.throws;
            s.catches += m.stats.catches;
            if let Some(c) = m.stats.method_count {
                s.method_count = Some(s.method_count.unwrap_or(0) + c);
            }
            s.lines.extend(m.stats.lines);
            for (n, c) in m.stats.line_counts {
                *s.line_counts.entry(n).or_default() += c;
            }
        }
        let mut threads: Vec<Thread> = self
            .finished_threads
            .drain(..)
            .chain(self.threads.drain().map(|(_, t)| t))
            .collect();
        threads.sort_by_key(|t| t.seq);
        for t in threads {
            for (mid, n) in &t.per_method {
                let key = method_keys
                    .get(mid)
                    .cloned()
                    .unwrap_or_else(|| format!("<method {mid}>"));
                *self
                    .summary
                    .thread_entries
                    .entry((t.info.name.clone(), key))
                    .or_default() += n;
            }
            self.summary.threads.push(t.info);
        }
        self.summary
    }
}
