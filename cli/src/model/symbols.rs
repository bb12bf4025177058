//! Names: threads, classes and methods as their definitions arrive, by dense index.

use super::idmap::{FastMap, IdMap};
use super::names::{self, Names};
use crate::read::Fact;

pub const NONE: u32 = u32::MAX;

#[derive(Debug, Clone)]
pub struct ThreadInfo {
    pub id: u64,
    pub name: String,
    pub start: u64,
    pub end: Option<u64>,
    /// Selected by `--thread` (events of other threads are skipped).
    pub included: bool,
    /// Its thread group, when the trace names one (exports only).
    pub group: Option<String>,
}

/// The thread group the JVM gives every virtual thread (JVMTI `GetThreadInfo`).
pub const VIRTUAL_GROUP: &str = "VirtualThreads";

impl ThreadInfo {
    /// A virtual thread: its group is the JVM's group of virtual threads.
    pub fn is_virtual(&self) -> bool {
        self.group.as_deref() == Some(VIRTUAL_GROUP)
    }
}

#[derive(Debug, Clone)]
pub struct MethodInfo {
    /// Dotted class name.
    pub class: String,
    pub name: String,
    /// JNI descriptor.
    pub signature: String,
    /// `Class.method` as the trace spells it (`Demo$Worker.-init-`): what `--method`
    /// patterns match besides the readable names; never shown.
    pub short: String,
    /// The name for people in every view (`--names`): `Demo.Worker.<init>(int)`.
    pub readable: String,
    /// `Class.method(signature)`: what identifies a method across traces.
    pub key: String,
    /// The class's source file, its loader and the method's first line, when the trace
    /// says (exports only).
    pub source: Option<String>,
    pub loader: Option<String>,
    pub first_line: Option<u32>,
    /// The frame name of trees, flame graphs, timelines and sites, in the same naming:
    /// `Demo.Worker.<init>`, or with the parameter types (`Class.method(int)`) when the
    /// class has overloads of it, so that two overloads never look like one method
    /// calling itself.
    pub frame: String,
    /// The class's index ([`NONE`] when the trace never defined it).
    pub class_ix: u32,
}

/// What the trace says about its process and agent (exports only).
#[derive(Debug, Clone, Default)]
pub struct TraceFacts {
    pub uuid: Option<String>,
    pub host: Option<String>,
    pub pid: Option<u64>,
    pub command: Option<String>,
    pub agent_options: Option<String>,
    pub agent_version: Option<String>,
    /// `traceEnd`'s annotations, (name, value) in trace order: what was dropped or
    /// repaired, by cause.
    pub end_notes: Vec<(String, String)>,
    /// `agentCreate`'s annotations, (name, value) in trace order: the JVM's facts
    /// (`java.vm.vendor`, `java.vm.version`, ...); empty in a trace from before them.
    pub jvm: Vec<(String, String)>,
}

impl TraceFacts {
    /// The JVM fact `name` (a system property such as `java.vm.version`), when recorded.
    pub fn jvm(&self, name: &str) -> Option<&str> {
        self.jvm
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// The number of `traceEnd`'s annotation `name`, when the trace has it.
    pub fn end_count(&self, name: &str) -> Option<u64> {
        self.end_notes
            .iter()
            .find(|(n, _)| n == name)
            .and_then(|(_, v)| v.parse().ok())
    }
}

impl MethodInfo {
    pub fn new(names: Names, class: &str, name: &str, signature: &str) -> MethodInfo {
        MethodInfo {
            class: class.to_string(),
            name: name.to_string(),
            signature: signature.to_string(),
            short: [class, ".", name].concat(),
            key: [class, ".", name, signature].concat(),
            readable: names.method(class, name, signature),
            source: None,
            loader: None,
            first_line: None,
            frame: names.frame(class, name),
            class_ix: NONE,
        }
    }
}

impl MethodInfo {
    /// Whether a `--method` test accepts this method under any of its names: the
    /// trace's `Class.method` or `Class.method(descriptor)`, or the readable name or
    /// frame (`Demo.Worker.<init>(int)`, `Demo.Worker.<init>`).
    pub fn named(&self, ok: &dyn Fn(&str) -> bool) -> bool {
        ok(&self.short) || ok(&self.key) || ok(&self.readable) || ok(&self.frame)
    }
}

/// What a class's definition says beyond its name (for coverage).
#[derive(Debug, Clone, Default)]
pub struct ClassExtra {
    /// `sourceName` (the SourceFile attribute; "" if none).
    pub source: String,
    /// `methodNames` annotation: `name(sig)ret` per method in class-file order.
    pub method_names: String,
    /// `methodLineTables` annotation (Probekit encoding).
    pub line_tables: String,
    /// `classLoader` ("" if the trace names none).
    pub loader: String,
}

pub struct Symbols {
    /// The trace's start (its first thread or `traceStart`, ns since the epoch): the
    /// origin of the relative times every output shows.
    pub start: u64,
    /// The selected time window in ns since the epoch (everything without one).
    pub window: (u64, u64),
    pub threads: Vec<ThreadInfo>,
    thread_ids: IdMap,
    pub classes: Vec<String>,
    class_ids: IdMap,
    pub methods: Vec<MethodInfo>,
    method_ids: IdMap,
    pub trace: TraceFacts,
    /// `Class.method` -> the first method index of that name (for overloads).
    by_short: FastMap<String, u32>,
    /// A class's simple name -> the first class of that name, and whether another
    /// class shares it (then their methods name their class in full).
    by_simple: FastMap<String, (String, bool)>,
    /// By class index (shorter than `classes` when the trace gave none).
    pub class_extra: Vec<ClassExtra>,
    /// How methods and classes are named for people (`--names`, `--inner`); set
    /// before the first definition arrives.
    pub names: Names,
}

impl Default for Symbols {
    fn default() -> Symbols {
        Symbols {
            start: 0,
            window: (0, u64::MAX),
            threads: Vec::new(),
            thread_ids: IdMap::default(),
            classes: Vec::new(),
            class_ids: IdMap::default(),
            methods: Vec::new(),
            method_ids: IdMap::default(),
            trace: TraceFacts::default(),
            by_short: FastMap::default(),
            by_simple: FastMap::default(),
            class_extra: Vec::new(),
            names: Names::default(),
        }
    }
}

impl Symbols {
    pub fn thread(&self, id: u64) -> Option<u32> {
        self.thread_ids.get(id)
    }

    /// Defines (or redefines: the agent never reuses ids, but a hand-made trace might) a thread.
    pub fn add_thread(&mut self, info: ThreadInfo) -> u32 {
        let ix = self.threads.len() as u32;
        self.thread_ids.insert(info.id, ix);
        self.threads.push(info);
        ix
    }

    pub fn add_class(&mut self, id: u64, name: &str) {
        match self.class_ids.get(id) {
            Some(ix) => self.classes[ix as usize] = name.to_string(),
            None => {
                self.class_ids.insert(id, self.classes.len() as u32);
                self.classes.push(name.to_string());
            }
        }
        let simple = names::simple(name);
        match self.by_simple.get_mut(simple) {
            None => {
                self.by_simple
                    .insert(simple.to_string(), (name.to_string(), false));
            }
            Some((first, shared)) if !*shared && first != name => {
                // Two classes, one simple name (`a.Block`, `b.Block`): from now on
                // both name their class in full, the methods already defined too.
                *shared = true;
                let simple = simple.to_string();
                for i in 0..self.methods.len() {
                    let m = &self.methods[i];
                    if names::simple(&m.class) == simple {
                        let again = MethodInfo::new(
                            self.names.qualified(),
                            &m.class,
                            &m.name,
                            &m.signature,
                        );
                        let m = &mut self.methods[i];
                        let overloaded = m.frame == m.readable;
                        m.readable = again.readable;
                        m.frame = if overloaded {
                            m.readable.clone()
                        } else {
                            again.frame
                        };
                    }
                }
            }
            Some(_) => {}
        }
    }

    /// The names a method of `class` is given: in full where its simple name is shared.
    fn names_for(&self, class: &str) -> Names {
        match self.by_simple.get(names::simple(class)) {
            Some((_, true)) => self.names.qualified(),
            _ => self.names,
        }
    }

    /// Records `sourceName`, `methodNames` or `methodLineTables` of class `id`.
    pub fn add_class_annotation(&mut self, id: u64, name: &str, value: &str) {
        let Some(e) = self.extra_mut(id) else { return };
        match name {
            "sourceName" => e.source = value.to_string(),
            "methodNames" => e.method_names = value.to_string(),
            "methodLineTables" => e.line_tables = value.to_string(),
            _ => {}
        }
    }

    /// What class `id`'s definition says beyond its name (None: no such class).
    fn extra_mut(&mut self, id: u64) -> Option<&mut ClassExtra> {
        let ix = self.class(id)? as usize;
        if self.class_extra.len() <= ix {
            self.class_extra.resize(ix + 1, ClassExtra::default());
        }
        Some(&mut self.class_extra[ix])
    }

    pub fn class(&self, id: u64) -> Option<u32> {
        self.class_ids.get(id)
    }

    pub fn class_name(&self, ix: u32) -> &str {
        self.classes.get(ix as usize).map_or("?", String::as_str)
    }

    pub fn add_method(&mut self, id: u64, class_id: u64, name: &str, signature: &str) {
        let class_ix = self.class(class_id).unwrap_or(NONE);
        let class = if class_ix == NONE {
            "?"
        } else {
            self.class_name(class_ix)
        };
        let mut info = MethodInfo::new(self.names_for(class), class, name, signature);
        if let Some(e) = self
            .class(class_id)
            .and_then(|c| self.class_extra.get(c as usize))
        {
            let known = |v: &str| (!v.is_empty()).then(|| v.to_string());
            info.source = known(&e.source);
            info.loader = known(&e.loader);
        }
        info.class_ix = class_ix;
        let ix = match self.method_ids.get(id) {
            Some(ix) => ix,
            None => {
                self.method_ids.insert(id, self.methods.len() as u32);
                self.methods.len() as u32
            }
        };
        // An overload (same class and name, another descriptor): both frames name
        // their parameters.
        match self.by_short.get(&info.short).copied() {
            Some(first) if first != ix => {
                let f = &mut self.methods[first as usize];
                if f.signature != signature {
                    f.frame = f.readable.clone();
                    info.frame = info.readable.clone();
                }
            }
            Some(_) => {}
            None => {
                self.by_short.insert(info.short.clone(), ix);
            }
        }
        if (ix as usize) < self.methods.len() {
            self.methods[ix as usize] = info;
        } else {
            self.methods.push(info);
        }
    }

    /// Records what an [`Event::Fact`](crate::read::Event::Fact) tells.
    pub fn fact(&mut self, fact: Fact, value: &str) {
        let text = Some(value.to_string());
        match fact {
            Fact::Host => self.trace.host = text,
            Fact::Pid => self.trace.pid = value.parse().ok(),
            Fact::Command => self.trace.command = text,
            Fact::AgentOptions => self.trace.agent_options = text,
            Fact::AgentVersion => self.trace.agent_version = text,
            Fact::TraceUuid => self.trace.uuid = text,
            Fact::ClassSource(id) => self.add_class_annotation(id, "sourceName", value),
            Fact::ClassLoader(id) => {
                if let Some(e) = self.extra_mut(id) {
                    e.loader = value.to_string();
                }
            }
            Fact::ThreadGroup(id) => {
                if let Some(t) = self.thread(id) {
                    self.threads[t as usize].group = text;
                }
            }
            Fact::MethodFirstLine(id) => {
                if let Some(m) = self.method_ids.get(id) {
                    self.methods[m as usize].first_line = value.parse().ok();
                }
            }
        }
    }

    /// The method's index; a method the trace never defined gets a placeholder name.
    #[inline]
    pub fn method_or_placeholder(&mut self, id: u64) -> u32 {
        if let Some(ix) = self.method_ids.get(id) {
            return ix;
        }
        self.placeholder(id)
    }

    #[inline(never)]
    fn placeholder(&mut self, id: u64) -> u32 {
        self.add_method(id, 0, &format!("method#{id}"), "");
        self.method_ids.get(id).unwrap_or(0)
    }

    /// How long of `[start, end]` lies in the window (`--from/--to`), and whether it
    /// overlaps it at all.
    #[inline]
    pub fn clip(&self, start: u64, end: u64) -> (u64, bool) {
        let (ws, we) = self.window;
        let s = start.max(ws);
        let e = end.min(we);
        (e.saturating_sub(s), start <= we && end >= ws)
    }

    pub fn method(&self, ix: u32) -> &MethodInfo {
        &self.methods[ix as usize]
    }

    /// Where something happened: the method's frame name, with `:line` when known
    /// (`Demo.parse:24`); `?` for no method.
    pub fn site(&self, m: Option<u32>, line: u32) -> String {
        match m {
            Some(m) if m != NONE && line > 0 => format!("{}:{line}", self.method(m).frame),
            Some(m) if m != NONE => self.method(m).frame.clone(),
            _ => "?".to_string(),
        }
    }

    /// The name an allocation's class is shown with: the trace names an array's
    /// element class (`int`, `java.lang.String`, `[LItem;`), shown as the array's
    /// Java name (`int[]`, `java.lang.String[]`, `Item[][]`).
    pub fn alloc_class(&self, class: u32, is_array: u8) -> String {
        let base = if class == NONE {
            "?"
        } else {
            self.class_name(class)
        };
        if is_array == 0 {
            base.to_string()
        } else {
            trace::render::names::array_name(base, is_array)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A thread's group reaches its thread (a virtual one's marks it virtual); a group of
    /// a thread never started is ignored; traceEnd's counts are read by name.
    #[test]
    fn thread_groups_and_end_counts() {
        let mut s = Symbols::default();
        for (id, name) in [(5, "main"), (6, "vt-1")] {
            s.add_thread(ThreadInfo {
                id,
                name: name.into(),
                start: 0,
                end: None,
                included: true,
                group: None,
            });
        }
        s.fact(Fact::ThreadGroup(5), "main");
        s.fact(Fact::ThreadGroup(6), VIRTUAL_GROUP);
        s.fact(Fact::ThreadGroup(77), "never started: ignored");
        assert_eq!(s.threads[0].group.as_deref(), Some("main"));
        assert!(!s.threads[0].is_virtual());
        assert!(s.threads[1].is_virtual());
        s.trace.end_notes = vec![
            ("droppedRecordBytes".into(), "12".into()),
            ("uninstrumentedClass".into(), "a.B: too large".into()),
        ];
        assert_eq!(s.trace.end_count("droppedRecordBytes"), Some(12));
        assert_eq!(s.trace.end_count("uninstrumentedClass"), None);
        assert_eq!(s.trace.end_count("recordsOfUnknownThreads"), None);
    }

    /// A class's facts reach the methods defined after it; a method's first line, the
    /// trace's facts land where exports read them.
    #[test]
    fn facts_reach_methods_and_the_trace() {
        let mut s = Symbols::default();
        s.add_class(7, "a.B");
        s.fact(Fact::ClassSource(7), "B.java");
        s.fact(Fact::ClassLoader(7), "app");
        s.fact(Fact::ClassSource(99), "unknown class: ignored");
        s.add_method(3, 7, "run", "()V");
        s.fact(Fact::MethodFirstLine(3), "42");
        s.fact(Fact::Pid, "1234");
        s.fact(Fact::TraceUuid, "u-1");
        let ix = s.method_or_placeholder(3);
        let m = s.method(ix);
        assert_eq!(m.key, "a.B.run()V");
        assert_eq!(m.source.as_deref(), Some("B.java"));
        assert_eq!(m.loader.as_deref(), Some("app"));
        assert_eq!(m.first_line, Some(42));
        assert_eq!(s.trace.pid, Some(1234));
        assert_eq!(s.trace.uuid.as_deref(), Some("u-1"));
    }

    /// One naming everywhere: rows, frames and sites of a nested class's constructor
    /// read as Java writes them, overloads keep their parameters in frames.
    /// Two classes of one simple name name their class in full in every view, methods
    /// defined before the second class arrived too; other classes stay short.
    #[test]
    fn classes_sharing_a_simple_name_are_told_apart() {
        let mut s = Symbols::default();
        s.add_class(1, "a.Block");
        s.add_class(2, "c.Other");
        s.add_method(1, 1, "run", "(I)I");
        s.add_method(2, 1, "run", "(J)J");
        s.add_method(3, 2, "go", "()V");
        assert_eq!(s.method(0).readable, "Block.run(int)");
        s.add_class(3, "b.Block");
        s.add_method(4, 3, "run", "(I)I");
        let names: Vec<(&str, &str)> = s
            .methods
            .iter()
            .map(|m| (m.readable.as_str(), m.frame.as_str()))
            .collect();
        assert_eq!(
            names,
            [
                ("a.Block.run(int)", "a.Block.run(int)"),
                ("a.Block.run(long)", "a.Block.run(long)"),
                ("Other.go()", "Other.go"),
                ("b.Block.run(int)", "b.Block.run"),
            ]
        );
    }

    #[test]
    fn readable_frames_and_sites() {
        let mut s = Symbols::default();
        s.add_class(1, "a.Demo$Worker");
        s.add_method(1, 1, "-init-", "(I)V");
        s.add_method(2, 1, "run", "()V");
        s.add_method(3, 1, "run", "(J)V");
        let init = s.method_or_placeholder(1);
        assert_eq!(s.method(init).readable, "Demo.Worker.<init>(int)");
        assert_eq!(s.method(init).frame, "Demo.Worker.<init>");
        assert_eq!(s.site(Some(init), 12), "Demo.Worker.<init>:12");
        assert!(s.method(init).named(&|n| n == "a.Demo$Worker.-init-"));
        let (a, b) = (s.method_or_placeholder(2), s.method_or_placeholder(3));
        assert_eq!(s.method(a).frame, "Demo.Worker.run()");
        assert_eq!(s.method(b).frame, "Demo.Worker.run(long)");
        let mut j = Symbols::default();
        j.names.style = super::super::names::Style::Jvm;
        j.add_class(1, "a.Demo$Worker");
        j.add_method(1, 1, "-init-", "(I)V");
        let init = j.method_or_placeholder(1);
        assert_eq!(j.method(init).readable, "a/Demo$Worker.<init>(I)V");
        assert_eq!(j.method(init).frame, "a/Demo$Worker.<init>");
    }
}
