//! A `.jtr` checked with no XML in between: the trace crate's replay, as an `Output`, feeds tracecheck's `Checker` each element of the document it would render.
//!
//! The renderer hands its elements to any [`Output`] attribute by attribute, and the
//! hot ones (`methodEntry`, `methodExit`) in one call each: those become tracecheck
//! [`Call`]s (ids and times as numbers, nothing formatted or parsed), every other
//! element goes through the checker's general walk with its attributes as the text
//! the XML would carry. So the rules, their verdicts and their messages are those of
//! the trace's XML rendering, and a violation's line is the line it has there
//! (`jtrace xml TRACE.jtr`): the prolog is line 1, every element and end tag one line.

use std::fmt::Write as _;
use trace::idtable::IdTable;
use trace::render::output::{Piece, Pieces};
use trace::render::Output;
use tracecheck::{Call, Checker};

/// The receiver of a `.jtr`'s elements for [`Checker`].
pub struct CheckOut {
    pub checker: Checker,
    /// The line the next element starts on in the XML rendering.
    line: u64,
    /// The element being received: its name and attributes (as text), kept until its
    /// start tag ends; `n` of `attrs` are in use (their strings reused).
    name: String,
    attrs: Vec<(String, String)>,
    n: usize,
    /// classIdRef of each method id (`methodDef`), which entries and exits carry.
    class_of: IdTable<u32>,
    /// sourceName of each class id (`classDef`), which `line` carries as file_name.
    source_of: std::collections::HashMap<u64, String>,
    elements: u64,
}

impl Default for CheckOut {
    fn default() -> Self {
        CheckOut {
            checker: Checker::new(),
            line: 1,
            name: String::new(),
            attrs: Vec::new(),
            n: 0,
            class_of: IdTable::default(),
            source_of: Default::default(),
            elements: 0,
        }
    }
}

impl CheckOut {
    /// The line after the last one written.
    pub fn last_line(&self) -> u64 {
        self.line
    }

    /// A slot for the next attribute `k`: its value string, cleared.
    fn value(&mut self, k: &str) -> &mut String {
        if self.n == self.attrs.len() {
            self.attrs.push(Default::default());
        }
        let (key, value) = &mut self.attrs[self.n];
        self.n += 1;
        key.clear();
        key.push_str(k);
        value.clear();
        value
    }

    fn get(&self, k: &str) -> Option<&str> {
        self.attrs[..self.n]
            .iter()
            .find(|(key, _)| key == k)
            .map(|(_, v)| v.as_str())
    }

    /// The start tag received ends (`empty`: with no children): remember what the hot
    /// elements will need, and feed it.
    fn start(&mut self, empty: bool) {
        let num = |s: Option<&str>| s.and_then(|v| v.parse::<u64>().ok());
        match self.name.as_str() {
            "methodDef" => {
                if let (Some(m), Some(c)) = (num(self.get("methodId")), num(self.get("classIdRef")))
                {
                    self.class_of.insert(m as u32, c as u32);
                }
            }
            "classDef" => {
                if let Some(c) = num(self.get("classId")) {
                    let source = self.get("sourceName").unwrap_or("").to_string();
                    self.source_of.insert(c, source);
                }
            }
            _ => {}
        }
        let pairs: Vec<(&str, &str)> = self.attrs[..self.n]
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        self.checker.start(self.line, &self.name, &pairs, empty);
        self.line += 1;
        self.elements += 1;
    }

    fn call(&mut self, entry: bool, tid: u32, mid: u32, ticket: u64, depth: Option<u64>, ns: u64) {
        let call = Call {
            thread: Some(tid as u64),
            method: Some(mid as u64),
            class: Some(self.class_of.get(mid).copied().unwrap_or(0) as u64),
            ticket: Some(ticket),
            depth,
            time: Some(ns as u128),
        };
        self.checker.call(self.line, entry, &call);
        self.line += 1;
        self.elements += 1;
    }
}

/// Unix nanoseconds as the XML writes them: `seconds.nnnnnnnnn`.
fn time_text(out: &mut String, ns: u64) {
    let _ = write!(out, "{}.{:09}", ns / 1_000_000_000, ns % 1_000_000_000);
}

impl Output for CheckOut {
    const PIECES: bool = false;

    fn prolog(&mut self) {
        self.line += 1;
    }
    fn open(&mut self, name: &str) {
        self.name.clear();
        self.name.push_str(name);
        self.n = 0;
    }
    fn close(&mut self) {
        self.start(true);
    }
    fn start_children(&mut self) {
        self.start(false);
    }
    fn end(&mut self, _name: &str) {
        self.checker.end(self.line);
        self.line += 1;
    }
    fn num(&mut self, k: &str, v: u64) {
        let _ = write!(self.value(k), "{v}");
    }
    fn int(&mut self, k: &str, v: i64) {
        let _ = write!(self.value(k), "{v}");
    }
    fn boolean(&mut self, k: &str, v: bool) {
        self.value(k).push_str(if v { "true" } else { "false" });
    }
    fn time(&mut self, k: &str, unix_ns: u64) {
        time_text(self.value(k), unix_ns);
    }
    fn str(&mut self, k: &str, v: &str) {
        trace::event::as_xml_reads(self.value(k), v);
    }
    fn entry(&mut self, tid: u32, mid: u32, ticket: u64, depth: u64, ns: u64, _: Pieces<'_>) {
        // The XML's stackDepth is an xsd:short: deeper frames say the largest one.
        let depth = depth.min(trace::render::MAX_STACK_DEPTH);
        self.call(true, tid, mid, ticket, Some(depth), ns);
    }
    fn exit(&mut self, tid: u32, mid: u32, ticket: u64, ns: u64, _: Pieces<'_>) {
        self.call(false, tid, mid, ticket, None, ns);
    }
    fn line(&mut self, tid: u32, mid: u32, line: u32, ticket: u64, ns: u64, _: &Piece, _: &[u8]) {
        let class = self.class_of.get(mid).copied().unwrap_or(0) as u64;
        let file = self.source_of.get(&class).cloned().unwrap_or_default();
        self.open("line");
        self.num("threadId", tid as u64);
        self.time("time", ns);
        self.num("line_number", line as u64);
        self.str("file_name", &file);
        self.num("methodIdRef", mid as u64);
        self.num("ticket", ticket);
        self.close();
    }
    fn elements(&self) -> u64 {
        self.elements
    }
}
