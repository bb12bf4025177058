//! The streaming checker: one pass over the XML events, keeping only what is live.
//!
//! `run` drives quick-xml and checks the document shape (root, vocabulary, children);
//! every direct child of `TRACE` then goes through [`State::event`], which applies the
//! generic reference checks (threads, classes, methods, objects, time, traceIdRef) and the
//! element's own rules.

use crate::lines::LineCounter;
use crate::linetable;
use crate::summary::{AllocStats, MethodStats, Summary, ThreadInfo};
use crate::vocab;
use crate::{Rule, Violation, MAX_VIOLATIONS};
use quick_xml::events::{BytesStart, Event};
use quick_xml::{Reader, XmlVersion};
use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::io::BufRead;

/// The elements that must open a trace, in this order.
const HEADER: [&str; 4] = ["node", "processCreate", "agentCreate", "traceStart"];

/// Elements that may carry `threadIdRef="0"` ("no Java thread"): the VM reports frees and
/// unloads from its own threads. gcStart/gcFinish are not among them: they must name a
/// defined thread (jtrace defines one for the collector), because TPTP's importer looks
/// up their `threadIdRef` and invents a thread when it finds none.
const VM_THREAD_OK: &[&str] = &["objFree", "objMove", "classUnload"];

/// `objAlloc@isArray` codes of primitive arrays, and the name of their element class
/// (TPTP's importer files an array allocation under its element class plus `[]`).
const PRIMITIVE_ARRAYS: [(u64, &str); 8] = [
    (4, "boolean"),
    (5, "char"),
    (6, "float"),
    (7, "double"),
    (8, "byte"),
    (9, "short"),
    (10, "int"),
    (11, "long"),
];

/// Largest `methodEntry@stackDepth` (traceEvents.xsd: `xsd:short`); deeper entries say this.
pub const MAX_STACK_DEPTH: u64 = i16::MAX as u64;

/// Attributes `xmllint` requires (the `#REQUIRED` ones of docs/trace.dtd).
const REQUIRED: &[(&str, &[&str])] = &[
    ("node", &["nodeId", "hostname", "ipaddress"]),
    ("processCreate", &["processId", "pid", "nodeIdRef", "time"]),
    (
        "agentCreate",
        &["agentId", "processIdRef", "agentName", "time"],
    ),
    ("agentDestroy", &["agentIdRef", "time"]),
    ("traceStart", &["traceId", "agentIdRef", "time"]),
    ("traceEnd", &["traceIdRef", "time"]),
    ("filter", &["pattern", "genericPattern", "mode"]),
    ("objDef", &["objId"]),
];

/// Valid `objAlloc@isArray` codes: object, object array, boolean[] .. long[].
fn is_array_code_ok(code: u64) -> bool {
    matches!(code, 0 | 2 | 4..=11)
}

type Attrs<'a> = Vec<(&'static str, Cow<'a, str>)>;

fn get<'a>(attrs: &'a Attrs<'_>, key: &str) -> Option<&'a str> {
    attrs
        .iter()
        .find(|(k, _)| *k == key)
        .map(|(_, v)| v.as_ref())
}

/// `\d+\.\d{9}` as nanoseconds.
fn parse_time(s: &str) -> Option<u128> {
    let (secs, frac) = s.split_once('.')?;
    let digits = |p: &str| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit());
    if !digits(secs) || frac.len() != 9 || !digits(frac) {
        return None;
    }
    Some(secs.parse::<u128>().ok()? * 1_000_000_000 + frac.parse::<u128>().ok()?)
}

fn parse_u64(s: &str) -> Option<u64> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

fn parse_i64(s: &str) -> Option<i64> {
    match s.strip_prefix('-') {
        Some(rest) => parse_u64(rest)
            .and_then(|v| i64::try_from(v).ok())
            .map(|v| -v),
        None => parse_u64(s).and_then(|v| i64::try_from(v).ok()),
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// Expecting `HEADER[n]`.
    Header(usize),
    Body,
    AfterTraceEnd,
    AfterAgentDestroy,
}

struct Frame {
    method: u64,
    ticket: u64,
    line: u64,
    /// An exception is propagating through this frame.
    throwing: bool,
}

struct Thread {
    seq: usize,
    info: ThreadInfo,
    start_line: u64,
    stack: Vec<Frame>,
    last_ticket: Option<u64>,
    last_time: Option<(u128, u64)>,
    contending: Option<(i64, u64)>,
    waiting: Option<(i64, u64)>,
    per_method: HashMap<u64, u64>,
}

struct Class {
    name: String,
    live: bool,
    line: u64,
    methods: Vec<u64>,
    source: String,
    num_methods: Option<u64>,
    /// `methodNames` annotation entries (`name(sig)ret`), with `lines=on`.
    method_names: Option<Vec<String>>,
    /// Decoded `methodLineTables` annotation, with `lines=on`.
    line_tables: Option<Vec<Vec<u32>>>,
}

struct Method {
    key: String,
    class: u64,
    live: bool,
    line: u64,
    count_seen: bool,
    /// `startLineNumber..=endLineNumber` when both are given and non-zero.
    line_range: Option<(u64, u64)>,
    /// Sorted, deduplicated lines of its executable units (from its class's
    /// methodLineTables), with `lines=on`.
    line_table: Option<Vec<u32>>,
    stats: MethodStats,
}

struct State {
    /// Sum over methodCount elements of count minus the method's entries.
    counts_outside: u64,
    violations: Vec<Violation>,
    phase: Phase,
    node_id: Option<String>,
    process_id: Option<String>,
    agent_id: Option<String>,
    trace_id: Option<String>,
    vocab: HashMap<&'static str, &'static [&'static str]>,
    threads: HashMap<u64, Thread>,
    finished_threads: Vec<Thread>,
    ended_thread_lines: HashMap<u64, u64>,
    thread_seq: usize,
    classes: HashMap<u64, Class>,
    methods: HashMap<u64, Method>,
    retired_methods: Vec<Method>,
    /// Live objects and the class id their objAlloc/objDef named (0: none).
    objects: HashMap<i64, u64>,
    /// Live objects that have been thrown (to count distinct exceptions).
    thrown_objects: HashSet<i64>,
    /// The classDef whose children are being read.
    current_class: Option<u64>,
    /// objAlloc figures per (class id, isArray), named at the end (or when the id is reused).
    alloc_by_class: HashMap<(u64, u32), AllocStats>,
    gc_open: Option<u64>,
    element_counts: HashMap<&'static str, u64>,
    shutdown_line: Option<u64>,
    /// Issue 23's rules (one classDef per class, the close of a stopped trace).
    integrity: crate::integrity::Integrity,
    summary: Summary,
}

impl State {
    fn new() -> State {
        State {
            counts_outside: 0,
            violations: Vec::new(),
            phase: Phase::Header(0),
            node_id: None,
            process_id: None,
            agent_id: None,
            trace_id: None,
            vocab: vocab::ELEMENTS.iter().copied().collect(),
            threads: HashMap::new(),
            finished_threads: Vec::new(),
            ended_thread_lines: HashMap::new(),
            thread_seq: 0,
            classes: HashMap::new(),
            methods: HashMap::new(),
            retired_methods: Vec::new(),
            objects: HashMap::new(),
            thrown_objects: HashSet::new(),
            current_class: None,
            alloc_by_class: HashMap::new(),
            gc_open: None,
            element_counts: HashMap::new(),
            shutdown_line: None,
            integrity: Default::default(),
            summary: Summary::default(),
        }
    }

    fn err(&mut self, line: u64, rule: Rule, message: String) {
        if self.violations.len() < MAX_VIOLATIONS {
            self.violations.push(Violation {
                line,
                rule,
                message,
            });
        }
    }

    fn full(&self) -> bool {
        self.violations.len() >= MAX_VIOLATIONS
    }

    /// A required numeric attribute.
    fn req_u64(&mut self, line: u64, el: &str, attrs: &Attrs, key: &str) -> Option<u64> {
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
    fn opt_u64(&mut self, line: u64, el: &str, attrs: &Attrs, key: &str) -> Option<u64> {
        let v = get(attrs, key)?;
        self.num(line, el, key, v)
    }

    fn num(&mut self, line: u64, el: &str, key: &str, v: &str) -> Option<u64> {
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

    fn method_name(&self, id: u64) -> String {
        match self.methods.get(&id) {
            Some(m) => format!("method {id} ({})", m.key),
            None => format!("method {id}"),
        }
    }

    // ---------------------------------------------------------------- structure

    fn structure(&mut self, line: u64, name: &str) {
        match self.phase {
            Phase::Header(i) => {
                if name == HEADER[i] {
                    self.phase = if i + 1 == HEADER.len() {
                        Phase::Body
                    } else {
                        Phase::Header(i + 1)
                    };
                } else {
                    self.err(
                        line,
                        Rule::Structure,
                        format!(
                            "expected <{}> (a trace starts with node, processCreate, agentCreate, traceStart), found <{name}>",
                            HEADER[i]
                        ),
                    );
                    self.phase = match HEADER.iter().position(|h| *h == name) {
                        Some(j) if j + 1 < HEADER.len() => Phase::Header(j + 1),
                        _ => Phase::Body,
                    };
                }
            }
            Phase::Body => match name {
                _ if HEADER.contains(&name) => self.err(
                    line,
                    Rule::Structure,
                    format!("<{name}> may appear only once, at the start of the trace"),
                ),
                "traceEnd" => self.phase = Phase::AfterTraceEnd,
                // The counts of a class being unloaded come just before its
                // classUnload, inside the GC bracket (TPTP allows methodCount at any
                // earlier time); after classUnload nothing may name its methods.
                "methodCount" if self.gc_open.is_some() => {}
                "methodCount" => self.err(
                    line,
                    Rule::Structure,
                    "<methodCount> before <traceEnd> outside a GC bracket (only an unloading class's counts may come early; the rest belong between traceEnd and agentDestroy)"
                        .to_string(),
                ),
                "agentDestroy" => {
                    self.err(
                        line,
                        Rule::Structure,
                        "<agentDestroy> before <traceEnd>".to_string(),
                    );
                    self.phase = Phase::AfterAgentDestroy;
                }
                _ => {}
            },
            Phase::AfterTraceEnd => match name {
                "methodCount" => {}
                "agentDestroy" => self.phase = Phase::AfterAgentDestroy,
                _ => self.err(
                    line,
                    Rule::Structure,
                    format!("<{name}> after <traceEnd> (only methodCount and agentDestroy may follow it)"),
                ),
            },
            Phase::AfterAgentDestroy => self.err(
                line,
                Rule::Structure,
                format!("<{name}> after <agentDestroy> (it must be the last element)"),
            ),
        }
    }

    fn hierarchy(&mut self, line: u64, name: &str, attrs: &Attrs) {
        let own = |s: Option<&str>| s.map(str::to_string);
        let expect = |st: &mut State, key: &str, want: &Option<String>, what: &str| {
            let got = get(attrs, key);
            if let (Some(got), Some(want)) = (got, want) {
                if got != want {
                    st.err(
                        line,
                        Rule::Structure,
                        format!("<{name}> {key}=\"{got}\" does not match {what} \"{want}\""),
                    );
                }
            }
        };
        match name {
            "node" => self.node_id = own(get(attrs, "nodeId")),
            "processCreate" => {
                let want = self.node_id.clone();
                expect(self, "nodeIdRef", &want, "node@nodeId");
                self.process_id = own(get(attrs, "processId"));
            }
            "agentCreate" => {
                let want = self.process_id.clone();
                expect(self, "processIdRef", &want, "processCreate@processId");
                self.agent_id = own(get(attrs, "agentId"));
            }
            "traceStart" => {
                let want = self.agent_id.clone();
                expect(self, "agentIdRef", &want, "agentCreate@agentId");
                self.trace_id = own(get(attrs, "traceId"));
            }
            "agentDestroy" => {
                let want = self.agent_id.clone();
                expect(self, "agentIdRef", &want, "agentCreate@agentId");
            }
            _ => {
                if get(attrs, "traceIdRef").is_some() {
                    let want = self.trace_id.clone();
                    expect(self, "traceIdRef", &want, "traceStart@traceId");
                }
            }
        }
    }

    // ---------------------------------------------------------------- generic refs

    /// The live thread `attrs[key]` names, after checking it and the element's time.
    fn thread_ref(
        &mut self,
        line: u64,
        name: &str,
        attrs: &Attrs,
        key: &str,
        time: Option<u128>,
    ) -> Option<u64> {
        let id = self.opt_u64(line, name, attrs, key)?;
        if id == 0 && VM_THREAD_OK.contains(&name) {
            return None;
        }
        if !self.threads.contains_key(&id) {
            let why = match self.ended_thread_lines.get(&id) {
                Some(l) => format!("it ended at line {l}"),
                None => "no threadStart defines it".to_string(),
            };
            self.err(
                line,
                Rule::Ids,
                format!("<{name}> {key}=\"{id}\" names no live thread: {why}"),
            );
            return None;
        }
        if let Some(t) = time {
            self.thread_time(line, name, id, t);
        }
        Some(id)
    }

    fn thread_time(&mut self, line: u64, name: &str, id: u64, t: u128) {
        let th = self.threads.get_mut(&id).expect("live thread");
        let prev = th.last_time;
        if prev.is_none_or(|(p, _)| t >= p) {
            th.last_time = Some((t, line));
        } else if let Some((p, pl)) = prev {
            self.err(
                line,
                Rule::Time,
                format!(
                    "<{name}> time goes backwards in thread {id}: {} after {} (line {pl})",
                    fmt_time(t),
                    fmt_time(p)
                ),
            );
        }
    }

    fn class_ref(&mut self, line: u64, name: &str, attrs: &Attrs, key: &str, zero_ok: bool) {
        let Some(id) = self.opt_u64(line, name, attrs, key) else {
            return;
        };
        if id == 0 && zero_ok {
            return;
        }
        match self.classes.get(&id) {
            Some(c) if c.live => {}
            Some(c) => {
                let msg = format!(
                    "<{name}> {key}=\"{id}\" names class {} which was unloaded",
                    c.name
                );
                self.err(line, Rule::Ids, msg);
            }
            None => self.err(
                line,
                Rule::Ids,
                format!("<{name}> {key}=\"{id}\": no classDef defines class {id}"),
            ),
        }
    }

    fn method_ref(
        &mut self,
        line: u64,
        name: &str,
        attrs: &Attrs,
        key: &str,
        zero_ok: bool,
        dead_ok: bool,
    ) {
        let Some(id) = self.opt_u64(line, name, attrs, key) else {
            return;
        };
        if id == 0 && zero_ok {
            return;
        }
        match self.methods.get(&id) {
            Some(m) if m.live || dead_ok => {}
            Some(m) => {
                let msg = format!(
                    "<{name}> {key}=\"{id}\" names method {} whose class was unloaded",
                    m.key
                );
                self.err(line, Rule::Ids, msg);
            }
            None => self.err(
                line,
                Rule::Ids,
                format!("<{name}> {key}=\"{id}\": no methodDef defines method {id}"),
            ),
        }
    }

    fn object_ref(&mut self, line: u64, name: &str, attrs: &Attrs) -> Option<i64> {
        let raw = get(attrs, "objIdRef")?;
        let Some(id) = parse_i64(raw) else {
            self.err(
                line,
                Rule::Attribute,
                format!("<{name}> objIdRef=\"{raw}\" is not a decimal integer"),
            );
            return None;
        };
        let minus_one_ok = matches!(name, "monWait" | "monWaited");
        if id == 0 || (id == -1 && minus_one_ok) {
            return Some(id);
        }
        if id < 0 {
            self.err(
                line,
                Rule::Attribute,
                format!("<{name}> objIdRef=\"{id}\" is negative"),
            );
            return Some(id);
        }
        if !self.objects.contains_key(&id) {
            self.err(
                line,
                Rule::Ids,
                format!(
                    "<{name}> objIdRef=\"{id}\": no live objAlloc or objDef defines object {id}"
                ),
            );
        }
        Some(id)
    }

    // ---------------------------------------------------------------- per element

    fn event(&mut self, line: u64, name: &'static str, attrs: &Attrs) {
        *self.element_counts.entry(name).or_default() += 1;
        self.structure(line, name);
        self.hierarchy(line, name, attrs);

        let time = match get(attrs, "time") {
            Some(raw) => {
                let t = parse_time(raw);
                if t.is_none() {
                    self.err(
                        line,
                        Rule::Time,
                        format!(
                            "<{name}> time=\"{raw}\" is not seconds with nine fractional digits"
                        ),
                    );
                }
                t
            }
            None => None,
        };

        // Generic reference checks.
        let thread = match name {
            "threadStart" => None,
            "line" => self.thread_ref(line, name, attrs, "threadId", time),
            _ => self.thread_ref(line, name, attrs, "threadIdRef", time),
        };
        if matches!(
            name,
            "methodDef"
                | "methodEntry"
                | "methodExit"
                | "methodCall"
                | "methodReturn"
                | "objAlloc"
                | "classUnload"
                | "objDef"
        ) {
            self.class_ref(
                line,
                name,
                attrs,
                "classIdRef",
                matches!(name, "objAlloc" | "objDef"),
            );
        }
        if name == "objAlloc" {
            self.class_ref(line, name, attrs, "aClassIdRef", true);
            self.method_ref(line, name, attrs, "aMethodIdRef", true, false);
        }
        if get(attrs, "methodIdRef").is_some() {
            self.method_ref(
                line,
                name,
                attrs,
                "methodIdRef",
                false,
                name == "methodCount",
            );
        }
        let object = if name == "value" {
            None
        } else {
            self.object_ref(line, name, attrs)
        };

        for (l, msg) in self.integrity.element(name) {
            self.err(l, Rule::Nesting, msg);
        }
        match name {
            "threadStart" => self.thread_start(line, attrs, time),
            "threadEnd" => self.thread_end(line, thread),
            "runtimeShutdown" => {
                if let Some(l) = self.shutdown_line {
                    self.err(
                        line,
                        Rule::Structure,
                        format!("second <runtimeShutdown> (first at line {l})"),
                    );
                }
                self.shutdown_line = Some(line);
                self.summary.runtime_shutdown = true;
            }
            "classDef" => self.class_def(line, attrs),
            "methodDef" => self.method_def(line, attrs),
            "methodEntry" => self.method_entry(line, attrs, thread),
            "methodExit" => self.method_exit(line, attrs, thread),
            "throw" | "catch" | "line" => {
                if name == "throw" {
                    self.thrown(object);
                }
                self.frame_event(line, name, attrs, thread)
            }
            "objAlloc" => self.obj_alloc(line, attrs),
            "objDef" => self.obj_def(line, attrs),
            "objFree" | "objMove" | "classUnload" => {
                if name == "classUnload" {
                    if let Some(c) = get(attrs, "classIdRef").and_then(|c| c.parse().ok()) {
                        self.integrity.class_unload(c);
                    }
                }
                self.gc_event(line, name, attrs, object)
            }
            "gcStart" | "gcFinish" if thread.is_none() && get(attrs, "threadIdRef").is_none() => {
                self.err(
                    line,
                    Rule::Attribute,
                    format!("<{name}> lacks threadIdRef (the collector's thread)"),
                );
                self.gc_bracket(line, name, attrs);
            }
            "gcStart" | "gcFinish" => self.gc_bracket(line, name, attrs),
            "monContendedEnter" | "monContendedEntered" | "monWait" | "monWaited" => {
                self.monitor(line, name, attrs, thread, object)
            }
            "methodCount" => self.method_count(line, attrs),
            "traceEnd" => self.trace_end(line),
            "agentDestroy" => self.agent_destroy(line),
            "option" => {
                if let (Some(k), Some(v)) = (get(attrs, "key"), get(attrs, "value")) {
                    self.summary.options.insert(k.to_string(), v.to_string());
                }
            }
            _ => {}
        }
    }

    /// gcStart/gcFinish: brackets do not nest, a gcFinish closes one, heap figures agree.
    fn gc_bracket(&mut self, line: u64, name: &str, attrs: &Attrs) {
        match name {
            "gcStart" => {
                if let Some(l) = self.gc_open {
                    self.err(
                        line,
                        Rule::Gc,
                        format!("<gcStart> while the gcStart at line {l} has no gcFinish"),
                    );
                }
                self.gc_open = Some(line);
            }
            "gcFinish" => {
                let started = self.gc_open.take();
                if started.is_none() {
                    self.err(line, Rule::Gc, "<gcFinish> without <gcStart>".to_string());
                }
                let total = self.opt_u64(line, name, attrs, "totalObjectSpace");
                let used = self.opt_u64(line, name, attrs, "usedObjectSpace");
                if let (Some(total), Some(used)) = (total, used) {
                    if used > total {
                        self.err(
                            line,
                            Rule::Gc,
                            format!("<gcFinish> usedObjectSpace=\"{used}\" exceeds totalObjectSpace=\"{total}\""),
                        );
                    }
                }
                self.opt_u64(line, name, attrs, "usedObjects");
            }
            _ => {}
        }
    }

    fn thread_start(&mut self, line: u64, attrs: &Attrs, time: Option<u128>) {
        let Some(id) = self.req_u64(line, "threadStart", attrs, "threadId") else {
            return;
        };
        if let Some(t) = self.threads.get(&id) {
            let l = t.start_line;
            self.err(
                line,
                Rule::Ids,
                format!("threadId {id} redefined while live (started at line {l})"),
            );
            return;
        }
        self.thread_seq += 1;
        self.threads.insert(
            id,
            Thread {
                seq: self.thread_seq,
                info: ThreadInfo {
                    id,
                    name: get(attrs, "threadName").unwrap_or("").to_string(),
                    group: get(attrs, "groupName").unwrap_or("").to_string(),
                    ..ThreadInfo::default()
                },
                start_line: line,
                stack: Vec::new(),
                last_ticket: None,
                last_time: time.map(|t| (t, line)),
                contending: None,
                waiting: None,
                per_method: HashMap::new(),
            },
        );
    }

    fn thread_end(&mut self, line: u64, thread: Option<u64>) {
        let Some(id) = thread else { return };
        let mut th = self.threads.remove(&id).expect("live thread");
        let open = th.stack.len();
        th.info.open_frames_at_end = open as u64;
        th.info.ended_after_shutdown = self.shutdown_line.is_some();
        if open > 0 && self.shutdown_line.is_none() {
            let top = th.stack.last().expect("open frame");
            let msg = format!(
                "thread {id} ({}) ends before runtimeShutdown with {open} open frame(s), innermost {} ticket {} entered at line {}",
                th.info.name,
                self.method_name(top.method),
                top.ticket,
                top.line
            );
            // Accepted if only the close follows: a stopped trace.
            self.integrity.open_at_end(line, msg);
        }
        self.ended_thread_lines.insert(id, line);
        self.finished_threads.push(th);
    }

    fn class_def(&mut self, line: u64, attrs: &Attrs) {
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
    fn class_annotation(&mut self, line: u64, attrs: &Attrs) {
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

    fn method_def(&mut self, line: u64, attrs: &Attrs) {
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
        let mut line_table = None;
        let mut missing = None;
        if let Some(c) = self.classes.get(&class) {
            if let (Some(names), Some(tables)) = (&c.method_names, &c.line_tables) {
                let own = linetable::class_file_key(name, &sig);
                match names.iter().position(|n| *n == own) {
                    Some(i) => {
                        line_table = tables.get(i).map(|t| {
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
            line_table,
            stats: MethodStats::default(),
        };
        if let Some(old) = self.methods.insert(id, method) {
            self.retired_methods.push(old);
        }
    }

    fn method_entry(&mut self, line: u64, attrs: &Attrs, thread: Option<u64>) {
        let el = "methodEntry";
        let method = self.req_u64(line, el, attrs, "methodIdRef");
        let ticket = self.req_u64(line, el, attrs, "ticket");
        // stackDepth is xsd:short: required up to 32767, absent on deeper frames.
        let depth = self.opt_u64(line, el, attrs, "stackDepth");
        let class = self.req_u64(line, el, attrs, "classIdRef");
        let (Some(tid), Some(method), Some(ticket)) = (thread, method, ticket) else {
            return;
        };
        if let (Some(class), Some(m)) = (class, self.methods.get(&method)) {
            if m.class != class {
                let msg = format!(
                    "<methodEntry> classIdRef=\"{class}\" but {} belongs to class {}",
                    self.method_name(method),
                    m.class
                );
                self.err(line, Rule::Nesting, msg);
            }
        }
        let th = self.threads.get_mut(&tid).expect("live thread");
        let prev = th.last_ticket;
        th.last_ticket = Some(prev.map_or(ticket, |p| p.max(ticket)));
        let expected_depth = th.stack.len() as u64 + 1;
        if let Some(top) = th.stack.last_mut() {
            top.throwing = false;
        }
        th.stack.push(Frame {
            method,
            ticket,
            line,
            throwing: false,
        });
        th.info.entries += 1;
        *th.per_method.entry(method).or_default() += 1;
        if let Some(p) = prev.filter(|&p| ticket <= p) {
            self.err(
                line,
                Rule::Nesting,
                format!(
                    "ticket {ticket} of thread {tid} is not greater than its previous ticket {p}"
                ),
            );
        }
        // Deeper than xsd:short allows: clamped at MAX_STACK_DEPTH.
        let want = expected_depth.min(MAX_STACK_DEPTH);
        match depth {
            Some(d) if d > MAX_STACK_DEPTH => self.err(
                line,
                Rule::Attribute,
                format!("stackDepth=\"{d}\" exceeds {MAX_STACK_DEPTH} (xsd:short); deeper frames say {MAX_STACK_DEPTH}"),
            ),
            Some(d) if d != want => self.err(
                line,
                Rule::Nesting,
                format!("stackDepth=\"{d}\" but thread {tid} has {expected_depth} open frame(s) including this one"),
            ),
            None => self.err(
                line,
                Rule::Attribute,
                format!("<{el}> lacks attribute stackDepth (depth {expected_depth})"),
            ),
            _ => {}
        }
        // The depth the nesting proves, whether or not the attribute could carry it.
        self.summary.max_depth = self.summary.max_depth.max(expected_depth);
        if let Some(m) = self.methods.get_mut(&method) {
            m.stats.entries += 1;
            m.stats.max_depth = m.stats.max_depth.max(expected_depth);
        }
    }

    fn method_exit(&mut self, line: u64, attrs: &Attrs, thread: Option<u64>) {
        let el = "methodExit";
        let method = self.req_u64(line, el, attrs, "methodIdRef");
        let ticket = self.req_u64(line, el, attrs, "ticket");
        let (Some(tid), Some(method), Some(ticket)) = (thread, method, ticket) else {
            return;
        };
        let th = self.threads.get_mut(&tid).expect("live thread");
        let Some(top) = th.stack.last() else {
            let msg = format!(
                "<methodExit> of {} ticket {ticket} but thread {tid} has no open frame",
                self.method_name(method)
            );
            self.err(line, Rule::Nesting, msg);
            return;
        };
        if top.method == method && top.ticket == ticket {
            let frame = th.stack.pop().expect("top frame");
            if frame.throwing {
                if let Some(caller) = th.stack.last_mut() {
                    caller.throwing = true;
                }
            }
            if let Some(m) = self.methods.get_mut(&method) {
                m.stats.exits += 1;
                if frame.throwing {
                    m.stats.exception_exits += 1;
                }
            }
            return;
        }
        let (top_method, top_ticket, top_line) = (top.method, top.ticket, top.line);
        // Resynchronise on the matching frame if there is one, to avoid a cascade.
        if let Some(pos) = th
            .stack
            .iter()
            .rposition(|f| f.method == method && f.ticket == ticket)
        {
            th.stack.truncate(pos);
        }
        let msg = format!(
            "<methodExit> of {} ticket {ticket} does not close the innermost open entry of thread {tid}: {} ticket {top_ticket} (line {top_line})",
            self.method_name(method),
            self.method_name(top_method)
        );
        self.err(line, Rule::Nesting, msg);
    }

    fn frame_event(&mut self, line: u64, name: &str, attrs: &Attrs, thread: Option<u64>) {
        let method = self.req_u64(line, name, attrs, "methodIdRef");
        let ticket = self.req_u64(line, name, attrs, "ticket");
        let line_number = if name == "line" {
            self.opt_u64(line, name, attrs, "line_number")
        } else {
            None
        };
        let mut table_problem = None;
        if let Some(m) = method.and_then(|id| self.methods.get_mut(&id)) {
            match name {
                "throw" => m.stats.throws += 1,
                "catch" => m.stats.catches += 1,
                _ => {
                    if let Some(n) = line_number {
                        m.stats.lines.insert(n);
                        *m.stats.line_counts.entry(n).or_default() += 1;
                        if let Some(t) = &m.line_table {
                            let known = u32::try_from(n).is_ok_and(|n| t.binary_search(&n).is_ok());
                            if !known {
                                table_problem = Some(format!(
                                    "<line> line_number=\"{n}\" is not in the methodLineTables entry of {} ({t:?})",
                                    m.key
                                ));
                            }
                        }
                        let source = self.classes.get(&m.class).map(|c| c.source.as_str());
                        let file = get(attrs, "file_name");
                        if let (Some(src), Some(file)) = (source, file) {
                            if !src.is_empty() && src != file {
                                table_problem = Some(format!(
                                    "<line> file_name=\"{file}\" but the sourceName of {}'s class is \"{src}\"",
                                    m.key
                                ));
                            }
                        }
                    }
                }
            }
        }
        if let Some(msg) = table_problem {
            self.err(line, Rule::LineTable, msg);
        }
        let (Some(tid), Some(method), Some(ticket)) = (thread, method, ticket) else {
            return;
        };
        let th = self.threads.get_mut(&tid).expect("live thread");
        let depth = th.stack.len();
        let pos = th
            .stack
            .iter()
            .rposition(|f| f.method == method && f.ticket == ticket);
        match (name, pos) {
            ("catch", Some(p)) if p + 1 == depth => th.stack[p].throwing = false,
            ("catch", _) => {
                let msg = format!(
                    "<catch> names {} ticket {ticket}, which is not the innermost open frame of thread {tid}",
                    self.method_name(method)
                );
                self.err(line, Rule::Frames, msg);
            }
            ("throw", Some(p)) => th.stack[p].throwing = true,
            (_, Some(p)) => {
                if p + 1 == depth {
                    th.stack[p].throwing = false;
                }
            }
            (_, None) => {
                let msg = format!(
                    "<{name}> names {} ticket {ticket}, which is not an open frame of thread {tid}",
                    self.method_name(method)
                );
                self.err(line, Rule::Frames, msg);
            }
        }
    }

    fn define_object(&mut self, line: u64, el: &str, id: u64, class: u64) {
        let id = i64::try_from(id).unwrap_or(i64::MAX);
        if self.objects.insert(id, class).is_some() {
            self.err(
                line,
                Rule::Ids,
                format!("<{el}> objId {id} redefined while live (no objFree since it was defined)"),
            );
        }
        self.thrown_objects.remove(&id);
    }

    fn obj_def(&mut self, line: u64, attrs: &Attrs) {
        let Some(id) = self.req_u64(line, "objDef", attrs, "objId") else {
            return;
        };
        let class = self
            .opt_u64(line, "objDef", attrs, "classIdRef")
            .unwrap_or(0);
        self.define_object(line, "objDef", id, class);
    }

    fn obj_alloc(&mut self, line: u64, attrs: &Attrs) {
        let el = "objAlloc";
        let id = self.req_u64(line, el, attrs, "objId");
        let class = self.opt_u64(line, el, attrs, "classIdRef").unwrap_or(0);
        let is_array = self.req_u64(line, el, attrs, "isArray").unwrap_or(0);
        let size = self.req_u64(line, el, attrs, "size").unwrap_or(0);
        let a_method = self.opt_u64(line, el, attrs, "aMethodIdRef").unwrap_or(0);
        let a_class = self.opt_u64(line, el, attrs, "aClassIdRef");
        let a_line = self.opt_u64(line, el, attrs, "aLineNr");
        if let Some(id) = id {
            self.define_object(line, el, id, class);
        }
        if !is_array_code_ok(is_array) {
            self.err(
                line,
                Rule::Alloc,
                format!("<objAlloc> isArray=\"{is_array}\" is not 0, 2 or 4..11"),
            );
        } else if let Some(&(_, want)) = PRIMITIVE_ARRAYS.iter().find(|(c, _)| *c == is_array) {
            // A primitive array names its element class (`byte`, ...): TPTP's importer
            // looks up classIdRef on every objAlloc and appends `[]`.
            let named = self.classes.get(&class).map(|c| c.name.as_str());
            if named != Some(want) {
                let found = match named {
                    _ if class == 0 => "no classIdRef".to_string(),
                    Some(n) => format!("class {class} ({n})"),
                    None => format!("class {class}"),
                };
                self.err(
                    line,
                    Rule::Alloc,
                    format!("<objAlloc> of a primitive array (isArray=\"{is_array}\") names {found}, not a classDef of {want}"),
                );
            }
        } else if class == 0 {
            self.err(
                line,
                Rule::Alloc,
                format!("<objAlloc> isArray=\"{is_array}\" without a classIdRef (objects and object arrays name their (element) class)"),
            );
        }
        if size == 0 && get(attrs, "size").is_some() {
            self.err(
                line,
                Rule::Alloc,
                "<objAlloc> size=\"0\": every object has a header".to_string(),
            );
        }
        if a_method != 0 {
            let problem = self.methods.get(&a_method).and_then(|m| {
                if a_class.is_some_and(|c| c != m.class) {
                    return Some(format!(
                        "<objAlloc> aMethodIdRef=\"{a_method}\" ({}) belongs to class {}, not aClassIdRef=\"{}\"",
                        m.key,
                        m.class,
                        a_class.unwrap_or(0)
                    ));
                }
                match (a_line, m.line_range) {
                    (Some(n), Some((lo, hi))) if n != 0 && (n < lo || n > hi) => Some(format!(
                        "<objAlloc> aLineNr=\"{n}\" lies outside {} (lines {lo}..{hi})",
                        m.key
                    )),
                    _ => None,
                }
            });
            if let Some(msg) = problem {
                self.err(line, Rule::Alloc, msg);
            }
        }
        // Primitive arrays are summed under no class (EXPECT's `-`): the isArray code
        // already says which type they are.
        let key_class = if is_array >= 4 { 0 } else { class };
        let e: &mut AllocStats = self
            .alloc_by_class
            .entry((key_class, is_array as u32))
            .or_default();
        e.count += 1;
        e.bytes += size;
        if let Some(n) = a_line {
            if !e.lines.contains(&n) {
                e.lines.insert(n);
            }
        }
        self.summary.alloc_bytes += size;
    }

    /// Moves the allocation figures of class id `class` into the summary, under its name.
    fn flush_allocs(&mut self, class: Option<u64>) {
        let keys: Vec<(u64, u32)> = self
            .alloc_by_class
            .keys()
            .filter(|(c, _)| class.is_none_or(|x| x == *c))
            .copied()
            .collect();
        for k in keys {
            let stats = self.alloc_by_class.remove(&k).expect("key");
            let name = self
                .classes
                .get(&k.0)
                .map(|c| c.name.clone())
                .unwrap_or_default();
            let e = self.summary.allocs.entry((name, k.1)).or_default();
            e.count += stats.count;
            e.bytes += stats.bytes;
            e.lines.extend(stats.lines);
        }
    }

    /// Counts the first throw of each live exception object, by its class.
    fn thrown(&mut self, object: Option<i64>) {
        let Some(id) = object.filter(|&id| id > 0) else {
            return;
        };
        if !self.thrown_objects.insert(id) {
            return;
        }
        let class = self.objects.get(&id).copied().unwrap_or(0);
        let name = self.class_name_of(class);
        *self.summary.thrown.entry(name).or_default() += 1;
    }

    fn class_name_of(&self, class: u64) -> String {
        self.classes
            .get(&class)
            .map(|c| c.name.clone())
            .unwrap_or_default()
    }

    fn thread_name_of(&self, id: u64) -> String {
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

    fn gc_event(&mut self, line: u64, name: &str, attrs: &Attrs, object: Option<i64>) {
        if self.gc_open.is_none() {
            self.err(
                line,
                Rule::Gc,
                format!("<{name}> outside a gcStart/gcFinish pair"),
            );
        }
        match name {
            "objFree" => {
                if let Some(id) = object {
                    self.objects.remove(&id);
                    self.thrown_objects.remove(&id);
                }
            }
            "objMove" => {
                let class = object.and_then(|id| {
                    self.thrown_objects.remove(&id);
                    self.objects.remove(&id)
                });
                if let Some(new) = self.req_u64(line, name, attrs, "newObjId") {
                    let new = i64::try_from(new).unwrap_or(i64::MAX);
                    if self.objects.insert(new, class.unwrap_or(0)).is_some() {
                        self.err(
                            line,
                            Rule::Ids,
                            format!("<objMove> newObjId=\"{new}\" is already a live object"),
                        );
                    }
                }
            }
            _ => {
                let Some(id) = self.opt_u64(line, name, attrs, "classIdRef") else {
                    return;
                };
                if let Some(c) = self.classes.get_mut(&id) {
                    if c.live {
                        self.summary.unloaded.push(c.name.clone());
                    }
                    c.live = false;
                    for m in c.methods.clone() {
                        if let Some(m) = self.methods.get_mut(&m) {
                            m.live = false;
                        }
                    }
                }
            }
        }
    }

    fn monitor(
        &mut self,
        line: u64,
        name: &str,
        attrs: &Attrs,
        thread: Option<u64>,
        object: Option<i64>,
    ) {
        let required: &[&str] = match name {
            "monContendedEnter" => &["threadOwner"],
            "monWait" => &["timeout"],
            "monWaited" => &["timeout", "isTimedOut"],
            _ => &[],
        };
        for key in required {
            if get(attrs, key).is_none() {
                self.err(
                    line,
                    Rule::Monitors,
                    format!("<{name}> lacks attribute {key}"),
                );
            }
        }
        if name == "monContendedEnter" {
            if let Some(owner) = self.opt_u64(line, name, attrs, "threadOwner") {
                if owner != 0
                    && !self.threads.contains_key(&owner)
                    && !self.ended_thread_lines.contains_key(&owner)
                {
                    self.err(
                        line,
                        Rule::Ids,
                        format!("<monContendedEnter> threadOwner=\"{owner}\": no threadStart defines it"),
                    );
                }
                if let Some(tid) = thread {
                    if owner == tid {
                        self.err(
                            line,
                            Rule::Monitors,
                            format!("<monContendedEnter> thread {tid} contends for a monitor it owns itself (threadOwner=\"{owner}\")"),
                        );
                    }
                    let me = self.thread_name_of(tid);
                    let owner_name = if owner == 0 {
                        String::new()
                    } else {
                        self.thread_name_of(owner)
                    };
                    *self.summary.contended.entry((me, owner_name)).or_default() += 1;
                    let class = object
                        .and_then(|o| self.objects.get(&o).copied())
                        .unwrap_or(0);
                    let class = self.class_name_of(class);
                    *self.summary.contended_classes.entry(class).or_default() += 1;
                }
            }
        }
        if name == "monWait" {
            self.opt_u64(line, name, attrs, "timeout");
        }
        if name == "monWaited" {
            let waited = self.opt_u64(line, name, attrs, "timeout");
            let timed_out = match get(attrs, "isTimedOut") {
                Some("true") => true,
                Some("false") | None => false,
                Some(v) => {
                    self.err(
                        line,
                        Rule::Monitors,
                        format!("<monWaited> isTimedOut=\"{v}\" is not true or false"),
                    );
                    false
                }
            };
            if let (Some(tid), Some(obj)) = (thread, object) {
                if obj != -1 {
                    let me = self.thread_name_of(tid);
                    let w = self.summary.waits.entry(me).or_default();
                    w.waits += 1;
                    w.waited_ms += waited.unwrap_or(0);
                    w.timed_out += u64::from(timed_out);
                }
            }
        }
        let (Some(tid), Some(obj)) = (thread, object) else {
            return;
        };
        let th = self.threads.get_mut(&tid).expect("live thread");
        let (slot, opening, opener) = match name {
            "monContendedEnter" => (&mut th.contending, true, "monContendedEnter"),
            "monContendedEntered" => (&mut th.contending, false, "monContendedEnter"),
            "monWait" => (&mut th.waiting, true, "monWait"),
            _ => (&mut th.waiting, false, "monWait"),
        };
        let msg = if opening {
            let prev = slot.replace((obj, line));
            prev.map(|(o, l)| {
                format!("<{name}> on object {obj} while thread {tid} is still in the {opener} on object {o} (line {l})")
            })
        } else {
            match slot.take() {
                Some((o, _)) if o == obj => None,
                Some((o, l)) => Some(format!(
                    "<{name}> on object {obj} but the {opener} of thread {tid} (line {l}) was on object {o}"
                )),
                None => Some(format!(
                    "<{name}> on object {obj} without a preceding <{opener}> in thread {tid}"
                )),
            }
        };
        if let Some(msg) = msg {
            self.err(line, Rule::Monitors, msg);
        }
    }

    fn method_count(&mut self, line: u64, attrs: &Attrs) {
        let Some(id) = self.req_u64(line, "methodCount", attrs, "methodIdRef") else {
            return;
        };
        let count = self.req_u64(line, "methodCount", attrs, "count");
        let Some(m) = self.methods.get_mut(&id) else {
            return;
        };
        if m.count_seen {
            let msg = format!("second <methodCount> for {}", self.method_name(id));
            self.err(line, Rule::MethodCount, msg);
            return;
        }
        m.count_seen = true;
        let Some(count) = count else { return };
        m.stats.method_count = Some(count);
        let entries = m.stats.entries;
        // Invocations outside the trace are only possible when traceEnd declares them.
        let declared = self
            .summary
            .end_counts
            .contains_key("invocationsOutsideTrace");
        if !declared && count != entries {
            let msg = format!(
                "<methodCount> count=\"{count}\" for {} but the trace has {entries} methodEntry element(s) for it (rule: count == entries, as traceEnd declares no invocationsOutsideTrace)",
                self.method_name(id)
            );
            self.err(line, Rule::MethodCount, msg);
        } else if count < entries {
            let msg = format!(
                "<methodCount> count=\"{count}\" for {} but the trace has {entries} methodEntry element(s) for it (rule: count >= entries)",
                self.method_name(id)
            );
            self.err(line, Rule::MethodCount, msg);
        } else {
            self.counts_outside += count - entries;
        }
    }

    fn trace_end(&mut self, line: u64) {
        if let Some(l) = self.gc_open {
            self.err(
                line,
                Rule::Gc,
                format!("<traceEnd> inside the GC started at line {l}"),
            );
        }
        let mut running: Vec<(u64, String, u64)> = self
            .threads
            .iter()
            .map(|(id, t)| (*id, t.info.name.clone(), t.start_line))
            .collect();
        running.sort();
        for (id, name, l) in running {
            self.err(
                line,
                Rule::Structure,
                format!(
                    "thread {id} ({name}, started at line {l}) has no threadEnd before <traceEnd>"
                ),
            );
        }
    }

    fn agent_destroy(&mut self, line: u64) {
        let declared = self
            .summary
            .end_counts
            .get("invocationsOutsideTrace")
            .copied()
            .unwrap_or(0);
        if self
            .summary
            .end_counts
            .contains_key("invocationsOutsideTrace")
            && declared != self.counts_outside
        {
            let msg = format!(
                "methodCount elements exceed the methods' entries by {} in all, but traceEnd declares invocationsOutsideTrace={declared}",
                self.counts_outside
            );
            self.err(line, Rule::MethodCount, msg);
        }
        let mut missing: Vec<u64> = self
            .methods
            .iter()
            .filter(|(_, m)| !m.count_seen)
            .map(|(id, _)| *id)
            .collect();
        missing.sort();
        for id in missing {
            let msg = format!(
                "no <methodCount> for {} before <agentDestroy>",
                self.method_name(id)
            );
            self.err(line, Rule::MethodCount, msg);
        }
    }

    fn finish(mut self) -> Summary {
        for (l, msg) in self.integrity.finish() {
            self.err(l, Rule::Nesting, msg);
        }
        self.flush_allocs(None);
        for (name, n) in self.element_counts.drain() {
            self.summary.elements.insert(name.to_string(), n);
        }
        let method_keys: HashMap<u64, String> = self
            .methods
            .iter()
            .map(|(id, m)| (*id, m.key.clone()))
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

fn fmt_time(t: u128) -> String {
    format!("{}.{:09}", t / 1_000_000_000, t % 1_000_000_000)
}

/// Reads the attributes of `e`, checking them against the vocabulary of `name`.
fn read_attrs<'b>(
    st: &mut State,
    line: u64,
    name: &str,
    allowed: Option<&'static [&'static str]>,
    e: &'b BytesStart<'b>,
) -> Attrs<'b> {
    let mut out: Attrs<'b> = Vec::new();
    for a in e.attributes() {
        let a = match a {
            Ok(a) => a,
            Err(err) => {
                st.err(line, Rule::Xml, format!("<{name}>: bad attribute: {err}"));
                continue;
            }
        };
        let key = a.key.as_ref().to_string();
        let Some(allowed) = allowed else { continue };
        let Some(k) = allowed.iter().find(|k| **k == key) else {
            st.err(
                line,
                Rule::Vocabulary,
                format!("<{name}> has attribute {key}, which is not in the vocabulary for {name}"),
            );
            continue;
        };
        match a.normalized_value(XmlVersion::Implicit1_0) {
            Ok(v) => out.push((*k, v)),
            Err(err) => st.err(
                line,
                Rule::Xml,
                format!("<{name}> {key}: bad attribute value: {err}"),
            ),
        }
    }
    if let Some((_, req)) = REQUIRED.iter().find(|(el, _)| *el == name) {
        for key in *req {
            if get(&out, key).is_none() {
                st.err(
                    line,
                    Rule::Attribute,
                    format!("<{name}> lacks required attribute {key}"),
                );
            }
        }
    }
    out
}

pub fn run<R: BufRead>(reader: R) -> Result<Summary, Vec<Violation>> {
    run_with(reader, false).map(|(s, _)| s)
}

/// Like [`run`]; with `prefix_ok`, a document that simply stops before `</TRACE>`
/// (a killed JVM, a full disk) is not a violation: the summary comes with
/// `Some(last line)` to say it was cut short. Everything before the cut is still
/// checked by every rule.
pub fn run_with<R: BufRead>(
    reader: R,
    prefix_ok: bool,
) -> Result<(Summary, Option<u64>), Vec<Violation>> {
    let mut xml = Reader::from_reader(LineCounter::new(reader));
    xml.config_mut().check_end_names = true;
    let mut st = State::new();
    let mut buf = Vec::new();
    let mut open: Vec<String> = Vec::new();
    let mut root_closed = false;
    let mut seen_root = false;
    let mut xml_error = false;
    loop {
        let line = xml.get_ref().newlines() + 1;
        buf.clear();
        let event = match xml.read_event_into(&mut buf) {
            Ok(ev) => ev,
            Err(e) => {
                st.err(line, Rule::Xml, format!("not well-formed XML: {e}"));
                xml_error = true;
                break;
            }
        };
        match event {
            Event::Start(ref e) | Event::Empty(ref e) => {
                let empty = matches!(event, Event::Empty(_));
                let qname = e.name();
                let name: &str = qname.as_ref();
                let known = st.vocab.get_key_value(name).map(|(k, v)| (*k, *v));
                let parent = open.last().map(String::as_str);
                let allowed_here = match (parent, known) {
                    // The hot path: an event directly under TRACE.
                    (Some("TRACE"), Some((k, _))) => !vocab::CHILD_ONLY.contains(&k),
                    _ => vocab::child_allowed(parent, name),
                };
                if root_closed {
                    st.err(line, Rule::Structure, format!("<{name}> after </TRACE>"));
                } else if !allowed_here {
                    let msg = match parent {
                        None => format!("the root element is <{name}>, not <TRACE>"),
                        Some(p) if known.is_none() && name != "TRACE" => {
                            format!("<{name}> (in <{p}>) is not in the TPTP vocabulary")
                        }
                        Some(p) => format!("<{name}> is not allowed inside <{p}>"),
                    };
                    let rule = if parent.is_none() {
                        Rule::Structure
                    } else {
                        Rule::Vocabulary
                    };
                    st.err(line, rule, msg);
                }
                if name == "TRACE" {
                    seen_root = seen_root || parent.is_none();
                    if empty {
                        st.err(line, Rule::Structure, "<TRACE/> is empty".to_string());
                    }
                    for a in e.attributes().flatten() {
                        let key = a.key.as_ref().to_string();
                        st.err(
                            line,
                            Rule::Vocabulary,
                            format!("<TRACE> has attribute {key}; it has none"),
                        );
                    }
                } else {
                    let attrs = read_attrs(&mut st, line, name, known.map(|(_, a)| a), e);
                    if name == "annotation" && parent == Some("classDef") && open.len() == 2 {
                        st.class_annotation(line, &attrs);
                    }
                    if name == "annotation" && parent == Some("traceEnd") {
                        if let (Some(n), Some(v)) = (get(&attrs, "name"), get(&attrs, "value")) {
                            if let Ok(v) = v.parse::<u64>() {
                                st.summary.end_counts.insert(n.to_string(), v);
                            }
                        }
                    }
                    match known {
                        Some((k, _)) if open.len() == 1 && !root_closed => {
                            st.event(line, k, &attrs)
                        }
                        Some((k, _)) => *st.element_counts.entry(k).or_default() += 1,
                        None => {}
                    }
                }
                if !empty {
                    open.push(name.to_string());
                }
            }
            Event::End(_) => {
                let name = open.pop().unwrap_or_default();
                if name == "TRACE" && open.is_empty() {
                    root_closed = true;
                    if st.phase != Phase::AfterAgentDestroy {
                        st.err(
                            line,
                            Rule::Structure,
                            "</TRACE> but the trace does not end with <agentDestroy>".to_string(),
                        );
                    }
                }
            }
            Event::Text(ref t) => {
                if !t.bytes().all(|b| b.is_ascii_whitespace()) {
                    text(&mut st, line, &open, root_closed);
                }
            }
            Event::CData(_) | Event::GeneralRef(_) => text(&mut st, line, &open, root_closed),
            Event::Eof => break,
            Event::Comment(_) | Event::Decl(_) | Event::PI(_) | Event::DocType(_) => {}
        }
        if st.full() {
            break;
        }
    }
    let last_line = xml.get_ref().newlines() + 1;
    let mut cut = None;
    if !st.full() && !xml_error {
        if prefix_ok && !root_closed && st.violations.is_empty() {
            cut = Some(last_line.saturating_sub(1));
        } else if !seen_root {
            st.err(
                last_line,
                Rule::Structure,
                "no <TRACE> root element".to_string(),
            );
        } else if !root_closed {
            st.err(
                last_line,
                Rule::Structure,
                "the document ends before </TRACE> (truncated trace?)".to_string(),
            );
        }
    }
    if st.violations.is_empty() {
        Ok((st.finish(), cut))
    } else {
        Err(st.violations)
    }
}

fn text(st: &mut State, line: u64, open: &[String], root_closed: bool) {
    match open.last() {
        Some(p) if vocab::text_allowed(p) => {}
        Some(p) => st.err(
            line,
            Rule::Vocabulary,
            format!("character data inside <{p}>, which has none"),
        ),
        None if root_closed => st.err(
            line,
            Rule::Structure,
            "character data after </TRACE>".to_string(),
        ),
        None => st.err(
            line,
            Rule::Structure,
            "character data before <TRACE>".to_string(),
        ),
    }
}
