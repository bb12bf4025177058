//! The replay's typed events: one variant per trace element an analysis uses, times in
//! nanoseconds since the Unix epoch, ids as the trace writes them; [`EventOut`] turns
//! the renderer's elements into them, with no XML in between.
//!
//! The `jtrace` command reads a `.jtr` through this stream and an XML document into
//! the same events (its XML reader), so every answer is the same for both.

use crate::render::output::{Output, Piece, Pieces};
use std::borrow::Cow;

/// One element of a trace (elements no analysis needs are not turned into events).
#[derive(Debug, Clone, PartialEq)]
pub enum Event<'a> {
    TraceStart {
        time: u64,
    },
    TraceEnd {
        time: u64,
    },
    /// `processCreate`: the traced JVM's process and its command line.
    Process {
        pid: u64,
        command: Cow<'a, str>,
    },
    /// `agentCreate`: the agent's option string as given, and its version.
    Agent {
        parameters: Cow<'a, str>,
        version: Cow<'a, str>,
    },
    /// An `annotation` of `agentCreate`: one fact of the traced JVM, named as its system
    /// property (`java.vm.vendor`, `java.vm.name`, `java.vm.version`, `java.home`, ...).
    Jvm {
        name: Cow<'a, str>,
        value: Cow<'a, str>,
    },
    /// `option`: one agent option in force.
    AgentOption {
        key: Cow<'a, str>,
        value: Cow<'a, str>,
    },
    /// An `annotation` of `traceEnd`: what was dropped or repaired, by cause, or a note.
    Annotation {
        name: Cow<'a, str>,
        value: Cow<'a, str>,
    },
    ThreadStart {
        id: u64,
        time: u64,
        name: Cow<'a, str>,
    },
    ThreadEnd {
        id: u64,
        time: u64,
    },
    ClassDef {
        id: u64,
        name: Cow<'a, str>,
    },
    MethodDef {
        id: u64,
        class: u64,
        name: Cow<'a, str>,
        signature: Cow<'a, str>,
    },
    /// An object first named by something other than its allocation; `class` 0 if unknown.
    ObjDef {
        obj: u64,
        class: u64,
    },
    ObjFree {
        obj: u64,
    },
    Entry {
        thread: u64,
        method: u64,
        ticket: u64,
        time: u64,
    },
    Exit {
        thread: u64,
        method: u64,
        ticket: u64,
        time: u64,
    },
    /// An exception passing through a traced frame (the catching frame included).
    Throw {
        thread: u64,
        obj: u64,
        method: u64,
        ticket: u64,
        time: u64,
    },
    Catch {
        thread: u64,
        obj: u64,
        method: u64,
        ticket: u64,
        time: u64,
    },
    Line {
        thread: u64,
        method: u64,
        line: u32,
        time: u64,
    },
    /// `class` 0: none named; `site_method` 0: no allocating method known.
    Alloc {
        thread: u64,
        obj: u64,
        class: u64,
        is_array: u8,
        size: u64,
        site_method: u64,
        site_line: u32,
        time: u64,
    },
    GcStart {
        time: u64,
    },
    GcFinish {
        time: u64,
    },
    ContendedEnter {
        thread: u64,
        obj: u64,
        owner: u64,
        time: u64,
    },
    ContendedEntered {
        thread: u64,
        obj: u64,
        time: u64,
    },
    Wait {
        thread: u64,
        obj: u64,
        time: u64,
    },
    Waited {
        thread: u64,
        obj: u64,
        time: u64,
    },
    /// A `tag` the application wrote (the JUnit listener's test marks): its name and
    /// key/value pairs, on `thread` at `time`.
    Tag {
        thread: u64,
        time: u64,
        name: Cow<'a, str>,
        fields: Vec<(String, String)>,
    },
    /// A class's `annotation` (`methodNames`, `methodLineTables`: the lines each method
    /// could run), and its `sourceName`.
    ClassAnnotation {
        class: u64,
        name: Cow<'a, str>,
        value: Cow<'a, str>,
    },
    /// A fact no analysis of calls needs, kept for exports (`jtrace parquet`'s `trace` and
    /// `methods` tables); the element's own event, if any, comes first.
    Fact {
        fact: Fact,
        value: Cow<'a, str>,
    },
}

impl Event<'_> {
    /// The start or end of the thread that stands for the virtual machine
    /// (`render::VM_THREAD_ID`), which the format defines for TPTP's importer and which
    /// holds nothing a reader of calls counts.
    #[inline]
    pub fn of_vm_thread(&self) -> bool {
        const VM: u64 = crate::render::VM_THREAD_ID as u64;
        matches!(
            self,
            Event::ThreadStart { id: VM, .. } | Event::ThreadEnd { id: VM, .. }
        )
    }
}

/// What an [`Event::Fact`] tells (ids as the trace writes them).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fact {
    Host,
    Pid,
    /// The JVM's command line.
    Command,
    AgentOptions,
    AgentVersion,
    /// The trace's own id (`traceStart traceId`).
    TraceUuid,
    ClassSource(u64),
    ClassLoader(u64),
    MethodFirstLine(u64),
    /// A thread's group (`threadStart groupName`; a virtual thread's is `VirtualThreads`),
    /// by the thread's id.
    ThreadGroup(u64),
}

/// Which attribute of which element carries which fact (given the element's classId,
/// methodId or threadId): one table for both front ends (the XML reader and [`EventOut`]).
type FactOf = fn(u64) -> Fact;
const FACTS: [(&str, &str, FactOf); 10] = [
    ("node", "hostname", |_| Fact::Host),
    ("processCreate", "pid", |_| Fact::Pid),
    ("processCreate", "application_executable", |_| Fact::Command),
    ("agentCreate", "agentParameters", |_| Fact::AgentOptions),
    ("agentCreate", "version", |_| Fact::AgentVersion),
    ("traceStart", "traceId", |_| Fact::TraceUuid),
    ("classDef", "sourceName", Fact::ClassSource),
    ("classDef", "classLoader", Fact::ClassLoader),
    ("methodDef", "startLineNumber", Fact::MethodFirstLine),
    ("threadStart", "groupName", Fact::ThreadGroup),
];

impl Fact {
    /// The attributes of `element` that carry facts (none for most elements).
    pub fn attributes(element: &str) -> impl Iterator<Item = &'static str> + '_ {
        FACTS
            .iter()
            .filter(move |(e, _, _)| *e == element)
            .map(|&(_, a, _)| a)
    }

    /// `element` as the table spells it, when it carries facts.
    pub fn element(element: &str) -> Option<&'static str> {
        FACTS
            .iter()
            .find(|(e, _, _)| *e == element)
            .map(|&(e, _, _)| e)
    }

    /// The fact an attribute of `element` carries, if any (`id`: the element's
    /// classId or methodId, which the class and method facts name).
    pub fn of(element: &str, attribute: &str, id: u64) -> Option<Fact> {
        FACTS
            .iter()
            .find(|(e, a, _)| *e == element && *a == attribute)
            .map(|(_, _, f)| f(id))
    }
}

/// Digits as a number (at most 20, no sign).
pub fn parse_u64(b: &[u8]) -> Option<u64> {
    if b.is_empty() || b.len() > 20 {
        return None;
    }
    // Up to 19 digits cannot overflow: eight at a time, then the rest one by one
    // (every time attribute of an XML trace is two numbers of nine and ten digits).
    let (mut v, mut rest) = (0u64, b);
    if b.len() <= 19 {
        while let Some((head, tail)) = rest.split_first_chunk::<8>() {
            v = v * 100_000_000 + eight_digits(*head)?;
            rest = tail;
        }
        for &c in rest {
            let d = c.wrapping_sub(b'0');
            if d > 9 {
                return None;
            }
            v = v * 10 + d as u64;
        }
        return Some(v);
    }
    for &c in rest {
        if !c.is_ascii_digit() {
            return None;
        }
        v = v.checked_mul(10)?.checked_add((c - b'0') as u64)?;
    }
    Some(v)
}

/// Eight ASCII digits as their number, all in one word (None if any is not a digit).
#[inline]
fn eight_digits(b: [u8; 8]) -> Option<u64> {
    let w = u64::from_le_bytes(b);
    let d = w.wrapping_sub(0x3030_3030_3030_3030);
    // Each byte a digit: its high nibble was 3 and it stays at most 9 (adding 6 keeps
    // it below 16).
    let high = (w & 0xF0F0_F0F0_F0F0_F0F0) ^ 0x3030_3030_3030_3030;
    let over = d.wrapping_add(0x0606_0606_0606_0606) & 0xF0F0_F0F0_F0F0_F0F0;
    if high | over != 0 {
        return None;
    }
    // Pairs, then fours, then the eight (the first digit is the lowest byte).
    let d = (d * 10 + (d >> 8)) & 0x00FF_00FF_00FF_00FF;
    let d = (d * 100 + (d >> 16)) & 0x0000_FFFF_0000_FFFF;
    Some((d * 10_000 + (d >> 32)) & 0xFFFF_FFFF)
}

/// `seconds.fraction` (up to nine fractional digits) as nanoseconds since the epoch.
pub fn parse_time(b: &[u8]) -> Option<u64> {
    let (secs, frac) = match b.iter().position(|&c| c == b'.') {
        Some(i) => (&b[..i], &b[i + 1..]),
        None => (b, &b[..0]),
    };
    if frac.len() > 9 {
        return None;
    }
    let mut ns = if frac.is_empty() { 0 } else { parse_u64(frac)? };
    for _ in frac.len()..9 {
        ns *= 10;
    }
    parse_u64(secs)?.checked_mul(1_000_000_000)?.checked_add(ns)
}

/// The event of a `tag` element: its value is a JSON object with `threadIdRef`, `time`
/// and the application's pairs (docs/TRACE_FORMAT.md). Tags of other producers (no such
/// object) are not events. One reading for both front ends.
pub fn tag_event<'a>(name: Cow<'a, str>, value: &str) -> Option<Event<'a>> {
    let Ok(serde_json::Value::Object(map)) = serde_json::from_str::<serde_json::Value>(value)
    else {
        return None;
    };
    let thread = map.get("threadIdRef").and_then(serde_json::Value::as_u64);
    let time = map
        .get("time")
        .and_then(serde_json::Value::as_str)
        .and_then(|t| parse_time(t.as_bytes()));
    let (Some(thread), Some(time)) = (thread, time) else {
        return None;
    };
    let fields = map
        .iter()
        .filter(|(k, _)| !matches!(k.as_str(), "threadIdRef" | "time"))
        .map(|(k, v)| {
            let v = v.as_str().map_or_else(|| v.to_string(), str::to_string);
            (k.clone(), v)
        })
        .collect();
    Some(Event::Tag {
        thread,
        time,
        name,
        fields,
    })
}

/// Which element is being received (only those that become events).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    Other,
    Process,
    Agent,
    AgentOption,
    Annotation,
    /// An `annotation` of a `classDef`.
    ClassAnnotation,
    /// An `annotation` of `agentCreate` (a JVM fact).
    Jvm,
    Tag,
    TraceStart,
    TraceEnd,
    ThreadStart,
    ThreadEnd,
    ClassDef,
    MethodDef,
    ObjDef,
    ObjFree,
    Exit,
    Throw,
    Catch,
    Alloc,
    GcStart,
    GcFinish,
    ContendedEnter,
    ContendedEntered,
    Wait,
    Waited,
}

impl Kind {
    fn of(name: &str) -> Kind {
        match name {
            "processCreate" => Kind::Process,
            "agentCreate" => Kind::Agent,
            "option" => Kind::AgentOption,
            "traceStart" => Kind::TraceStart,
            "traceEnd" => Kind::TraceEnd,
            "threadStart" => Kind::ThreadStart,
            "threadEnd" => Kind::ThreadEnd,
            "classDef" => Kind::ClassDef,
            "methodDef" => Kind::MethodDef,
            "objDef" => Kind::ObjDef,
            "objFree" => Kind::ObjFree,
            "methodExit" => Kind::Exit,
            "throw" => Kind::Throw,
            "catch" => Kind::Catch,
            "objAlloc" => Kind::Alloc,
            "gcStart" => Kind::GcStart,
            "gcFinish" => Kind::GcFinish,
            "monContendedEnter" => Kind::ContendedEnter,
            "monContendedEntered" => Kind::ContendedEntered,
            "monWait" => Kind::Wait,
            "monWaited" => Kind::Waited,
            "tag" => Kind::Tag,
            _ => Kind::Other,
        }
    }
}

/// The attributes of the element being received, by meaning (absent: 0 or empty, as
/// the XML reader reads an absent optional attribute).
#[derive(Default)]
struct Element {
    thread: u64,
    id: u64,
    method: u64,
    class: u64,
    ticket: u64,
    time: u64,
    obj: u64,
    owner: u64,
    is_array: u64,
    size: u64,
    site_method: u64,
    site_line: u64,
    line: u64,
    name: String,
    signature: String,
}

/// An [`Output`] that hands each element an analysis uses to `f` as an [`Event`].
pub struct EventOut<F: FnMut(&Event)> {
    f: F,
    depth: u32,
    kind: Kind,
    /// The element whose children are being received (depth 2), and its id.
    parent: Kind,
    parent_id: u64,
    el: Element,
    /// The depth-1 element being received when it carries facts (see [`Fact`]), and
    /// its fact-carrying attributes, emitted after its own event.
    fact_el: Option<&'static str>,
    fact_attrs: Vec<(&'static str, String)>,
    elements: u64,
    /// `</TRACE>` was reached.
    pub complete: bool,
}

impl<F: FnMut(&Event)> EventOut<F> {
    pub fn new(f: F) -> Self {
        EventOut {
            f,
            depth: 0,
            kind: Kind::Other,
            parent: Kind::Other,
            parent_id: 0,
            el: Element::default(),
            fact_el: None,
            fact_attrs: Vec::new(),
            elements: 0,
            complete: false,
        }
    }

    /// The element received, as its event (depth 1, and traceEnd's annotations).
    fn emit(&mut self) {
        let nested = matches!(
            self.kind,
            Kind::Annotation | Kind::ClassAnnotation | Kind::Jvm
        );
        if self.kind == Kind::Other || (self.depth != 1 && !nested) {
            return;
        }
        let e = &self.el;
        let ev = match self.kind {
            Kind::Other => return,
            Kind::Process => Event::Process {
                pid: e.id,
                command: Cow::Borrowed(&e.name),
            },
            Kind::Agent => Event::Agent {
                parameters: Cow::Borrowed(&e.name),
                version: Cow::Borrowed(&e.signature),
            },
            Kind::AgentOption => Event::AgentOption {
                key: Cow::Borrowed(&e.name),
                value: Cow::Borrowed(&e.signature),
            },
            Kind::Annotation => Event::Annotation {
                name: Cow::Borrowed(&e.name),
                value: Cow::Borrowed(&e.signature),
            },
            Kind::Jvm => Event::Jvm {
                name: Cow::Borrowed(&e.name),
                value: Cow::Borrowed(&e.signature),
            },
            Kind::ClassAnnotation => Event::ClassAnnotation {
                class: self.parent_id,
                name: Cow::Borrowed(&e.name),
                value: Cow::Borrowed(&e.signature),
            },
            Kind::Tag => match tag_event(Cow::Borrowed(&e.name), &e.signature) {
                Some(ev) => ev,
                None => return,
            },
            Kind::TraceStart => Event::TraceStart { time: e.time },
            Kind::TraceEnd => Event::TraceEnd { time: e.time },
            Kind::ThreadStart => Event::ThreadStart {
                id: e.id,
                time: e.time,
                name: Cow::Borrowed(&e.name),
            },
            Kind::ThreadEnd => Event::ThreadEnd {
                id: e.thread,
                time: e.time,
            },
            Kind::ClassDef => Event::ClassDef {
                id: e.id,
                name: Cow::Borrowed(&e.name),
            },
            Kind::MethodDef => Event::MethodDef {
                id: e.id,
                class: e.class,
                name: Cow::Borrowed(&e.name),
                signature: Cow::Borrowed(&e.signature),
            },
            Kind::ObjDef => Event::ObjDef {
                obj: e.obj,
                class: e.class,
            },
            Kind::ObjFree => Event::ObjFree { obj: e.obj },
            Kind::Exit => Event::Exit {
                thread: e.thread,
                method: e.method,
                ticket: e.ticket,
                time: e.time,
            },
            Kind::Throw => Event::Throw {
                thread: e.thread,
                obj: e.obj,
                method: e.method,
                ticket: e.ticket,
                time: e.time,
            },
            Kind::Catch => Event::Catch {
                thread: e.thread,
                obj: e.obj,
                method: e.method,
                ticket: e.ticket,
                time: e.time,
            },
            Kind::Alloc => Event::Alloc {
                thread: e.thread,
                obj: e.obj,
                class: e.class,
                is_array: e.is_array as u8,
                size: e.size,
                site_method: e.site_method,
                site_line: e.site_line as u32,
                time: e.time,
            },
            Kind::GcStart => Event::GcStart { time: e.time },
            Kind::GcFinish => Event::GcFinish { time: e.time },
            Kind::ContendedEnter => Event::ContendedEnter {
                thread: e.thread,
                obj: e.obj,
                owner: e.owner,
                time: e.time,
            },
            Kind::ContendedEntered => Event::ContendedEntered {
                thread: e.thread,
                obj: e.obj,
                time: e.time,
            },
            Kind::Wait => Event::Wait {
                thread: e.thread,
                obj: e.obj,
                time: e.time,
            },
            Kind::Waited => Event::Waited {
                thread: e.thread,
                obj: e.obj,
                time: e.time,
            },
        };
        (self.f)(&ev);
    }
}

impl<F: FnMut(&Event)> EventOut<F> {
    /// The facts of the element just received, after its own event.
    fn emit_facts(&mut self) {
        let Some(el) = self.fact_el.take() else {
            return;
        };
        for (attribute, value) in self.fact_attrs.drain(..) {
            if value.is_empty() {
                continue;
            }
            if let Some(fact) = Fact::of(el, attribute, self.el.id) {
                (self.f)(&Event::Fact {
                    fact,
                    value: Cow::Owned(value),
                });
            }
        }
    }

    /// Keeps attribute `k` of a fact-carrying element.
    fn keep_fact(&mut self, k: &str, v: &str) {
        if let Some(el) = self.fact_el {
            if let Some(a) = Fact::attributes(el).find(|a| *a == k) {
                let mut text = String::new();
                as_xml_reads(&mut text, v);
                self.fact_attrs.push((a, text));
            }
        }
    }
}

/// `v` as an XML reader reads it back: the characters XML 1.0 forbids become U+FFFD
/// (what the renderer writes for them).
pub fn as_xml_reads(out: &mut String, v: &str) {
    out.clear();
    for c in v.chars() {
        let bad = ((c as u32) < 0x20 && !matches!(c, '\t' | '\n' | '\r'))
            || c == '\u{FFFE}'
            || c == '\u{FFFF}';
        out.push(if bad { '\u{FFFD}' } else { c });
    }
}

impl<F: FnMut(&Event)> Output for EventOut<F> {
    const PIECES: bool = false;

    fn prolog(&mut self) {}

    fn open(&mut self, name: &str) {
        self.fact_el = if self.depth == 1 {
            Fact::element(name)
        } else {
            None
        };
        self.fact_attrs.clear();
        self.kind = match self.depth {
            1 => Kind::of(name),
            2 if self.parent == Kind::TraceEnd && name == "annotation" => Kind::Annotation,
            2 if self.parent == Kind::Agent && name == "annotation" => Kind::Jvm,
            2 if self.parent == Kind::ClassDef && name == "annotation" => Kind::ClassAnnotation,
            _ => Kind::Other,
        };
        if self.kind != Kind::Other {
            let (name, signature) = (
                std::mem::take(&mut self.el.name),
                std::mem::take(&mut self.el.signature),
            );
            self.el = Element {
                name,
                signature,
                ..Element::default()
            };
            self.el.name.clear();
            self.el.signature.clear();
        }
    }

    fn close(&mut self) {
        self.elements += 1;
        self.emit();
        self.emit_facts();
        self.kind = Kind::Other;
    }

    fn start_children(&mut self) {
        self.elements += 1;
        self.emit();
        self.emit_facts();
        if self.depth == 1 {
            self.parent = self.kind;
            self.parent_id = self.el.id;
        }
        self.kind = Kind::Other;
        self.depth += 1;
    }

    fn end(&mut self, _name: &str) {
        self.depth = self.depth.saturating_sub(1);
        if self.depth == 0 {
            self.complete = true;
        }
    }

    fn num(&mut self, k: &str, v: u64) {
        // Formatted only for an attribute that carries a fact (a methodDef's line), not
        // for every number of the element.
        if self
            .fact_el
            .is_some_and(|el| Fact::attributes(el).any(|a| a == k))
        {
            self.keep_fact(k, &v.to_string());
        }
        if self.kind == Kind::Other {
            return;
        }
        let e = &mut self.el;
        match k {
            "threadIdRef" => e.thread = v,
            "threadId" | "classId" | "methodId" => e.id = v,
            "methodIdRef" => e.method = v,
            "classIdRef" => e.class = v,
            "ticket" => e.ticket = v,
            "objId" | "objIdRef" => e.obj = v,
            "threadOwner" => e.owner = v,
            "isArray" => e.is_array = v,
            "size" => e.size = v,
            "aMethodIdRef" => e.site_method = v,
            "aLineNr" => e.site_line = v,
            "line_number" => e.line = v,
            "pid" => e.id = v,
            "value"
                if matches!(
                    self.kind,
                    Kind::Annotation | Kind::ClassAnnotation | Kind::Jvm
                ) =>
            {
                e.signature = v.to_string()
            }
            _ => {}
        }
    }

    fn int(&mut self, _k: &str, _v: i64) {}

    fn boolean(&mut self, _k: &str, _v: bool) {}

    fn time(&mut self, k: &str, unix_ns: u64) {
        if k == "time" {
            self.el.time = unix_ns;
        }
    }

    fn str(&mut self, k: &str, v: &str) {
        if self.fact_el.is_some() {
            self.keep_fact(k, v);
        }
        match (self.kind, k) {
            (Kind::ThreadStart, "threadName") | (Kind::ClassDef | Kind::MethodDef, "name") => {
                as_xml_reads(&mut self.el.name, v)
            }
            (Kind::MethodDef, "signature") => as_xml_reads(&mut self.el.signature, v),
            (Kind::Process, "application_executable")
            | (Kind::Agent, "agentParameters")
            | (Kind::AgentOption, "key")
            | (Kind::Annotation | Kind::ClassAnnotation | Kind::Jvm | Kind::Tag, "name") => {
                as_xml_reads(&mut self.el.name, v)
            }
            (Kind::Agent, "version")
            | (
                Kind::AgentOption
                | Kind::Annotation
                | Kind::ClassAnnotation
                | Kind::Jvm
                | Kind::Tag,
                "value",
            ) => as_xml_reads(&mut self.el.signature, v),
            _ => {}
        }
    }

    #[inline]
    fn entry(&mut self, tid: u32, mid: u32, ticket: u64, _depth: u64, ns: u64, _pre: Pieces<'_>) {
        self.elements += 1;
        let ev = Event::Entry {
            thread: tid as u64,
            method: mid as u64,
            ticket,
            time: ns,
        };
        (self.f)(&ev);
        // Nothing to drop (no string): skip the enum's drop glue on the hottest path.
        std::mem::forget(ev);
    }

    #[inline]
    fn exit(&mut self, tid: u32, mid: u32, ticket: u64, ns: u64, _pre: Pieces<'_>) {
        self.elements += 1;
        let ev = Event::Exit {
            thread: tid as u64,
            method: mid as u64,
            ticket,
            time: ns,
        };
        (self.f)(&ev);
        std::mem::forget(ev);
    }

    fn line(
        &mut self,
        tid: u32,
        mid: u32,
        line: u32,
        _ticket: u64,
        ns: u64,
        _pre: &Piece,
        _tail: &[u8],
    ) {
        self.elements += 1;
        (self.f)(&Event::Line {
            thread: tid as u64,
            method: mid as u64,
            line,
            time: ns,
        });
    }

    fn elements(&self) -> u64 {
        self.elements
    }
}

#[cfg(test)]
mod tests {
    use super::{parse_time, parse_u64};

    /// Digit by digit, checked: what [`parse_u64`] must give.
    fn slow(b: &[u8]) -> Option<u64> {
        if b.is_empty() || b.len() > 20 {
            return None;
        }
        b.iter().try_fold(0u64, |v, &c| {
            c.is_ascii_digit()
                .then_some(())
                .and_then(|_| v.checked_mul(10)?.checked_add((c - b'0') as u64))
        })
    }

    #[test]
    fn numbers_parse_as_digit_by_digit() {
        let mut seed = 7u64;
        let mut next = || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            seed >> 33
        };
        for _ in 0..200_000 {
            let len = (next() % 22) as usize;
            let mut b: Vec<u8> = (0..len).map(|_| b'0' + (next() % 10) as u8).collect();
            // Now and then one byte that is not a digit (or just outside them).
            if len > 0 && next() % 3 == 0 {
                let at = (next() as usize) % len;
                b[at] = [b'/', b':', b' ', b'.', b'-', 0, 0xff, b'a'][(next() % 8) as usize];
            }
            assert_eq!(parse_u64(&b), slow(&b), "{:?}", String::from_utf8_lossy(&b));
        }
        for s in [
            "18446744073709551615",
            "18446744073709551616",
            "99999999999999999999",
        ] {
            assert_eq!(parse_u64(s.as_bytes()), slow(s.as_bytes()), "{s}");
        }
        assert_eq!(
            parse_u64(b"9999999999999999999"),
            Some(9_999_999_999_999_999_999)
        );
        assert_eq!(
            parse_time(b"1795947641.836446248"),
            Some(1_795_947_641_836_446_248)
        );
    }
}
