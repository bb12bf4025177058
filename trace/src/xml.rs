//! Hand-written XML output: empty elements with escaped attributes, integers via `itoa`, times as Unix seconds with nine decimals.
//!
//! Formatting by hand into one reused buffer is several times faster than a generic
//! XML writer (see docs/BENCHMARKS.md); the element vocabulary is fixed, so the
//! generality is not needed.

use std::io::Write;

/// Flush to the file once this much is buffered.
const FLUSH_AT: usize = 1 << 20;
/// The buffer's size: `FLUSH_AT` and room for the element that crosses it (a larger
/// piece is written through, see `XmlOut::put`).
const CAP: usize = FLUSH_AT + (64 << 10);

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

/// The end of a `methodEntry` of stack depth 0 to 999: the depth's digits and
/// `"/>` and a newline, the length in the last byte (one 8-byte copy).
static DEPTH_ENDS: [[u8; 8]; 1000] = depth_ends();

const fn depth_ends() -> [[u8; 8]; 1000] {
    let mut t = [[0u8; 8]; 1000];
    let mut d = 0;
    while d < 1000 {
        let q = [
            b'0',
            b'0' + (d / 100) as u8,
            b'0' + (d / 10 % 10) as u8,
            b'0' + (d % 10) as u8,
        ];
        let len = if d >= 100 {
            3
        } else if d >= 10 {
            2
        } else {
            1
        };
        let mut i = 0;
        while i < len {
            t[d][i] = q[4 - len + i];
            i += 1;
        }
        t[d][len] = b'"';
        t[d][len + 1] = b'/';
        t[d][len + 2] = b'>';
        t[d][len + 3] = b'\n';
        t[d][7] = (len + 4) as u8;
        d += 1;
    }
    t
}

/// A short piece of text in a fixed-size block (see `XmlOut::padded`).
#[derive(Clone, Copy)]
pub struct Padded<const N: usize> {
    bytes: [u8; N],
    /// Always below `N` (see `Slot::padded`).
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
    /// `text` if it is shorter than the block, else None.
    pub fn new(text: &[u8]) -> Option<Self> {
        if text.len() >= N {
            return None;
        }
        let mut bytes = [0u8; N];
        bytes[..text.len()].copy_from_slice(text);
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
    /// The decimal digits of `v`, two at a time, written in place from the last
    /// (their count is known first: no variable-length copy afterwards).
    #[inline(always)]
    pub fn number(mut v: u64) -> Self {
        let mut bytes = [0u8; 24];
        let len = digit_count(v);
        let mut i = len;
        while v >= 100 {
            let d = (v % 100) as usize * 2;
            v /= 100;
            i -= 2;
            bytes[i..i + 2].copy_from_slice(&PAIRS[d..d + 2]);
        }
        if v >= 10 {
            let d = v as usize * 2;
            bytes[..2].copy_from_slice(&PAIRS[d..d + 2]);
        } else {
            bytes[0] = b'0' + v as u8;
        }
        Padded { bytes, len }
    }
}

/// A counter kept as its decimal digits, ready to copy: a thread's tickets count up by
/// one per entry, and an increment nearly always touches only the last digit (no
/// division). Up to 15 digits; past them `len` is 0 and the writer formats the number
/// itself (see [`Slot::ticket`]).
#[derive(Clone, Copy)]
pub struct Decimal {
    /// The digits, then `len` in the last byte: one 16-byte block to copy.
    b: [u8; 16],
}

impl Default for Decimal {
    fn default() -> Self {
        Decimal::ZERO
    }
}

impl Decimal {
    /// Zero.
    pub const ZERO: Decimal = {
        let mut b = [0u8; 16];
        b[0] = b'0';
        b[15] = 1;
        Decimal { b }
    };

    /// `n`'s digits (past 15 of them, a counter the writer formats itself).
    pub fn of(n: u64) -> Decimal {
        let text = n.to_string();
        let mut b = [0u8; 16];
        if text.len() < 16 {
            b[..text.len()].copy_from_slice(text.as_bytes());
            b[15] = text.len() as u8;
        }
        Decimal { b }
    }

    /// Adds one.
    #[inline(always)]
    pub fn increment(&mut self) {
        let len = self.b[15] as usize;
        if len != 0 && self.b[len - 1] != b'9' {
            self.b[len - 1] += 1;
        } else {
            self.carry();
        }
    }

    /// `increment` when the last digit is 9 (or the counter is too long).
    #[cold]
    fn carry(&mut self) {
        let len = self.b[15] as usize;
        if len == 0 {
            return;
        }
        for i in (0..len).rev() {
            if self.b[i] != b'9' {
                self.b[i] += 1;
                return;
            }
            self.b[i] = b'0';
        }
        // All nines: 1 and `len` zeros.
        if len == 15 {
            self.b[15] = 0;
            return;
        }
        self.b[0] = b'1';
        self.b[len] = b'0';
        self.b[15] = len as u8 + 1;
    }

    /// The digits, or None past 15 of them.
    pub fn digits(&self) -> Option<&[u8]> {
        let len = self.b[15] as usize;
        (len != 0).then(|| &self.b[..len])
    }
}

/// Powers of ten, 10^0 to 10^19.
const POW10: [u64; 20] = {
    let mut t = [1u64; 20];
    let mut i = 1;
    while i < 20 {
        t[i] = t[i - 1] * 10;
        i += 1;
    }
    t
};

/// Decimal digits of `v` (1 for 0): the bit length times log10(2) (1233/4096)
/// guesses one less than the count or the count itself, one comparison decides.
#[inline(always)]
fn digit_count(v: u64) -> usize {
    let bits = 64 - (v | 1).leading_zeros() as usize;
    let guess = (bits * 1233) >> 12;
    guess + ((v | 1) >= POW10[guess]) as usize
}

/// A buffered XML element writer over any `Write`.
pub struct XmlOut<W: Write> {
    /// `CAP` bytes, zeroed once; `len` of them are written. Fixed, so that a hot
    /// element is written into it with one room check (see `slot`).
    buf: Box<[u8; CAP]>,
    len: usize,
    /// An escaped attribute value on its way into `buf`.
    scratch: Vec<u8>,
    /// The last time's `seconds.ddddd` (all but its last four digits) and the first
    /// time that has it (a multiple of 10,000 ns): consecutive hot elements usually
    /// share it, and a time in `hi_base..hi_base + 10_000` needs only its last four.
    hi_base: u64,
    hi_text: Padded<32>,
    sink: W,
    /// First I/O error seen; later writes are skipped.
    pub error: Option<std::io::Error>,
    pub bytes_written: u64,
    /// Elements written (started), for the closing line on stderr.
    pub elements: u64,
}

/// Bytes one hot element may take (see [`XmlOut::slot`]): two 64-byte pieces, a
/// time, two numbers and the fixed text between them fit with room to spare.
pub const SLOT: usize = 320;

/// A hot element being written: fixed-size copies into a slot of the buffer at cursor `n`.
pub struct Slot<'a> {
    b: &'a mut [u8; SLOT],
    n: usize,
}

impl Slot<'_> {
    /// The `len` bytes of a block, by copying the whole block (a constant-size move).
    /// `N` is a power of two and `len` below it, so `len & (N - 1)` is `len`, in one
    /// instruction, and bounds the cursor for the copies after it.
    #[inline(always)]
    pub fn padded<const N: usize>(&mut self, p: &Padded<N>) {
        const { assert!(N.is_power_of_two()) };
        self.b[self.n..self.n + N].copy_from_slice(&p.bytes);
        self.n += p.len & (N - 1);
    }

    #[inline(always)]
    pub fn fixed<const N: usize>(&mut self, s: &[u8; N]) {
        self.b[self.n..self.n + N].copy_from_slice(s);
        self.n += N;
    }

    #[inline(always)]
    pub fn byte(&mut self, v: u8) {
        self.b[self.n] = v;
        self.n += 1;
    }

    /// The decimal digits of `v`, written in place: four at a time from the last,
    /// then the one to four leading digits.
    #[inline(always)]
    pub fn digits(&mut self, mut v: u64) {
        let len = digit_count(v);
        let d: &mut [u8; 20] = (&mut self.b[self.n..self.n + 20])
            .try_into()
            .expect("20 bytes");
        let mut i = len;
        while v >= 10_000 {
            let q = (v % 10_000) as usize;
            v /= 10_000;
            i -= 4;
            d[i..i + 4].copy_from_slice(&QUADS[q]);
        }
        let q = &QUADS[v as usize];
        match i {
            1 => d[0] = q[3],
            2 => d[..2].copy_from_slice(&q[2..]),
            3 => d[..3].copy_from_slice(&q[1..]),
            _ => d[..4].copy_from_slice(q),
        }
        self.n += len;
    }

    /// A ticket: its digits kept by a [`Decimal`] (one 16-byte copy), or `v` formatted
    /// when the counter has more than 15 digits.
    #[inline(always)]
    pub fn ticket(&mut self, text: &Decimal, v: u64) {
        let len = text.b[15] as usize;
        if len != 0 {
            self.b[self.n..self.n + 16].copy_from_slice(&text.b);
            self.n += len;
        } else {
            self.digits(v);
        }
    }

    /// A `methodEntry`'s depth and the element's end (`"/>` and a newline).
    #[inline(always)]
    pub fn depth_end(&mut self, depth: u64) {
        if let Some(end) = DEPTH_ENDS.get(depth as usize) {
            self.b[self.n..self.n + 8].copy_from_slice(end);
            self.n += end[7] as usize;
        } else {
            self.digits(depth);
            self.fixed(b"\"/>\n");
        }
    }

    /// `seconds.nnnnnnnnn` from its parts (see `XmlOut::time_parts`): all but the last
    /// four digits, then those.
    #[inline(always)]
    pub fn time(&mut self, hi: &Padded<32>, low: u32) {
        self.padded(hi);
        self.fixed(&QUADS[low as usize]);
    }
}

impl<W: Write> XmlOut<W> {
    pub fn new(sink: W) -> Self {
        XmlOut {
            buf: vec![0u8; CAP]
                .into_boxed_slice()
                .try_into()
                .expect("CAP bytes"),
            len: 0,
            scratch: Vec::new(),
            hi_base: 0,
            hi_text: Padded::new(b"0.00000").expect("fits"),
            sink,
            error: None,
            bytes_written: 0,
            elements: 0,
        }
    }

    /// Appends `s`; flushes first if it does not fit, and writes a piece larger
    /// than the whole buffer straight through.
    #[inline]
    fn put(&mut self, s: &[u8]) {
        if s.len() > CAP - self.len {
            self.flush_buf();
            if s.len() > CAP {
                self.write_through(s);
                return;
            }
        }
        self.buf[self.len..self.len + s.len()].copy_from_slice(s);
        self.len += s.len();
    }

    #[cold]
    fn write_through(&mut self, s: &[u8]) {
        if self.error.is_none() {
            match self.sink.write_all(s) {
                Ok(()) => self.bytes_written += s.len() as u64,
                Err(e) => self.error = Some(e),
            }
        }
    }

    /// Makes sure `n` bytes fit after `len` (`n` at most `CAP`).
    #[inline(always)]
    fn room(&mut self, n: usize) {
        if n > CAP - self.len {
            self.flush_buf();
        }
    }

    #[inline]
    pub fn raw(&mut self, s: &str) {
        self.put(s.as_bytes());
    }

    /// Ends the start tag of an element that has children (`>` and a newline).
    pub fn start_children(&mut self) {
        self.elements += 1;
        self.put(b">\n");
    }

    /// Starts `<name`.
    #[inline]
    pub fn open(&mut self, name: &str) {
        self.put(b"<");
        self.put(name.as_bytes());
    }

    /// Ends an empty element: `/>` and a newline; flushes when the buffer is large.
    #[inline]
    pub fn close(&mut self) {
        self.elements += 1;
        self.put(b"/>\n");
        if self.len >= FLUSH_AT {
            self.flush_buf();
        }
    }

    #[inline]
    fn key(&mut self, k: &str) {
        self.put(b" ");
        self.put(k.as_bytes());
        self.put(b"=\"");
    }

    #[inline]
    pub fn num(&mut self, k: &str, v: u64) {
        self.key(k);
        let mut b = itoa::Buffer::new();
        self.put(b.format(v).as_bytes());
        self.put(b"\"");
    }

    #[inline]
    pub fn int(&mut self, k: &str, v: i64) {
        self.key(k);
        let mut b = itoa::Buffer::new();
        self.put(b.format(v).as_bytes());
        self.put(b"\"");
    }

    pub fn boolean(&mut self, k: &str, v: bool) {
        self.str(k, if v { "true" } else { "false" });
    }

    /// Unix nanoseconds as `seconds.nnnnnnnnn`.
    #[inline]
    pub fn time(&mut self, k: &str, unix_ns: u64) {
        self.key(k);
        self.time_value(unix_ns);
        self.put(b"\"");
    }

    /// Just the value of a time attribute: `seconds.nnnnnnnnn` (as the hot elements
    /// write it: the cached `seconds.ddddd`, then the last four digits).
    #[inline(always)]
    pub fn time_value(&mut self, unix_ns: u64) {
        let low = self.time_parts(unix_ns);
        let hi = self.hi_text;
        self.padded(&hi);
        self.put(&QUADS[low as usize]);
    }

    /// Appends pre-formatted bytes (attribute text the writer keeps ready).
    #[inline]
    pub fn bytes(&mut self, b: &[u8]) {
        self.put(b);
    }

    /// Appends the first `len` bytes of a fixed-size block. Copying the whole block
    /// (a constant size, so an inlined move) and cutting back is much cheaper for
    /// these short pieces than a memcpy call of variable length.
    #[inline(always)]
    pub fn padded<const N: usize>(&mut self, block: &Padded<N>) {
        self.room(N);
        self.buf[self.len..self.len + N].copy_from_slice(&block.bytes);
        self.len += block.len.min(N);
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
        self.put(b"\"/>\n");
        if self.len >= FLUSH_AT {
            self.flush_buf();
        }
    }

    /// A string attribute, escaped; characters XML 1.0 forbids become U+FFFD.
    pub fn str(&mut self, k: &str, v: &str) {
        self.key(k);
        let mut e = std::mem::take(&mut self.scratch);
        e.clear();
        escape_into(&mut e, v);
        self.put(&e);
        self.scratch = e;
        self.put(b"\"");
    }

    /// Brings `hi_text` up to date for `unix_ns` (see the field) and returns the time's
    /// last four digits (nanoseconds modulo 10,000).
    #[inline(always)]
    fn time_parts(&mut self, unix_ns: u64) -> u32 {
        // A loop (taken once after set_hi) so that the compiler sees the result below
        // 10,000: indexing `QUADS` with it needs no check.
        loop {
            let low = unix_ns.wrapping_sub(self.hi_base);
            if low < 10_000 {
                return low as u32;
            }
            self.set_hi(unix_ns);
        }
    }

    /// `seconds.ddddd` of `unix_ns` (all but its last four digits) into `hi_text`.
    #[cold]
    fn set_hi(&mut self, unix_ns: u64) {
        let hi = unix_ns / 10_000;
        self.hi_base = hi * 10_000;
        let (secs, top5) = (hi / 100_000, (hi % 100_000) as u32);
        let mut b = itoa::Buffer::new();
        let text = b.format(secs).as_bytes();
        let mut bytes = [0u8; 32];
        bytes[..text.len()].copy_from_slice(text);
        let n = text.len();
        bytes[n] = b'.';
        bytes[n + 1] = b'0' + (top5 / 10_000) as u8;
        bytes[n + 2..n + 6].copy_from_slice(&QUADS[(top5 % 10_000) as usize]);
        self.hi_text = Padded { bytes, len: n + 6 };
    }

    /// A fixed-size slot for one hot element (at most [`SLOT`] bytes) at the end of
    /// the buffer, and the cached time text: one capacity check for the element
    /// instead of one per piece. [`XmlOut::commit`] ends the element.
    #[inline(always)]
    pub fn slot(&mut self) -> (Slot<'_>, &Padded<32>) {
        let mut at = self.len;
        if at > CAP - SLOT {
            self.flush_buf();
            at = 0;
        }
        let room: &mut [u8; SLOT] = (&mut self.buf[at..at + SLOT])
            .try_into()
            .expect("room made for SLOT bytes");
        (Slot { b: room, n: 0 }, &self.hi_text)
    }

    /// Keeps the `n` bytes written into the slot as one element; flushes when the
    /// buffer is large.
    #[inline(always)]
    pub fn commit(&mut self, n: usize) {
        self.len += n.min(SLOT);
        self.elements += 1;
        if self.len >= FLUSH_AT {
            self.flush_buf();
        }
    }

    /// `<methodEntry`'s whole element: `prefix` (up to `time="`), the time, `ids`
    /// (`" methodIdRef=... ticket="`), the ticket (its number and its digits), the depth.
    #[inline(always)]
    pub fn entry_element(
        &mut self,
        prefix: &Padded<64>,
        unix_ns: u64,
        ids: &Padded<64>,
        (ticket, text): (u64, &Decimal),
        depth: u64,
    ) {
        let low = self.time_parts(unix_ns);
        let (mut c, hi) = self.slot();
        c.padded(prefix);
        c.time(hi, low);
        c.byte(b'"');
        c.padded(ids);
        c.ticket(text, ticket);
        c.fixed(b"\" stackDepth=\"");
        c.depth_end(depth);
        let n = c.n;
        self.commit(n);
    }

    /// `<methodExit`'s whole element: `prefix`, `ids`, the ticket, the time.
    #[inline(always)]
    pub fn exit_element(
        &mut self,
        prefix: &Padded<64>,
        ids: &Padded<64>,
        (ticket, text): (u64, &Decimal),
        unix_ns: u64,
    ) {
        let low = self.time_parts(unix_ns);
        let (mut c, hi) = self.slot();
        c.padded(prefix);
        c.padded(ids);
        c.ticket(text, ticket);
        c.fixed(b"\" time=\"");
        c.time(hi, low);
        c.fixed(b"\"/>\n");
        let n = c.n;
        self.commit(n);
    }

    pub fn flush_buf(&mut self) {
        if self.error.is_none() {
            if let Err(e) = self.sink.write_all(&self.buf[..self.len]) {
                self.error = Some(e);
            } else {
                self.bytes_written += self.len as u64;
            }
        }
        self.len = 0;
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
        let mut p = 1u64;
        for _ in 0..19 {
            for v in [p - 1, p, p + 1, p * 9, p * 10 - 1] {
                assert_eq!(Padded::<24>::number(v).as_bytes(), v.to_string().as_bytes());
            }
            p *= 10;
        }
        for v in [0u64, 7, 10, 99, 100, 12345, u64::MAX] {
            assert_eq!(Padded::<24>::number(v).as_bytes(), v.to_string().as_bytes());
        }
        assert!(Padded::<4>::new(b"12345").is_none());
        assert!(
            Padded::<4>::new(b"1234").is_none(),
            "the length stays below the block"
        );
        assert_eq!(Padded::<4>::new(b"123").unwrap().as_bytes(), b"123");
    }

    #[test]
    fn decimal_counts_like_a_number() {
        let mut d = Decimal::ZERO;
        for v in 0..=100_000u64 {
            assert_eq!(d.digits().unwrap(), v.to_string().as_bytes());
            d.increment();
        }
        // Every carry into a new digit, up to the last count it keeps.
        let mut p = 10u64;
        for len in 1..15 {
            let mut d = Decimal::ZERO;
            d.b[..len].fill(b'9');
            d.b[15] = len as u8;
            d.increment();
            assert_eq!(d.digits().unwrap(), p.to_string().as_bytes());
            p *= 10;
        }
        let mut d = Decimal::ZERO;
        d.b[..15].fill(b'9');
        d.b[15] = 15;
        d.increment();
        assert!(
            d.digits().is_none(),
            "past 15 digits the number is formatted"
        );
        d.increment();
        assert!(d.digits().is_none());
        // Written by a slot either way.
        let mut x = XmlOut::new(Vec::new());
        let (mut c, _) = x.slot();
        c.ticket(&d, 1_000_000_000_000_001);
        c.byte(b' ');
        c.ticket(&Decimal::ZERO, 0);
        let n = c.n;
        x.commit(n);
        x.finish();
        assert_eq!(x.sink_mut().as_slice(), b"1000000000000001 0");
    }

    #[test]
    fn slot_digits() {
        let mut x = XmlOut::new(Vec::new());
        let mut want = String::new();
        let mut p = 1u64;
        for _ in 0..20 {
            for v in [
                p - 1,
                p,
                p + 1,
                p.saturating_mul(9),
                p.saturating_mul(10) - 1,
            ] {
                let (mut c, _) = x.slot();
                c.digits(v);
                c.byte(b' ');
                let n = c.n;
                x.commit(n);
                want.push_str(&format!("{v} "));
            }
            p = p.saturating_mul(10);
        }
        x.finish();
        assert_eq!(String::from_utf8(x.sink_mut().clone()).unwrap(), want);
    }

    #[test]
    fn hot_times_as_time_value() {
        let mut a = XmlOut::new(Vec::new());
        let mut b = XmlOut::new(Vec::new());
        let p = Padded::<64>::new(b"<e t=\"").unwrap();
        let ids = Padded::<64>::new(b" ticket=\"").unwrap();
        for ns in [
            0u64,
            5,
            9_999,
            10_000,
            999_999_999,
            1_000_000_000,
            1_716_203_600_000_000_123,
            1_716_203_600_000_009_999,
            1_716_203_600_000_010_000,
            1_716_203_600_987_654_321,
            1_716_203_601_100_000_000,
        ] {
            let mut seven = Decimal::ZERO;
            for _ in 0..7 {
                seven.increment();
            }
            a.entry_element(&p, ns, &ids, (7, &seven), 1);
            b.raw("<e t=\"");
            b.time_value(ns);
            b.raw("\" ticket=\"7\" stackDepth=\"1\"/>\n");
        }
        a.finish();
        b.finish();
        assert_eq!(a.sink_mut().clone(), b.sink_mut().clone());
    }

    #[test]
    fn entries_of_every_depth() {
        let mut a = XmlOut::new(Vec::new());
        let mut want = String::new();
        let p = Padded::<64>::new(b"<e t=\"").unwrap();
        let ids = Padded::<64>::new(b" ticket=\"").unwrap();
        let mut ticket = Decimal::ZERO;
        for (i, depth) in (0..1100).chain([9_999, 10_000, 32_767]).enumerate() {
            ticket.increment();
            a.entry_element(&p, 5, &ids, (i as u64 + 1, &ticket), depth);
            want.push_str(&format!(
                "<e t=\"0.000000005\" ticket=\"{}\" stackDepth=\"{depth}\"/>\n",
                i + 1
            ));
        }
        a.finish();
        assert_eq!(String::from_utf8(a.sink_mut().clone()).unwrap(), want);
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
