//! Reading: one streaming pass of quick-xml over the document, its shape (root, vocabulary, children, attributes), each direct child of `TRACE` handed to the rules.
//!
//! `run` checks the document shape; every event directly under `TRACE` then goes
//! through `State::event` (`rules/mod.rs`). Attribute values are parsed here too.

use crate::attrs::{get, Attrs};
use crate::lines::LineCounter;
use crate::model::{Phase, State};
use crate::summary::Summary;
use crate::vocab;
use crate::{Rule, Violation};
use quick_xml::events::{BytesStart, Event};
use quick_xml::{Reader, XmlVersion};
use std::io::BufRead;

/// Attributes `xmllint` requires (the `#REQUIRED` ones of docs/trace.dtd).
pub(crate) const REQUIRED: &[(&str, &[&str])] = &[
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

/// Reads the attributes of `e`, checking them against the vocabulary of `name`.
/// No allocation but the returned list: attribute names are compared in place, and a
/// repeated name (not well-formed XML) is found by the vocabulary's index of it (the
/// quick-xml reader's own check allocates a list per element).
pub(crate) fn read_attrs<'b>(
    st: &mut State,
    line: u64,
    name: &str,
    allowed: Option<&'static [&'static str]>,
    e: &'b BytesStart<'b>,
) -> Attrs<'b> {
    let mut out: Attrs<'b> = Vec::with_capacity(allowed.map_or(0, <[_]>::len));
    // Bit i: allowed[i] seen (the longest vocabulary list has fewer than 64 names).
    let mut seen = 0u64;
    for a in e.attributes().with_checks(false) {
        let a = match a {
            Ok(a) => a,
            Err(err) => {
                st.err(line, Rule::Xml, format!("<{name}>: bad attribute: {err}"));
                continue;
            }
        };
        let key: &str = a.key.as_ref();
        let Some(allowed) = allowed else { continue };
        let Some(i) = allowed.iter().position(|k| *k == key) else {
            st.err(
                line,
                Rule::Vocabulary,
                format!("<{name}> has attribute {key}, which is not in the vocabulary for {name}"),
            );
            continue;
        };
        let k = allowed[i];
        let bit = 1u64 << (i % 64);
        if seen & bit != 0 {
            st.err(
                line,
                Rule::Xml,
                format!("<{name}>: bad attribute: duplicated attribute {k}"),
            );
            continue;
        }
        seen |= bit;
        match a.normalized_value(XmlVersion::Implicit1_0) {
            Ok(v) => out.push((k, v)),
            Err(err) => st.err(
                line,
                Rule::Xml,
                format!("<{name}> {k}: bad attribute value: {err}"),
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

pub(crate) fn run<R: BufRead>(reader: R) -> Result<Summary, Vec<Violation>> {
    run_with(reader, false).map(|(s, _)| s)
}

/// Like [`run`]; with `prefix_ok`, a document that simply stops before `</TRACE>`
/// (a killed JVM, a full disk) is not a violation: the summary comes with
/// `Some(last line)` to say it was cut short. Everything before the cut is still
/// checked by every rule.
pub(crate) fn run_with<R: BufRead>(
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
                            match v.parse::<u64>() {
                                Ok(v) => {
                                    st.summary.end_counts.insert(n.to_string(), v);
                                }
                                Err(_) => st.summary.end_notes.push((n.to_string(), v.to_string())),
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

pub(crate) fn text(st: &mut State, line: u64, open: &[String], root_closed: bool) {
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
