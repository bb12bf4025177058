//! Reading: one streaming pass of quick-xml over the document, each tag and its attributes fed to the `Checker` (`checker.rs`).
//!
//! What only text can break is found here (well-formedness, attribute syntax); the
//! document's shape and every rule are the checker's.

use crate::attrs::Attrs;
use crate::checker::{AttrCheck, Checker};
use crate::lines::LineCounter;
use crate::model::State;
use crate::summary::Summary;
use crate::violation::{Rule, Violation};
use quick_xml::events::{BytesStart, Event};
use quick_xml::{Reader, XmlVersion};
use std::io::BufRead;

/// Reads the attributes of `e` (element `name`), each name checked by `check`.
/// No allocation but the returned list: attribute names are compared in place, and a
/// repeated name (not well-formed XML) is found by the vocabulary's index of it (the
/// quick-xml reader's own check allocates a list per element).
pub(crate) fn read_attrs<'b>(
    st: &mut State,
    mut check: AttrCheck,
    line: u64,
    name: &str,
    e: &'b BytesStart<'b>,
) -> Attrs<'b> {
    let mut out: Attrs<'b> = Vec::with_capacity(8);
    for a in e.attributes().with_checks(false) {
        let a = match a {
            Ok(a) => a,
            Err(err) => {
                st.err(line, Rule::Xml, format!("<{name}>: bad attribute: {err}"));
                continue;
            }
        };
        let key: &str = a.key.as_ref();
        let Some(k) = check.key(st, line, name, key) else {
            continue;
        };
        match a.normalized_value(XmlVersion::Implicit1_0) {
            Ok(v) => out.push((k, v)),
            Err(err) => st.err(
                line,
                Rule::Xml,
                format!("<{name}> {k}: bad attribute value: {err}"),
            ),
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
    let mut ck = Checker::new();
    let mut buf = Vec::new();
    loop {
        let line = xml.get_ref().newlines() + 1;
        buf.clear();
        let event = match xml.read_event_into(&mut buf) {
            Ok(ev) => ev,
            Err(e) => {
                ck.broken(line, format!("not well-formed XML: {e}"));
                break;
            }
        };
        match event {
            Event::Start(ref e) | Event::Empty(ref e) => {
                let empty = matches!(event, Event::Empty(_));
                let qname = e.name();
                let name: &str = qname.as_ref();
                ck.start_with(line, name, empty, |st, check| {
                    read_attrs(st, check, line, name, e)
                });
            }
            Event::End(_) => ck.end(line),
            Event::Text(ref t) => {
                if !t.bytes().all(|b| b.is_ascii_whitespace()) {
                    ck.text(line);
                }
            }
            Event::CData(_) | Event::GeneralRef(_) => ck.text(line),
            Event::Eof => break,
            Event::Comment(_) | Event::Decl(_) | Event::PI(_) | Event::DocType(_) => {}
        }
        if ck.full() {
            break;
        }
    }
    ck.finish(xml.get_ref().newlines() + 1, prefix_ok)
}
