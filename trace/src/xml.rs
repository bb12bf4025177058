//! Hand-written XML output: empty elements with escaped attributes, integers via `itoa`, times as Unix seconds with nine decimals.
//!
//! Formatting by hand into one reused buffer is several times faster than a generic
//! XML writer (see docs/BENCHMARKS.md); the element vocabulary is fixed, so the
//! generality is not needed.

use std::io::Write;

/// Flush to the file once this much is buffered.
const FLUSH_AT: usize = 1 << 20;

/// "00" to "99": two digits per table lookup when formatting nanoseconds.
const PAIRS: &[u8; 200] = b"0001020304050607080910111213141516171819\
2021222324252627282930313233343536373839\
4041424344454647484950515253545556575859\
6061626364656667686970717273747576777879\
8081828384858687888990919293949596979899";

/// "0000" to "9999": the fraction of a time in two lookups.
static QUADS: [[u8; 4]; 10_000] = quads();

const fn quads() -> [[u8; 4]; 10_000] {
    let mut t = [[0u8; 4]; 10_000];
    let mut i = 0;
    while i < 10_000 {
        t[i] = [
            b'0' + (i / 1000) as u8,
            b'0' + (i / 100 % 10) as u8,
            b'0' + (i / 10 % 10) as u8,
            b'0' + (i % 10) as u8,
        ];
        i += 1;
    }
    t
}

/// A short piece of text in a fixed-size block (see `XmlOut::padded`).
#[derive(Clone, Copy)]
pub struct Padded<const N: usize> {
    bytes: [u8; N],
    len: usize,
}

impl<const N: usize> Default for Padded<N> {
    fn default() -> Self {
        Padded {
            bytes: [0u8; N],
            len: 0,
        }
    }
}

impl<const N: usize> Padded<N> {
    /// `text` if it fits, else None.
    pub fn new(text: &[u8]) -> Option<Self> {
        let mut bytes = [0u8; N];
        bytes.get_mut(..text.len())?.copy_from_slice(text);
        Some(Padded {
            bytes,
            len: text.len(),
        })
    }

    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes[..self.len]
    }
}

impl Padded<24> {
    /// The decimal digits of `v`, two at a time.
    #[inline(always)]
    pub fn number(mut v: u64) -> Self {
        let mut bytes = [0u8; 24];
        if v < 10 {
            bytes[0] = b'0' + v as u8;
            return Padded { bytes, len: 1 };
        }
        let mut tmp = [0u8; 20];
        let mut i = 20;
        while v >= 100 {
            let d = (v % 100) as usize * 2;
            v /= 100;
            i -= 2;
            tmp[i..i + 2].copy_from_slice(&PAIRS[d..d + 2]);
        }
        if v >= 10 {
            let d = v as usize * 2;
            i -= 2;
            tmp[i..i + 2].copy_from_slice(&PAIRS[d..d + 2]);
        } else {
            i -= 1;
            tmp[i] = b'0' + v as u8;
        }
        let len = 20 - i;
        bytes[..len].copy_from_slice(&tmp[i..]);
        Padded { bytes, len }
    }
}

/// A buffered XML element writer over any `Write`.
pub struct XmlOut<W: Write> {
    buf: Vec<u8>,
    /// The last whole second formatted, and its digits: consecutive events share it.
    secs: u64,
    secs_text: [u8; 20],
    secs_len: usize,
    sink: W,
    /// First I/O error seen; later writes are skipped.
    pub error: Option<std::io::Error>,
    pub bytes_written: u64,
    /// Elements written (started), for the closing line on stderr.
    pub elements: u64,
}

impl<W: Write> XmlOut<W> {
    pub fn new(sink: W) -> Self {
        XmlOut {
            buf: Vec::with_capacity(FLUSH_AT + 4096),
            secs: 0,
            secs_text: [b'0'; 20],
            secs_len: 1,
            sink,
            error: None,
            bytes_written: 0,
            elements: 0,
        }
    }

    #[inline]
    pub fn raw(&mut self, s: &str) {
        self.buf.extend_from_slice(s.as_bytes());
    }

    /// Ends the start tag of an element that has children (`>` and a newline).
    pub fn start_children(&mut self) {
        self.elements += 1;
        self.buf.extend_from_slice(b">\n");
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
        self.elements += 1;
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
        self.time_value(unix_ns);
        self.buf.push(b'"');
    }

    /// Just the value of a time attribute: `seconds.nnnnnnnnn`.
    #[inline]
    pub fn time_value(&mut self, unix_ns: u64) {
        let secs = unix_ns / 1_000_000_000;
        if secs != self.secs {
            self.secs = secs;
            let mut b = itoa::Buffer::new();
            let text = b.format(secs).as_bytes();
            self.secs_text[..text.len()].copy_from_slice(text);
            self.secs_len = text.len();
        }
        let secs_block = Padded::<20> {
            bytes: self.secs_text,
            len: self.secs_len,
        };
        self.padded(&secs_block);
        let frac = (unix_ns - secs * 1_000_000_000) as u32;
        // `.` and nine digits: one digit, then two four-digit groups from a table
        // (two multiply-shift divisions and two loads instead of nine digit steps).
        let (top, rest) = (frac / 100_000_000, frac % 100_000_000);
        let (mid, low) = (rest / 10_000, rest % 10_000);
        let mut d = [0u8; 10];
        d[0] = b'.';
        d[1] = b'0' + top as u8;
        d[2..6].copy_from_slice(&QUADS[mid as usize]);
        d[6..10].copy_from_slice(&QUADS[low as usize]);
        self.buf.extend_from_slice(&d);
    }

    /// Appends pre-formatted bytes (attribute text the writer keeps ready).
    #[inline]
    pub fn bytes(&mut self, b: &[u8]) {
        self.buf.extend_from_slice(b);
    }

    /// Appends the first `len` bytes of a fixed-size block. Copying the whole block
    /// (a constant size, so an inlined move) and cutting back is much cheaper for
    /// these short pieces than a memcpy call of variable length.
    #[inline(always)]
    pub fn padded<const N: usize>(&mut self, block: &Padded<N>) {
        let at = self.buf.len();
        self.buf.extend_from_slice(&block.bytes);
        self.buf.truncate(at + block.len);
    }

    /// Appends an unsigned integer's digits.
    #[inline]
    pub fn digits(&mut self, v: u64) {
        self.padded(&Padded::<24>::number(v));
    }

    /// Ends an element written with `bytes`/`digits` (`"/>` and a newline).
    #[inline]
    pub fn end_quoted(&mut self) {
        self.elements += 1;
        self.buf.extend_from_slice(b"\"/>\n");
        if self.buf.len() >= FLUSH_AT {
            self.flush_buf();
        }
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

    /// The sink, once `finish` has flushed everything into it.
    pub fn into_sink(self) -> W {
        self.sink
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
    fn numbers() {
        for v in [0u64, 7, 10, 99, 100, 12345, u64::MAX] {
            assert_eq!(Padded::<24>::number(v).as_bytes(), v.to_string().as_bytes());
        }
        assert!(Padded::<4>::new(b"12345").is_none());
    }

    #[test]
    fn time_digits() {
        let mut x = XmlOut::new(Vec::new());
        for (ns, want) in [
            (1_716_203_600_000_000_123u64, "1716203600.000000123"),
            (1_716_203_600_987_654_321, "1716203600.987654321"),
            (1_716_203_601_100_000_000, "1716203601.100000000"),
            (5, "0.000000005"),
        ] {
            x.time_value(ns);
            x.bytes(b" ");
            let _ = want;
        }
        x.finish();
        let s = String::from_utf8(x.sink_mut().clone()).unwrap();
        assert_eq!(
            s,
            "1716203600.000000123 1716203600.987654321 1716203601.100000000 0.000000005 "
        );
    }

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
