//! A `BufRead` adapter that counts the newlines the XML parser has consumed, for line numbers.

use std::io::{self, BufRead, Read};

/// Wraps a reader and counts `\n` bytes as they are consumed. Streaming: no copy, no lookahead.
pub struct LineCounter<R> {
    inner: R,
    newlines: u64,
}

impl<R: BufRead> LineCounter<R> {
    pub fn new(inner: R) -> Self {
        LineCounter { inner, newlines: 0 }
    }

    /// Number of newline bytes consumed so far.
    pub fn newlines(&self) -> u64 {
        self.newlines
    }
}

fn count_newlines(bytes: &[u8]) -> u64 {
    bytes.iter().filter(|&&b| b == b'\n').count() as u64
}

impl<R: BufRead> Read for LineCounter<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.newlines += count_newlines(&buf[..n]);
        Ok(n)
    }
}

impl<R: BufRead> BufRead for LineCounter<R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        self.inner.fill_buf()
    }

    fn consume(&mut self, amt: usize) {
        if amt > 0 {
            // `amt` bytes were returned by the last `fill_buf`, which is therefore
            // non-empty and answered from the buffer without I/O.
            if let Ok(buf) = self.inner.fill_buf() {
                self.newlines += count_newlines(&buf[..amt.min(buf.len())]);
            }
        }
        self.inner.consume(amt);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_consumed_newlines() {
        let data = b"a\nb\nc\n";
        let mut r = LineCounter::new(io::BufReader::with_capacity(2, &data[..]));
        let mut s = String::new();
        r.read_line(&mut s).unwrap();
        assert_eq!(r.newlines(), 1);
        r.read_to_string(&mut s).unwrap();
        assert_eq!(r.newlines(), 3);
    }
}
