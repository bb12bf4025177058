//! Hand-written XML output: empty elements with escaped attributes, integers via `itoa`, times as Unix seconds with nine decimals.
//!
//! Formatting by hand into one reused buffer is several times faster than a generic
//! XML writer (see docs/BENCHMARKS.md); the element vocabulary is fixed, so the
//! generality is not needed.

use std::io::Write;

/// Flush to the file once this much is buffered.
const FLUSH_AT: usize = 1 << 20;

/// A buffered XML element writer over any `Write`.
pub struct XmlOut<W: Write> {
    buf: Vec<u8>,
    sink: W,
    /// First I/O error seen; later writes are skipped.
    pub error: Option<std::io::Error>,
    pub bytes_written: u64,
}

impl<W: Write> XmlOut<W> {
    pub fn new(sink: W) -> Self {
        XmlOut {
            buf: Vec::with_capacity(FLUSH_AT + 4096),
            sink,
            error: None,
            bytes_written: 0,
        }
    }

    #[inline]
    pub fn raw(&mut self, s: &str) {
        self.buf.extend_from_slice(s.as_bytes());
    }

    /// Starts `<name`.
    #[inline]
    pub fn open(&mut self, name: &str) {
        self.buf.push(b'<');
        self.buf.extend_from_slice(name.as_bytes());
    }

    /// Ends an empty element: `/>` and a newline; flushes when the buffer is large.
    #[inline]
    pub fn close(&mut self) {
        self.buf.extend_from_slice(b"/>\n");
        if self.buf.len() >= FLUSH_AT {
            self.flush_buf();
        }
    }

    #[inline]
    fn key(&mut self, k: &str) {
        self.buf.push(b' ');
        self.buf.extend_from_slice(k.as_bytes());
        self.buf.extend_from_slice(b"=\"");
    }

    #[inline]
    pub fn num(&mut self, k: &str, v: u64) {
        self.key(k);
        let mut b = itoa::Buffer::new();
        self.buf.extend_from_slice(b.format(v).as_bytes());
        self.buf.push(b'"');
    }

    #[inline]
    pub fn int(&mut self, k: &str, v: i64) {
        self.key(k);
        let mut b = itoa::Buffer::new();
        self.buf.extend_from_slice(b.format(v).as_bytes());
        self.buf.push(b'"');
    }

    pub fn boolean(&mut self, k: &str, v: bool) {
        self.str(k, if v { "true" } else { "false" });
    }

    /// Unix nanoseconds as `seconds.nnnnnnnnn`.
    #[inline]
    pub fn time(&mut self, k: &str, unix_ns: u64) {
        self.key(k);
        let mut b = itoa::Buffer::new();
        self.buf
            .extend_from_slice(b.format(unix_ns / 1_000_000_000).as_bytes());
        self.buf.push(b'.');
        let mut frac = (unix_ns % 1_000_000_000) as u32;
        let mut digits = [b'0'; 9];
        for d in digits.iter_mut().rev() {
            *d = b'0' + (frac % 10) as u8;
            frac /= 10;
        }
        self.buf.extend_from_slice(&digits);
        self.buf.push(b'"');
    }

    /// A string attribute, escaped; characters XML 1.0 forbids become U+FFFD.
    pub fn str(&mut self, k: &str, v: &str) {
        self.key(k);
        escape_into(&mut self.buf, v);
        self.buf.push(b'"');
    }

    pub fn flush_buf(&mut self) {
        if self.error.is_none() {
            if let Err(e) = self.sink.write_all(&self.buf) {
                self.error = Some(e);
            } else {
                self.bytes_written += self.buf.len() as u64;
            }
        }
        self.buf.clear();
    }

    /// Writes out everything and flushes the sink.
    pub fn finish(&mut self) {
        self.flush_buf();
        if self.error.is_none() {
            if let Err(e) = self.sink.flush() {
                self.error = Some(e);
            }
        }
    }

    pub fn sink_mut(&mut self) -> &mut W {
        &mut self.sink
    }
}

/// Escapes an attribute value.
pub fn escape_into(out: &mut Vec<u8>, v: &str) {
    for c in v.chars() {
        match c {
            '&' => out.extend_from_slice(b"&amp;"),
            '<' => out.extend_from_slice(b"&lt;"),
            '>' => out.extend_from_slice(b"&gt;"),
            '"' => out.extend_from_slice(b"&quot;"),
            '\t' => out.extend_from_slice(b"&#9;"),
            '\n' => out.extend_from_slice(b"&#10;"),
            '\r' => out.extend_from_slice(b"&#13;"),
            c if (c as u32) < 0x20 || c == '\u{FFFE}' || c == '\u{FFFF}' => {
                out.extend_from_slice("\u{FFFD}".as_bytes())
            }
            c => {
                let mut b = [0u8; 4];
                out.extend_from_slice(c.encode_utf8(&mut b).as_bytes());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn element_with_escapes_and_time() {
        let mut x = XmlOut::new(Vec::new());
        x.open("methodDef");
        x.str("name", "a<b>&\"c\"\u{1}");
        x.num("methodId", 42);
        x.time("time", 1_716_203_600_000_000_123);
        x.close();
        x.finish();
        let s = String::from_utf8(x.sink_mut().clone()).unwrap();
        assert_eq!(
            s,
            "<methodDef name=\"a&lt;b&gt;&amp;&quot;c&quot;\u{FFFD}\" methodId=\"42\" time=\"1716203600.000000123\"/>\n"
        );
    }
}
