//! Constant pool: indexing the original pool and appending new entries.
//!
//! The original pool is never rewritten: entries are located by offset so
//! lookups are cheap, and instrumentation only appends, which keeps every
//! existing index (and thus every instruction operand) valid.

use std::borrow::Cow;
use std::collections::HashMap;

use super::reader::Reader;
use super::writer::PutBe;
use super::ClassFileError;

pub(crate) const UTF8: u8 = 1;
pub(crate) const INTEGER: u8 = 3;
pub(crate) const CLASS: u8 = 7;
pub(crate) const METHODREF: u8 = 10;
pub(crate) const INTERFACE_METHODREF: u8 = 11;
pub(crate) const NAME_AND_TYPE: u8 = 12;

/// (owner class, name, descriptor) of a member reference, as raw bytes.
pub(crate) type MemberRef<'a> = (&'a [u8], &'a [u8], &'a [u8]);

/// Index of the original constant pool of one class file.
pub(crate) struct ConstPool<'a> {
    bytes: &'a [u8],
    /// Byte offset of each entry's tag; 0 marks unusable slots (index 0 and
    /// the second slot of a Long/Double).
    offsets: Vec<u32>,
    /// Byte offset just past the pool.
    pub(crate) end: usize,
}

impl<'a> ConstPool<'a> {
    /// Parses the pool starting at the `constant_pool_count` field.
    pub(crate) fn parse(bytes: &'a [u8], r: &mut Reader<'a>) -> Result<Self, ClassFileError> {
        let count = r.u16()?;
        if count == 0 {
            return Err(ClassFileError::BadConstant(0));
        }
        let mut offsets = vec![0u32; count as usize];
        let mut i = 1usize;
        while i < count as usize {
            let off = r.pos();
            offsets[i] = u32::try_from(off).map_err(|_| ClassFileError::Truncated)?;
            let tag = r.u8()?;
            let body = match tag {
                UTF8 => r.u16()? as usize,
                3 | 4 | 9..=12 | 17 | 18 => 4,
                5 | 6 => 8,
                7 | 8 | 16 | 19 | 20 => 2,
                15 => 3,
                _ => return Err(ClassFileError::BadConstant(i as u16)),
            };
            r.skip(body)?;
            // Long and Double take two slots (JVMS 4.4.5).
            i += if tag == 5 || tag == 6 { 2 } else { 1 };
        }
        Ok(ConstPool {
            bytes,
            offsets,
            end: r.pos(),
        })
    }

    /// `constant_pool_count` of the original pool.
    pub(crate) fn count(&self) -> u16 {
        self.offsets.len() as u16
    }

    /// A reader positioned after the tag of entry `idx`, which must have `tag`.
    fn entry(&self, idx: u16, tag: u8) -> Result<Reader<'a>, ClassFileError> {
        let off = *self
            .offsets
            .get(idx as usize)
            .filter(|&&o| o != 0)
            .ok_or(ClassFileError::BadConstant(idx))? as usize;
        let mut r = Reader::at(self.bytes, off);
        if r.u8()? != tag {
            return Err(ClassFileError::BadConstant(idx));
        }
        Ok(r)
    }

    /// Raw (modified UTF-8) bytes of a Utf8 entry; cheap, for comparisons.
    pub(crate) fn utf8_bytes(&self, idx: u16) -> Result<&'a [u8], ClassFileError> {
        let mut r = self.entry(idx, UTF8)?;
        let len = r.u16()? as usize;
        r.bytes(len)
    }

    /// Decoded text of a Utf8 entry.
    pub(crate) fn utf8(&self, idx: u16) -> Result<Cow<'a, str>, ClassFileError> {
        Ok(decode_modified_utf8(self.utf8_bytes(idx)?))
    }

    /// Name index of a Class entry.
    pub(crate) fn class_name_idx(&self, idx: u16) -> Result<u16, ClassFileError> {
        self.entry(idx, CLASS)?.u16()
    }

    /// Raw name of a Class entry.
    pub(crate) fn class_name_bytes(&self, idx: u16) -> Result<&'a [u8], ClassFileError> {
        self.utf8_bytes(self.class_name_idx(idx)?)
    }

    pub(crate) fn class_name(&self, idx: u16) -> Result<Cow<'a, str>, ClassFileError> {
        Ok(decode_modified_utf8(self.class_name_bytes(idx)?))
    }

    /// (owner class name, method name, descriptor) of a Methodref or
    /// InterfaceMethodref entry, as raw bytes.
    pub(crate) fn method_ref(&self, idx: u16) -> Result<MemberRef<'a>, ClassFileError> {
        let mut r = self
            .entry(idx, METHODREF)
            .or_else(|_| self.entry(idx, INTERFACE_METHODREF))?;
        let class = r.u16()?;
        let nat = r.u16()?;
        let mut n = self.entry(nat, NAME_AND_TYPE)?;
        let name = n.u16()?;
        let desc = n.u16()?;
        Ok((
            self.class_name_bytes(class)?,
            self.utf8_bytes(name)?,
            self.utf8_bytes(desc)?,
        ))
    }
}

/// Decodes JVM "modified UTF-8" (JVMS 4.4.7): NUL is `C0 80` and
/// supplementary characters are surrogate pairs, which `str::from_utf8`
/// rejects. Malformed input becomes U+FFFD rather than an error because names
/// are only reported, never used to resolve anything.
pub(crate) fn decode_modified_utf8(b: &[u8]) -> Cow<'_, str> {
    if let Ok(s) = std::str::from_utf8(b) {
        return Cow::Borrowed(s);
    }
    let mut units: Vec<u16> = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let c = b[i] as u16;
        if c < 0x80 {
            units.push(c);
            i += 1;
        } else if c & 0xE0 == 0xC0 && i + 1 < b.len() {
            units.push(((c & 0x1F) << 6) | (b[i + 1] as u16 & 0x3F));
            i += 2;
        } else if c & 0xF0 == 0xE0 && i + 2 < b.len() {
            units.push(
                ((c & 0x0F) << 12) | ((b[i + 1] as u16 & 0x3F) << 6) | (b[i + 2] as u16 & 0x3F),
            );
            i += 3;
        } else {
            units.push(0xFFFD);
            i += 1;
        }
    }
    Cow::Owned(String::from_utf16_lossy(&units))
}

/// Entries appended after the original pool, deduplicated among themselves.
pub(crate) struct PoolAdditions {
    next: u32,
    bytes: Vec<u8>,
    seen: HashMap<Vec<u8>, u16>,
}

impl PoolAdditions {
    pub(crate) fn new(original_count: u16) -> Self {
        PoolAdditions {
            next: original_count as u32,
            bytes: Vec::new(),
            seen: HashMap::new(),
        }
    }

    /// The new `constant_pool_count`.
    pub(crate) fn count(&self) -> u16 {
        self.next as u16
    }

    /// Encoded bytes of the appended entries.
    pub(crate) fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    fn add(&mut self, entry: Vec<u8>) -> Result<u16, ClassFileError> {
        if let Some(&i) = self.seen.get(&entry) {
            return Ok(i);
        }
        // constant_pool_count is a u16, so the largest usable index is 65534.
        if self.next >= 0xFFFF {
            return Err(ClassFileError::TooManyConstants);
        }
        let idx = self.next as u16;
        self.next += 1;
        self.bytes.extend_from_slice(&entry);
        self.seen.insert(entry, idx);
        Ok(idx)
    }

    /// Adds a Utf8 entry; `s` must be plain ASCII-compatible UTF-8 without NUL
    /// or supplementary characters (true for the names the agent generates).
    pub(crate) fn utf8(&mut self, s: &str) -> Result<u16, ClassFileError> {
        let len =
            u16::try_from(s.len()).map_err(|_| ClassFileError::Unsupported("long name".into()))?;
        let mut e = vec![UTF8];
        e.put_u16(len);
        e.extend_from_slice(s.as_bytes());
        self.add(e)
    }

    pub(crate) fn class(&mut self, name: &str) -> Result<u16, ClassFileError> {
        let n = self.utf8(name)?;
        let mut e = vec![CLASS];
        e.put_u16(n);
        self.add(e)
    }

    pub(crate) fn integer(&mut self, v: i32) -> Result<u16, ClassFileError> {
        let mut e = vec![INTEGER];
        e.put_u32(v as u32);
        self.add(e)
    }

    pub(crate) fn method_ref(
        &mut self,
        class: u16,
        name: &str,
        desc: &str,
    ) -> Result<u16, ClassFileError> {
        let n = self.utf8(name)?;
        let d = self.utf8(desc)?;
        let mut nat = vec![NAME_AND_TYPE];
        nat.put_u16(n);
        nat.put_u16(d);
        let nat = self.add(nat)?;
        let mut e = vec![METHODREF];
        e.put_u16(class);
        e.put_u16(nat);
        self.add(e)
    }
}
