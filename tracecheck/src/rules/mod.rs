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

use crate::attrs::{get, parse_time, Attrs};
use crate::model::State;
use crate::Rule;

impl State {
    pub(crate) fn event(&mut self, line: u64, name: &'static str, attrs: &Attrs) {
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
}
