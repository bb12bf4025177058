//! Where the replay's elements go: [`Output`], written as TPTP XML
//! ([`XmlOut`]) and by the typed event stream (`crate::event::EventOut`).
//!
//! The renderer (`super::Renderer`) owns every semantic decision (tickets, depths,
//! clamped times, deferred thread ends, GC brackets); an output only receives elements,
//! attribute by attribute, plus three hot elements (entry, exit, line) in one call each
//! so that the XML side can copy its pre-formatted pieces and the event side never
//! formats anything. Both front ends therefore see exactly the same elements.

use crate::xml::{Decimal, Padded, XmlOut};
use std::io::Write;

/// A pre-formatted attribute run of the XML output (ignored by other outputs).
pub type Piece = Padded<64>;

/// A hot element's pre-formatted parts (ignored by other outputs): the thread's
/// element prefix, the method's ids, the ticket's digits.
pub type Pieces<'a> = (&'a Piece, &'a Piece, &'a Decimal);

/// The receiver of the replay's elements, in document order.
pub trait Output {
    /// Whether it writes the pre-formatted pieces of entries and exits (the tickets'
    /// digits): an output of typed events does not, and the replay skips keeping them.
    const PIECES: bool = true;
    /// The XML declaration (before the root element).
    fn prolog(&mut self);
    /// Starts element `name` (attributes follow, then `close` or `start_children`).
    fn open(&mut self, name: &str);
    /// Ends an element without children.
    fn close(&mut self);
    /// Ends the start tag of an element whose children follow; `end` closes it.
    fn start_children(&mut self);
    /// Closes element `name` opened with children.
    fn end(&mut self, name: &str);
    fn num(&mut self, k: &str, v: u64);
    fn int(&mut self, k: &str, v: i64);
    fn boolean(&mut self, k: &str, v: bool);
    /// A time attribute: Unix nanoseconds.
    fn time(&mut self, k: &str, unix_ns: u64);
    fn str(&mut self, k: &str, v: &str);
    /// `<methodEntry>` of thread `tid`; `pre` are its XML pieces.
    #[allow(clippy::too_many_arguments)]
    fn entry(&mut self, tid: u32, mid: u32, ticket: u64, depth: u64, ns: u64, pre: Pieces<'_>);
    /// `<methodExit>` of the innermost frame (the common return).
    fn exit(&mut self, tid: u32, mid: u32, ticket: u64, ns: u64, pre: Pieces<'_>);
    /// `<line>`; `pre` is the thread's line prefix, `tail` the method's line tail.
    #[allow(clippy::too_many_arguments)]
    fn line(
        &mut self,
        tid: u32,
        mid: u32,
        line: u32,
        ticket: u64,
        ns: u64,
        pre: &Piece,
        tail: &[u8],
    );
    /// Everything written out and flushed (nothing to do for outputs that keep no
    /// buffer).
    fn finish(&mut self) {}
    /// Bytes written (0 for outputs that write none).
    fn bytes_written(&self) -> u64 {
        0
    }
    /// Elements written, the root included.
    fn elements(&self) -> u64;
    /// The first write error, if any (none for outputs that write nothing).
    fn error(&self) -> Option<String> {
        None
    }
}

impl<W: Write> Output for XmlOut<W> {
    fn prolog(&mut self) {
        self.raw("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    }
    #[inline]
    fn open(&mut self, name: &str) {
        XmlOut::open(self, name)
    }
    #[inline]
    fn close(&mut self) {
        XmlOut::close(self)
    }
    fn start_children(&mut self) {
        XmlOut::start_children(self)
    }
    fn end(&mut self, name: &str) {
        self.raw("</");
        self.raw(name);
        self.raw(">\n");
    }
    #[inline]
    fn num(&mut self, k: &str, v: u64) {
        XmlOut::num(self, k, v)
    }
    fn int(&mut self, k: &str, v: i64) {
        XmlOut::int(self, k, v)
    }
    fn boolean(&mut self, k: &str, v: bool) {
        XmlOut::boolean(self, k, v)
    }
    #[inline]
    fn time(&mut self, k: &str, unix_ns: u64) {
        XmlOut::time(self, k, unix_ns)
    }
    fn str(&mut self, k: &str, v: &str) {
        XmlOut::str(self, k, v)
    }

    #[inline(always)]
    fn entry(
        &mut self,
        _tid: u32,
        _mid: u32,
        ticket: u64,
        depth: u64,
        ns: u64,
        (prefix, ids, text): Pieces<'_>,
    ) {
        // traceEvents.xsd types stackDepth as xsd:short (the TPTP importer reads an
        // int16): deeper frames say 32767. Left out, the importer would read 0 and hang
        // the call outside its caller; clamped, it stays under the deepest caller that
        // has a smaller depth. Nesting stays exact through the tickets.
        self.entry_element(
            prefix,
            ns,
            ids,
            (ticket, text),
            depth.min(super::MAX_STACK_DEPTH),
        );
    }

    #[inline(always)]
    fn exit(
        &mut self,
        _tid: u32,
        _mid: u32,
        ticket: u64,
        ns: u64,
        (prefix, ids, text): Pieces<'_>,
    ) {
        self.exit_element(prefix, ids, (ticket, text), ns);
    }

    #[inline]
    fn line(
        &mut self,
        _tid: u32,
        _mid: u32,
        line: u32,
        ticket: u64,
        ns: u64,
        prefix: &Piece,
        tail: &[u8],
    ) {
        self.padded(prefix);
        self.time_value(ns);
        self.bytes(b"\" line_number=\"");
        self.digits(line as u64);
        self.bytes(tail);
        self.digits(ticket);
        self.end_quoted();
    }

    fn finish(&mut self) {
        XmlOut::finish(self)
    }
    fn bytes_written(&self) -> u64 {
        self.bytes_written
    }
    fn elements(&self) -> u64 {
        self.elements
    }
    fn error(&self) -> Option<String> {
        self.error.as_ref().map(|e| e.to_string())
    }
}
