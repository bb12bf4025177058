//! quick-xml's streaming reader over an XML document, turning each direct child of
//! `<TRACE>` into an [`Event`]. Only the element being parsed is in memory.

use super::{Event, Fact, Outcome};
use quick_xml::events::{BytesStart, Event as Xml};
use quick_xml::Reader;
use std::borrow::Cow;
use std::io::{BufRead, ErrorKind};
use trace::event::tag_event;
pub use trace::event::{parse_time, parse_u64};

/// Most attributes any element the reader uses carries.
const MAX_ATTRS: usize = 16;

/// An element's attributes, as raw bytes (values still escaped), without allocating.
struct Attrs<'b> {
    kv: [(&'b [u8], &'b [u8]); MAX_ATTRS],
    n: usize,
}

impl<'b> Attrs<'b> {
    /// Splits the raw attribute list (`k="v" k2="v2"`) by hand: quick-xml's attribute
    /// iterator (UTF-8 and duplicate checks) was a third of the reading time, and
    /// well-formedness is `jtrace check`'s job. A malformed list just ends early.
    fn of(e: &'b BytesStart<'_>) -> Attrs<'b> {
        let raw = e.attributes_raw().as_bytes();
        let mut a = Attrs {
            kv: [(&[][..], &[][..]); MAX_ATTRS],
            n: 0,
        };
        let len = raw.len();
        let mut i = 0;
        // Per attribute: find `=` and the closing quote with memchr (SIMD), not byte by byte.
        while a.n < MAX_ATTRS && i < len {
            let Some(eq) = memchr::memchr(b'=', &raw[i..]) else {
                break;
            };
            let key = raw[i..i + eq].trim_ascii();
            i += eq + 1;
            while i < len && raw[i].is_ascii_whitespace() {
                i += 1;
            }
            if i >= len || key.is_empty() {
                break;
            }
            let q = raw[i];
            if q != b'"' && q != b'\'' {
                break;
            }
            i += 1;
            let Some(p) = memchr::memchr(q, &raw[i..]) else {
                break;
            };
            a.kv[a.n] = (key, &raw[i..i + p]);
            a.n += 1;
            i += p + 1;
        }
        a
    }

    fn raw(&self, key: &[u8]) -> Option<&'b [u8]> {
        self.kv[..self.n]
            .iter()
            .find(|(k, _)| *k == key)
            .map(|(_, v)| *v)
    }

    fn num(&self, key: &[u8]) -> Option<u64> {
        parse_u64(self.raw(key)?)
    }

    /// A number that may be absent (0 then) but not malformed.
    fn num_or_zero(&self, key: &[u8]) -> Option<u64> {
        match self.raw(key) {
            None => Some(0),
            Some(v) => parse_u64(v),
        }
    }

    fn time(&self) -> Option<u64> {
        parse_time(self.raw(b"time")?)
    }

    fn text(&self, key: &[u8]) -> Cow<'b, str> {
        let raw = self.raw(key).unwrap_or_default();
        let s = String::from_utf8_lossy(raw);
        if !s.contains('&') {
            return s;
        }
        match quick_xml::escape::unescape(&s) {
            Ok(u) => Cow::Owned(u.into_owned()),
            Err(_) => s,
        }
    }
}

/// The event for one element directly under `<TRACE>`; `None` for elements no analysis
/// uses, `Some(Err)` for one that lacks an attribute it needs.
fn event<'b>(name: &[u8], a: &Attrs<'b>) -> Option<Result<Event<'b>, &'static str>> {
    let ev = match name {
        b"methodEntry" | b"methodExit" => (|| {
            let (thread, method, ticket, time) = (
                a.num(b"threadIdRef")?,
                a.num(b"methodIdRef")?,
                a.num(b"ticket")?,
                a.time()?,
            );
            Some(if name == b"methodEntry" {
                Event::Entry {
                    thread,
                    method,
                    ticket,
                    time,
                }
            } else {
                Event::Exit {
                    thread,
                    method,
                    ticket,
                    time,
                }
            })
        })(),
        b"objAlloc" => (|| {
            Some(Event::Alloc {
                thread: a.num(b"threadIdRef")?,
                obj: a.num(b"objId")?,
                class: a.num_or_zero(b"classIdRef")?,
                is_array: u8::try_from(a.num_or_zero(b"isArray")?).ok()?,
                size: a.num_or_zero(b"size")?,
                site_method: a.num_or_zero(b"aMethodIdRef")?,
                site_line: u32::try_from(a.num_or_zero(b"aLineNr")?).ok()?,
                time: a.time()?,
            })
        })(),
        b"line" => (|| {
            Some(Event::Line {
                thread: a.num(b"threadId").or_else(|| a.num(b"threadIdRef"))?,
                method: a.num(b"methodIdRef")?,
                line: u32::try_from(a.num(b"line_number")?).ok()?,
                time: a.time()?,
            })
        })(),
        b"throw" | b"catch" => (|| {
            let (thread, obj, method, ticket, time) = (
                a.num(b"threadIdRef")?,
                a.num_or_zero(b"objIdRef")?,
                a.num(b"methodIdRef")?,
                a.num_or_zero(b"ticket")?,
                a.time()?,
            );
            Some(if name == b"throw" {
                Event::Throw {
                    thread,
                    obj,
                    method,
                    ticket,
                    time,
                }
            } else {
                Event::Catch {
                    thread,
                    obj,
                    method,
                    ticket,
                    time,
                }
            })
        })(),
        b"threadStart" => (|| {
            Some(Event::ThreadStart {
                id: a.num(b"threadId")?,
                time: a.time()?,
                name: a.text(b"threadName"),
            })
        })(),
        b"threadEnd" => (|| {
            Some(Event::ThreadEnd {
                id: a.num(b"threadIdRef")?,
                time: a.time()?,
            })
        })(),
        b"classDef" => (|| {
            Some(Event::ClassDef {
                id: a.num(b"classId")?,
                name: a.text(b"name"),
            })
        })(),
        b"methodDef" => (|| {
            Some(Event::MethodDef {
                id: a.num(b"methodId")?,
                class: a.num(b"classIdRef")?,
                name: a.text(b"name"),
                signature: a.text(b"signature"),
            })
        })(),
        b"objDef" => (|| {
            Some(Event::ObjDef {
                obj: a.num(b"objId")?,
                class: a.num_or_zero(b"classIdRef")?,
            })
        })(),
        b"objFree" => (|| {
            Some(Event::ObjFree {
                obj: a.num(b"objIdRef")?,
            })
        })(),
        b"gcStart" => (|| Some(Event::GcStart { time: a.time()? }))(),
        b"gcFinish" => (|| Some(Event::GcFinish { time: a.time()? }))(),
        b"monContendedEnter" => (|| {
            Some(Event::ContendedEnter {
                thread: a.num(b"threadIdRef")?,
                obj: a.num(b"objIdRef")?,
                owner: a.num_or_zero(b"threadOwner")?,
                time: a.time()?,
            })
        })(),
        b"monContendedEntered" | b"monWait" | b"monWaited" => (|| {
            let (thread, obj, time) = (a.num(b"threadIdRef")?, a.num(b"objIdRef")?, a.time()?);
            Some(match name {
                b"monContendedEntered" => Event::ContendedEntered { thread, obj, time },
                b"monWait" => Event::Wait { thread, obj, time },
                _ => Event::Waited { thread, obj, time },
            })
        })(),
        b"tag" => return tag_event(a.text(b"name"), &a.text(b"value")).map(Ok),
        b"traceStart" => (|| Some(Event::TraceStart { time: a.time()? }))(),
        b"processCreate" => (|| {
            Some(Event::Process {
                pid: a.num(b"pid")?,
                command: a.text(b"application_executable"),
            })
        })(),
        b"agentCreate" => Some(Event::Agent {
            parameters: a.text(b"agentParameters"),
            version: a.text(b"version"),
        }),
        b"option" => Some(Event::AgentOption {
            key: a.text(b"key"),
            value: a.text(b"value"),
        }),
        b"traceEnd" => (|| Some(Event::TraceEnd { time: a.time()? }))(),
        _ => return None,
    };
    Some(ev.ok_or("lacks an attribute or has a malformed number"))
}

/// The facts an element carries besides its event (see [`Event::Fact`]); absent or
/// empty attributes tell nothing.
fn facts(name: &[u8], a: &Attrs, sink: &mut impl FnMut(&Event)) {
    let Some(element) = std::str::from_utf8(name).ok().and_then(Fact::element) else {
        return;
    };
    let id = match element {
        "classDef" => a.num(b"classId"),
        "methodDef" => a.num(b"methodId"),
        "threadStart" => a.num(b"threadId"),
        _ => Some(0),
    };
    let Some(id) = id else { return };
    for attribute in Fact::attributes(element) {
        let value = a.text(attribute.as_bytes());
        if let (false, Some(fact)) = (value.is_empty(), Fact::of(element, attribute, id)) {
            sink(&Event::Fact { fact, value });
        }
    }
}

/// Malformed elements are reported individually up to this many, then counted.
const MAX_ELEMENT_WARNINGS: usize = 5;

/// Streams `input` to `sink`, one event per element. A document that stops early (no
/// `</TRACE>`, a partial last element, a truncated compressed stream) is read up to where
/// it stops, with a warning; anything else that is not a jtrace trace is an `Err` naming
/// the file and the problem.
pub fn read(
    name: &str,
    reader: Box<dyn BufRead>,
    mut sink: impl FnMut(&Event),
) -> Result<Outcome, String> {
    let mut xml = Reader::from_reader(reader);
    xml.config_mut().trim_text(true);
    let mut buf = Vec::with_capacity(4096);
    let mut depth = 0usize;
    let mut seen_root = false;
    // Inside `<traceEnd>`: its annotations are events too.
    let mut in_trace_end = false;
    // Inside `<agentCreate>`: its annotations are the JVM's facts.
    let mut in_agent = false;
    let mut out = Outcome::default();
    let mut malformed = 0u64;
    // The class whose `classDef` is open (its annotations are its children).
    let mut class: Option<u64> = None;
    loop {
        buf.clear();
        let ev = match xml.read_event_into(&mut buf) {
            Ok(ev) => ev,
            Err(e) => {
                let pos = xml.error_position();
                let at_end = match &e {
                    quick_xml::Error::Io(io) => io.kind() == ErrorKind::UnexpectedEof,
                    _ => xml.get_mut().fill_buf().is_ok_and(|b| b.is_empty()),
                };
                if seen_root && at_end {
                    out.warnings.push(format!(
                        "{name}: the trace is cut short at byte {pos} ({e}); read up to there"
                    ));
                    break;
                }
                if let quick_xml::Error::Io(io) = &e {
                    return Err(format!("{name}: cannot read at byte {pos}: {io}"));
                }
                return Err(format!(
                    "{name}: not a jtrace trace: bad XML at byte {pos}: {e}"
                ));
            }
        };
        match ev {
            Xml::Start(ref e) | Xml::Empty(ref e) => {
                let empty = matches!(ev, Xml::Empty(_));
                if !seen_root {
                    if e.name().as_ref() != "TRACE" {
                        return Err(format!(
                            "{name}: not a jtrace trace: the root element is <{}>, not <TRACE>",
                            e.name().as_ref()
                        ));
                    }
                    seen_root = true;
                } else if depth == 2 && in_trace_end && e.name().as_ref() == "annotation" {
                    let a = Attrs::of(e);
                    sink(&Event::Annotation {
                        name: a.text(b"name"),
                        value: a.text(b"value"),
                    });
                } else if depth == 2 && in_agent && e.name().as_ref() == "annotation" {
                    let a = Attrs::of(e);
                    sink(&Event::Jvm {
                        name: a.text(b"name"),
                        value: a.text(b"value"),
                    });
                } else if depth == 1 {
                    in_trace_end = !empty && e.name().as_ref() == "traceEnd";
                    in_agent = !empty && e.name().as_ref() == "agentCreate";
                    let qname = e.name();
                    let attrs = Attrs::of(e);
                    let is_class = qname.as_ref() == "classDef";
                    class = None;
                    // Entries and exits (nearly every element) carry no facts.
                    let mut call = false;
                    match event(qname.as_ref().as_bytes(), &attrs) {
                        Some(Ok(ev)) => {
                            call = matches!(ev, Event::Entry { .. } | Event::Exit { .. });
                            sink(&ev);
                            if let (true, Event::ClassDef { id, .. }) = (is_class, &ev) {
                                class = Some(*id);
                            }
                        }
                        Some(Err(why)) => {
                            malformed += 1;
                            if malformed as usize <= MAX_ELEMENT_WARNINGS {
                                out.warnings.push(format!(
                                    "{name}: <{}> at byte {} {why}; skipped",
                                    qname.as_ref(),
                                    xml.buffer_position()
                                ));
                            }
                        }
                        None => {}
                    }
                    if !call {
                        facts(qname.as_ref().as_bytes(), &attrs, &mut sink);
                    }
                } else if let (2, Some(id), "annotation") = (depth, class, e.name().as_ref()) {
                    let attrs = Attrs::of(e);
                    sink(&Event::ClassAnnotation {
                        class: id,
                        name: attrs.text(b"name"),
                        value: attrs.text(b"value"),
                    });
                }
                if !empty {
                    depth += 1;
                }
            }
            Xml::End(_) => {
                depth = depth.saturating_sub(1);
                if depth == 0 && seen_root {
                    out.complete = true;
                    break;
                }
            }
            Xml::Eof => {
                if !seen_root {
                    return Err(format!("{name}: not a jtrace trace: no <TRACE> element"));
                }
                out.warnings.push(format!(
                    "{name}: the trace is cut short (no </TRACE>); read up to its end"
                ));
                break;
            }
            _ => {}
        }
    }
    if malformed as usize > MAX_ELEMENT_WARNINGS {
        out.warnings.push(format!(
            "{name}: {malformed} malformed elements skipped in all"
        ));
    }
    out.xml_bytes = xml.buffer_position();
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_and_numbers() {
        assert_eq!(
            parse_time(b"1716203600.270000000"),
            Some(1716203600270000000)
        );
        assert_eq!(parse_time(b"1.5"), Some(1_500_000_000));
        assert_eq!(parse_time(b"2"), Some(2_000_000_000));
        assert_eq!(parse_time(b"1.0000000001"), None);
        assert_eq!(parse_time(b"x.1"), None);
        assert_eq!(parse_u64(b"18446744073709551615"), Some(u64::MAX));
        assert_eq!(parse_u64(b"18446744073709551616"), None);
        assert_eq!(parse_u64(b"-1"), None);
        assert_eq!(parse_u64(b""), None);
    }
}
