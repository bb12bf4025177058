//! Bounds-checked big-endian reader over a byte slice.
//!
//! Class files come from the application (or an attacker), so every read is
//! checked and a short buffer becomes `Err(Truncated)`, never a panic.

use super::ClassFileError;

/// A cursor over `buf`; all multi-byte values are big-endian as in JVMS 4.
#[derive(Clone, Copy)]
pub(crate) struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    pub(crate) fn new(buf: &'a [u8]) -> Self {
        Reader { buf, pos: 0 }
    }

    /// A reader positioned at `pos` (which may be past the end: the first
    /// read then fails).
    pub(crate) fn at(buf: &'a [u8], pos: usize) -> Self {
        Reader { buf, pos }
    }

    pub(crate) fn pos(&self) -> usize {
        self.pos
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.pos >= self.buf.len()
    }

    pub(crate) fn bytes(&mut self, n: usize) -> Result<&'a [u8], ClassFileError> {
        let end = self.pos.checked_add(n).ok_or(ClassFileError::Truncated)?;
        let s = self
            .buf
            .get(self.pos..end)
            .ok_or(ClassFileError::Truncated)?;
        self.pos = end;
        Ok(s)
    }

    pub(crate) fn skip(&mut self, n: usize) -> Result<(), ClassFileError> {
        self.bytes(n).map(|_| ())
    }

    pub(crate) fn u8(&mut self) -> Result<u8, ClassFileError> {
        Ok(self.bytes(1)?[0])
    }

    pub(crate) fn u16(&mut self) -> Result<u16, ClassFileError> {
        let b = self.bytes(2)?;
        Ok(u16::from_be_bytes([b[0], b[1]]))
    }

    pub(crate) fn u32(&mut self) -> Result<u32, ClassFileError> {
        let b = self.bytes(4)?;
        Ok(u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
    }

    pub(crate) fn i16(&mut self) -> Result<i16, ClassFileError> {
        Ok(self.u16()? as i16)
    }

    pub(crate) fn i32(&mut self) -> Result<i32, ClassFileError> {
        Ok(self.u32()? as i32)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_and_rejects_short_input() {
        let mut r = Reader::new(&[0x12, 0x34, 0x56]);
        assert_eq!(r.u16().unwrap(), 0x1234);
        assert!(matches!(r.u16(), Err(ClassFileError::Truncated)));
        // A failed read does not move the cursor.
        assert_eq!(r.u8().unwrap(), 0x56);
        assert!(r.is_empty());
        assert!(Reader::at(&[1], usize::MAX).bytes(2).is_err());
    }
}
