//! Typed trace events: one variant per element an analysis cares about, times in
//! nanoseconds since the Unix epoch, ids as the trace writes them.

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
    /// A fact about a defined class beyond its name: `sourceName`, and its `annotation`s
    /// (`methodNames`, `methodLineTables`: the lines each method could run).
    ClassAnnotation {
        class: u64,
        name: Cow<'a, str>,
        value: Cow<'a, str>,
    },
}
