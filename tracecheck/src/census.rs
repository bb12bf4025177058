//! Census: one unchecked streaming pass that counts a trace's elements and its `methodCount` calls (for benchmarks over traces too large to check).

use quick_xml::events::Event;
use quick_xml::Reader;
use std::io::BufRead;

/// What [`census`] counts in a trace document.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Census {
    /// Elements in the document (start and empty tags, the root included).
    pub elements: u64,
    /// The sum of every `methodCount`'s `count`: the calls the agent counted.
    pub method_calls: u64,
    /// Whether the root element was closed (`</TRACE>`).
    pub closed: bool,
    /// Bytes of XML read.
    pub bytes: u64,
}

/// Counts the elements of the XML document `reader` yields without checking it (quick-xml,
/// constant memory); an error names what the parser refused and where.
pub fn census<R: BufRead>(reader: R) -> Result<Census, String> {
    let mut r = Reader::from_reader(reader);
    r.config_mut().check_end_names = false;
    let mut c = Census::default();
    let mut buf = Vec::with_capacity(1024);
    loop {
        buf.clear();
        match r.read_event_into(&mut buf) {
            Ok(Event::Start(e)) | Ok(Event::Empty(e)) => {
                c.elements += 1;
                if e.name().as_ref() == "methodCount" {
                    let count = e
                        .try_get_attribute("count")
                        .ok()
                        .flatten()
                        .and_then(|a| a.value.parse::<u64>().ok());
                    c.method_calls += count.unwrap_or(0);
                }
            }
            Ok(Event::End(e)) if e.name().as_ref() == "TRACE" => c.closed = true,
            Ok(Event::Eof) => break,
            Ok(_) => {}
            Err(e) => return Err(format!("at byte {}: {e}", r.buffer_position())),
        }
    }
    c.bytes = r.buffer_position();
    Ok(c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_elements_and_method_calls() {
        let doc = "<?xml version=\"1.0\"?>\n<TRACE>\n<node nodeId=\"1\"/>\n<methodCount methodIdRef=\"1\" count=\"3\"/>\n<methodCount methodIdRef=\"2\" count=\"4\"/>\n</TRACE>\n";
        let c = census(doc.as_bytes()).unwrap();
        assert_eq!(c.elements, 4);
        assert_eq!(c.method_calls, 7);
        assert!(c.closed);
        assert_eq!(c.bytes, doc.len() as u64);
        let cut = census(&doc.as_bytes()[..doc.len() - 9]).unwrap();
        assert!(!cut.closed);
    }
}
