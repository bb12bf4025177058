//! The element walk: each element's place in the document (root, vocabulary, children, what follows `</TRACE>`), its attributes checked against the vocabulary, and each child of `TRACE` handed to the rules; fed by the XML reader or by a producer of typed elements.
//!
//! [`Checker`] is the one entry to the rules. The XML reader (`read.rs`) feeds it each
//! start tag, end tag and character data it parses; `jtrace check` on a `.jtr` feeds it
//! the trace crate's replay, element by element, with the hot elements
//! (`methodEntry`, `methodExit`) as parsed [`Call`]s: no XML text in between.

use crate::attrs::{get, Attrs, Call};
use crate::model::{Phase, State};
use crate::summary::Summary;
use crate::violation::{Rule, Violation};
use crate::vocab;
use std::borrow::Cow;

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

/// Checks a trace fed element by element, in document order; `line` is where each
/// element is (the line of its text, or for a typed producer the line it has in the
/// XML rendering of the same trace). Constant memory in the trace length, apart from
/// the live ids.
pub struct Checker {
    pub(crate) st: State,
    /// Names of the open elements, the root first.
    open: Vec<String>,
    root_closed: bool,
    seen_root: bool,
    /// The innermost open element is the root `TRACE` (the hot case: an event).
    in_body: bool,
    /// [`Checker::broken`] was called.
    stopped: bool,
}

impl Default for Checker {
    fn default() -> Self {
        Checker::new()
    }
}

/// The attribute names an element's attributes are checked against, and each
/// accepted one's vocabulary spelling; `seen` finds a repeated name.
pub(crate) struct AttrCheck {
    name_allowed: Option<&'static [&'static str]>,
    /// Bit i: allowed[i] seen (the longest vocabulary list has fewer than 64 names).
    seen: u64,
}

impl AttrCheck {
    /// The vocabulary's spelling of attribute `key` of `el`, or `None` (reported) if
    /// the vocabulary has no such attribute or it was already given; with no
    /// vocabulary (an unknown element, reported elsewhere), `None` unreported.
    pub(crate) fn key(
        &mut self,
        st: &mut State,
        line: u64,
        el: &str,
        key: &str,
    ) -> Option<&'static str> {
        let allowed = self.name_allowed?;
        let Some(i) = allowed.iter().position(|k| *k == key) else {
            st.err(
                line,
                Rule::Vocabulary,
                format!("<{el}> has attribute {key}, which is not in the vocabulary for {el}"),
            );
            return None;
        };
        let k = allowed[i];
        let bit = 1u64 << (i % 64);
        if self.seen & bit != 0 {
            st.err(
                line,
                Rule::Xml,
                format!("<{el}>: bad attribute: duplicated attribute {k}"),
            );
            return None;
        }
        self.seen |= bit;
        Some(k)
    }
}

/// Reports the required attributes `attrs` of `el` lacks.
pub(crate) fn check_required(st: &mut State, line: u64, el: &str, attrs: &Attrs) {
    if let Some((_, req)) = REQUIRED.iter().find(|(e, _)| *e == el) {
        for key in *req {
            if get(attrs, key).is_none() {
                st.err(
                    line,
                    Rule::Attribute,
                    format!("<{el}> lacks required attribute {key}"),
                );
            }
        }
    }
}

impl Checker {
    pub fn new() -> Checker {
        Checker {
            st: State::new(),
            open: Vec::new(),
            root_closed: false,
            seen_root: false,
            in_body: false,
            stopped: false,
        }
    }

    /// A start tag (`empty`: with no children, `<x/>`) whose attributes, as text,
    /// are `attrs`.
    pub fn start(&mut self, line: u64, name: &str, attrs: &[(&str, &str)], empty: bool) {
        self.start_with(line, name, empty, |st, mut check| {
            let mut out: Attrs = Vec::with_capacity(attrs.len());
            for &(k, v) in attrs {
                if let Some(k) = check.key(st, line, name, k) {
                    out.push((k, Cow::Borrowed(v)));
                }
            }
            out
        });
    }

    /// A `methodEntry` (`entry`) or `methodExit` with no children, its attributes
    /// parsed: the rules read it as they read the same element's text, with none of it
    /// formatted or parsed.
    pub fn call(&mut self, line: u64, entry: bool, call: &Call) {
        if self.in_body {
            self.st.call(line, entry, call, &Vec::new());
            return;
        }
        // Out of place: the general walk says where it is and why it does not belong.
        let mut text: Vec<(&str, String)> = Vec::new();
        let fields = [
            ("threadIdRef", call.thread.map(|v| v as u128)),
            ("methodIdRef", call.method.map(|v| v as u128)),
            ("classIdRef", call.class.map(|v| v as u128)),
            ("ticket", call.ticket.map(|v| v as u128)),
            ("stackDepth", call.depth.map(|v| v as u128)),
        ];
        for (k, v) in fields {
            if let Some(v) = v {
                text.push((k, v.to_string()));
            }
        }
        if let Some(t) = call.time {
            text.push(("time", crate::attrs::fmt_time(t)));
        }
        let pairs: Vec<(&str, &str)> = text.iter().map(|(k, v)| (*k, v.as_str())).collect();
        let name = if entry { "methodEntry" } else { "methodExit" };
        self.start(line, name, &pairs, true);
    }

    /// A start tag whose attributes `read` reads (given the vocabulary's names for
    /// this element, to check them by).
    pub(crate) fn start_with<'b>(
        &mut self,
        line: u64,
        name: &str,
        empty: bool,
        read: impl FnOnce(&mut State, AttrCheck) -> Attrs<'b>,
    ) {
        let st = &mut self.st;
        let known = st.vocab.get_key_value(name).map(|(k, v)| (*k, *v));
        let parent = self.open.last().map(String::as_str);
        let allowed_here = match (parent, known) {
            // The hot path: an event directly under TRACE.
            (Some("TRACE"), Some((k, _))) => !vocab::CHILD_ONLY.contains(&k),
            _ => vocab::child_allowed(parent, name),
        };
        if self.root_closed {
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
            self.seen_root = self.seen_root || parent.is_none();
            if empty {
                st.err(line, Rule::Structure, "<TRACE/> is empty".to_string());
            }
            // TRACE has no attributes: each one is reported.
            let check = AttrCheck {
                name_allowed: Some(&[]),
                seen: 0,
            };
            read(st, check);
        } else {
            let check = AttrCheck {
                name_allowed: known.map(|(_, a)| a),
                seen: 0,
            };
            let attrs = read(st, check);
            check_required(st, line, name, &attrs);
            if name == "annotation" && parent == Some("classDef") && self.open.len() == 2 {
                st.class_annotation(line, &attrs);
            }
            if name == "annotation" && parent == Some("traceEnd") {
                if let (Some(n), Some(v)) = (get(&attrs, "name"), get(&attrs, "value")) {
                    match v.parse::<u64>() {
                        Ok(v) => {
                            st.summary.end_counts.insert(n.to_string(), v);
                        }
                        Err(_) => st.summary.end_notes.push((n.to_string(), v.to_string())),
                    }
                }
            }
            match known {
                Some((k, _)) if self.open.len() == 1 && !self.root_closed => {
                    st.event(line, k, &attrs)
                }
                Some((k, _)) => *st.element_counts.entry(k).or_default() += 1,
                None => {}
            }
        }
        if !empty {
            self.open.push(name.to_string());
            self.body();
        }
    }

    /// An end tag.
    pub fn end(&mut self, line: u64) {
        let name = self.open.pop().unwrap_or_default();
        if name == "TRACE" && self.open.is_empty() {
            self.root_closed = true;
            if self.st.phase != Phase::AfterAgentDestroy {
                self.st.err(
                    line,
                    Rule::Structure,
                    "</TRACE> but the trace does not end with <agentDestroy>".to_string(),
                );
            }
        }
        self.body();
    }

    fn body(&mut self) {
        self.in_body = !self.root_closed && self.open.len() == 1 && self.open[0] == "TRACE";
    }

    /// Character data other than whitespace.
    pub fn text(&mut self, line: u64) {
        let st = &mut self.st;
        match self.open.last() {
            Some(p) if vocab::text_allowed(p) => {}
            Some(p) => st.err(
                line,
                Rule::Vocabulary,
                format!("character data inside <{p}>, which has none"),
            ),
            None if self.root_closed => st.err(
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

    /// The feeder cannot go on (an XML reader: text that is not well-formed): a
    /// violation, and the end of the document is not judged.
    pub fn broken(&mut self, line: u64, message: String) {
        self.st.err(line, Rule::Xml, message);
        self.stopped = true;
    }

    /// Whether checking can stop: [`crate::MAX_VIOLATIONS`] violations found.
    pub fn full(&self) -> bool {
        self.st.full()
    }

    /// The end of the input, after line `last_line`: the summary, or the violations.
    /// With `prefix_ok`, a document that stops before `</TRACE>` with every element
    /// before valid is not a violation: the summary comes with `Some(last whole
    /// line)`.
    pub fn finish(
        mut self,
        last_line: u64,
        prefix_ok: bool,
    ) -> Result<(Summary, Option<u64>), Vec<Violation>> {
        let st = &mut self.st;
        let mut cut = None;
        if !st.full() && !self.stopped {
            if prefix_ok && !self.root_closed && st.violations.is_empty() {
                cut = Some(last_line.saturating_sub(1));
            } else if !self.seen_root {
                st.err(
                    last_line,
                    Rule::Structure,
                    "no <TRACE> root element".to_string(),
                );
            } else if !self.root_closed {
                st.err(
                    last_line,
                    Rule::Structure,
                    "the document ends before </TRACE> (truncated trace?)".to_string(),
                );
            }
        }
        if self.st.violations.is_empty() {
            Ok((self.st.finish(), cut))
        } else {
            Err(self.st.violations)
        }
    }
}
