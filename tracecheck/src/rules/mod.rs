//! The rules, one module per family, and `State::event`, which applies them to each element directly under `TRACE`.
//!
//! `event` runs the generic checks (structure, the hierarchy of ids, time, references to
//! threads, classes, methods and objects) and then the element's own rules. A new rule
//! family is a new file here with an `impl State` block, called from `event`.

pub(crate) mod calls;
mod classes;
mod end;
mod gc;
mod monitors;
pub(crate) mod objects;
pub(crate) mod refs;
pub(crate) mod structure;
mod threads;
pub(crate) mod windows;

use crate::attrs::{get, parse_time, Attrs, Call};
use crate::model::{Phase, State};
use crate::violation::Rule;

/// Elements (other than calls, which need their thread anyway) that TPTP's importer
/// files under the thread their `threadIdRef` names, inventing a thread `unknown0`
/// when it is absent: a jtrace trace names a defined thread on each (the collector's
/// and the virtual machine's where no Java thread can be named).
const FILED_UNDER_A_THREAD: [&str; 11] = [
    "classDef",
    "objAlloc",
    "objFree",
    "gcStart",
    "gcFinish",
    "runtimeShutdown",
    "throw",
    "catch",
    "monWait",
    "monWaited",
    "monContendedEnter",
];

impl State {
    pub(crate) fn event(&mut self, line: u64, name: &'static str, attrs: &Attrs) {
        if let Some(entry) = call_kind(name) {
            let call = self.call_of(line, entry, attrs);
            return self.call(line, entry, &call, attrs);
        }
        *self.element_counts.entry(name).or_default() += 1;
        self.structure(line, name);
        self.hierarchy(line, name, attrs);
        let time = self.time_of(line, name, attrs);

        if FILED_UNDER_A_THREAD.contains(&name) && get(attrs, "threadIdRef").is_none() {
            self.err(
                line,
                Rule::Attribute,
                format!(
                    "<{name}> lacks threadIdRef: TPTP's importer files it under a thread \
                     and invents one (unknown0)"
                ),
            );
        }
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
            "gcStart" | "gcFinish" => self.gc_bracket(line, name, attrs),
            "monContendedEnter" | "monContendedEntered" | "monWait" | "monWaited" => {
                self.monitor(line, name, attrs, thread, object)
            }
            "methodCount" => self.method_count(line, attrs),
            "traceEnd" => self.trace_end(line),
            "tag" => self.tag(line, get(attrs, "name"), get(attrs, "value")),
            "agentDestroy" => self.agent_destroy(line),
            "option" => {
                if let (Some(k), Some(v)) = (get(attrs, "key"), get(attrs, "value")) {
                    self.summary.options.insert(k.to_string(), v.to_string());
                }
            }
            _ => {}
        }
    }
}

/// `Some(true)` for methodEntry, `Some(false)` for methodExit: the elements the call
/// rules read typed ([`Call`]).
pub(crate) fn call_kind(name: &str) -> Option<bool> {
    match name {
        "methodEntry" => Some(true),
        "methodExit" => Some(false),
        _ => None,
    }
}

impl State {
    /// The element's `time`, parsed (a malformed one is reported).
    fn time_of(&mut self, line: u64, name: &str, attrs: &Attrs) -> Option<u128> {
        let raw = get(attrs, "time")?;
        let t = parse_time(raw);
        if t.is_none() {
            self.err(
                line,
                Rule::Time,
                format!("<{name}> time=\"{raw}\" is not seconds with nine fractional digits"),
            );
        }
        t
    }

    /// A methodEntry (`entry`) or methodExit read as text, parsed: attributes missing
    /// or not numbers are reported here.
    pub(crate) fn call_of(&mut self, line: u64, entry: bool, attrs: &Attrs) -> Call {
        let el = call_name(entry);
        let time = self.time_of(line, el, attrs);
        let thread = self.opt_u64(line, el, attrs, "threadIdRef");
        let method = self.req_u64(line, el, attrs, "methodIdRef");
        let ticket = self.req_u64(line, el, attrs, "ticket");
        let (class, depth) = if entry {
            // stackDepth is xsd:short: required up to 32767, absent on deeper frames
            // (the entry rule says so, knowing the depth).
            let depth = self.opt_u64(line, el, attrs, "stackDepth");
            (self.req_u64(line, el, attrs, "classIdRef"), depth)
        } else {
            (self.opt_u64(line, el, attrs, "classIdRef"), None)
        };
        Call {
            thread,
            method,
            class,
            ticket,
            depth,
            time,
        }
    }

    /// The rules of a methodEntry (`entry`) or methodExit: the generic checks of
    /// [`State::event`] on its parsed values, then the call rules. `rest` are its
    /// attributes as text, of which only `traceIdRef` and `objIdRef` are read here
    /// (empty from a typed producer, which writes neither).
    pub(crate) fn call(&mut self, line: u64, entry: bool, call: &Call, rest: &Attrs) {
        let name = call_name(entry);
        self.call_counts[entry as usize] += 1;
        if self.phase != Phase::Body {
            // In the body, calls are never out of place (`structure` says nothing).
            self.structure(line, name);
        }
        if !rest.is_empty() {
            self.hierarchy(line, name, rest);
            self.object_ref(line, name, rest);
        }
        let thread = self.thread_id_ref(line, name, "threadIdRef", call.thread, call.time);
        self.class_id_ref(line, name, "classIdRef", call.class, false);
        self.method_id_ref(line, name, "methodIdRef", call.method, false, false);
        for (l, msg) in self.integrity.element(name) {
            self.err(l, Rule::Nesting, msg);
        }
        if entry {
            if let Some(tid) = thread {
                self.window_entry(line, tid);
            }
            self.method_entry(line, call, thread)
        } else {
            self.method_exit(line, call, thread)
        }
    }
}

fn call_name(entry: bool) -> &'static str {
    if entry {
        "methodEntry"
    } else {
        "methodExit"
    }
}
