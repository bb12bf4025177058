//! Byte-level encoding of `.jtr` block bodies: LEB128 integers, length-prefixed strings, and a cursor that reads them back without panicking.

/// Appends `v` as an unsigned LEB128 integer (1 byte below 128, at most 10).
pub fn put_uvar(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Appends `v` zigzag-encoded (small negative numbers stay short).
pub fn put_ivar(out: &mut Vec<u8>, v: i64) {
    put_uvar(out, ((v << 1) ^ (v >> 63)) as u64);
}

/// Appends a UTF-8 string: its length, then its bytes.
pub fn put_str(out: &mut Vec<u8>, s: &str) {
    put_uvar(out, s.len() as u64);
    out.extend_from_slice(s.as_bytes());
}

pub fn put_bool(out: &mut Vec<u8>, b: bool) {
    out.push(b as u8);
}

/// Reads a block body back; every read names what was expected when it fails.
pub struct Cursor<'a> {
    buf: &'a [u8],
    pos: usize,
}

/// What a malformed body lacked.
pub type WireResult<T> = Result<T, String>;

impl<'a> Cursor<'a> {
    pub fn new(buf: &'a [u8]) -> Self {
        Cursor { buf, pos: 0 }
    }

    pub fn is_empty(&self) -> bool {
        self.pos >= self.buf.len()
    }

    pub fn u8(&mut self, what: &str) -> WireResult<u8> {
        let b = *self
            .buf
            .get(self.pos)
            .ok_or_else(|| format!("block ends before {what}"))?;
        self.pos += 1;
        Ok(b)
    }

    pub fn bool(&mut self, what: &str) -> WireResult<bool> {
        match self.u8(what)? {
            0 => Ok(false),
            1 => Ok(true),
            b => Err(format!("{what}: {b} is not a boolean")),
        }
    }

    pub fn uvar(&mut self, what: &str) -> WireResult<u64> {
        let mut v: u64 = 0;
        for shift in (0..64).step_by(7) {
            let b = self.u8(what)?;
            v |= ((b & 0x7f) as u64) << shift;
            if b & 0x80 == 0 {
                return Ok(v);
            }
        }
        Err(format!("{what}: integer longer than 10 bytes"))
    }

    pub fn u32var(&mut self, what: &str) -> WireResult<u32> {
        let v = self.uvar(what)?;
        u32::try_from(v).map_err(|_| format!("{what}: {v} does not fit 32 bits"))
    }

    pub fn u16var(&mut self, what: &str) -> WireResult<u16> {
        let v = self.uvar(what)?;
        u16::try_from(v).map_err(|_| format!("{what}: {v} does not fit 16 bits"))
    }

    pub fn ivar(&mut self, what: &str) -> WireResult<i64> {
        let v = self.uvar(what)?;
        Ok(((v >> 1) as i64) ^ -((v & 1) as i64))
    }

    pub fn bytes(&mut self, n: usize, what: &str) -> WireResult<&'a [u8]> {
        let end = self
            .pos
            .checked_add(n)
            .filter(|&e| e <= self.buf.len())
            .ok_or_else(|| format!("block ends inside {what}"))?;
        let b = &self.buf[self.pos..end];
        self.pos = end;
        Ok(b)
    }

    pub fn str(&mut self, what: &str) -> WireResult<String> {
        let n = self.uvar(what)?;
        let n = usize::try_from(n).map_err(|_| format!("{what}: length {n}"))?;
        let b = self.bytes(n, what)?;
        String::from_utf8(b.to_vec()).map_err(|_| format!("{what} is not UTF-8"))
    }

    /// A count of items that each take at least one byte: never more than the bytes
    /// left, so a corrupt count cannot make the reader reserve gigabytes.
    pub fn count(&mut self, what: &str) -> WireResult<usize> {
        let n = self.uvar(what)?;
        if n > (self.buf.len() - self.pos) as u64 {
            return Err(format!(
                "{what}: {n} items in {} bytes",
                self.buf.len() - self.pos
            ));
        }
        Ok(n as usize)
    }

    /// Bytes not read yet.
    pub fn left(&self) -> usize {
        self.buf.len().saturating_sub(self.pos)
    }

    /// The rest of the body.
    pub fn rest(&mut self) -> &'a [u8] {
        let b = &self.buf[self.pos.min(self.buf.len())..];
        self.pos = self.buf.len();
        b
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_and_strings_round_trip() {
        let mut b = Vec::new();
        for v in [0u64, 1, 127, 128, 300, u32::MAX as u64, u64::MAX] {
            put_uvar(&mut b, v);
        }
        for v in [0i64, -1, 1, -300, i64::MIN, i64::MAX] {
            put_ivar(&mut b, v);
        }
        put_str(&mut b, "héllo");
        put_bool(&mut b, true);
        let mut c = Cursor::new(&b);
        for v in [0u64, 1, 127, 128, 300, u32::MAX as u64, u64::MAX] {
            assert_eq!(c.uvar("v").unwrap(), v);
        }
        for v in [0i64, -1, 1, -300, i64::MIN, i64::MAX] {
            assert_eq!(c.ivar("v").unwrap(), v);
        }
        assert_eq!(c.str("s").unwrap(), "héllo");
        assert!(c.bool("b").unwrap());
        assert!(c.is_empty());
        assert!(c.u8("more").is_err());
    }

    #[test]
    fn corrupt_input_is_an_error_not_a_panic() {
        let mut c = Cursor::new(&[0xff; 12]);
        assert!(c.uvar("x").is_err());
        let mut c = Cursor::new(&[200, 1, b'a']);
        assert!(c.str("name").is_err());
        let mut c = Cursor::new(&[100]);
        assert!(c.count("items").is_err());
    }
}
