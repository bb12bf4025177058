//! StackMapTable (JVMS 4.7.4): parsing frames to absolute offsets and
//! re-encoding them at new offsets.
//!
//! Frame contents never change under instrumentation (probes leave locals and
//! stack as they found them), except `uninitialized(offset)` types, which
//! name the pc of a `new`. So frames keep their original kind and raw
//! verification-type bytes; only deltas and those offsets are rewritten.

use super::reader::Reader;
use super::writer::PutBe;
use super::ClassFileError;

const ITEM_OBJECT: u8 = 7;
const ITEM_UNINIT: u8 = 8;
pub(crate) const ITEM_UNINIT_THIS: u8 = 6;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Kind {
    Same,
    SameLocals1,
    Chop(u8),
    Append(u8),
    Full,
}

/// One frame: absolute original offset, kind, and the raw bytes of its
/// verification types (for `Full`, including both counts).
pub(crate) struct Frame<'a> {
    pub(crate) offset: u32,
    pub(crate) kind: Kind,
    pub(crate) types: &'a [u8],
}

/// Skips `n` verification types.
fn skip_types(r: &mut Reader, n: usize) -> Result<(), ClassFileError> {
    for _ in 0..n {
        match r.u8()? {
            0..=6 => {}
            ITEM_OBJECT | ITEM_UNINIT => r.skip(2)?,
            _ => return Err(ClassFileError::BadCode("stack map type")),
        }
    }
    Ok(())
}

pub(crate) fn parse(body: &[u8]) -> Result<Vec<Frame<'_>>, ClassFileError> {
    let mut r = Reader::new(body);
    let n = r.u16()?;
    let mut frames = Vec::with_capacity(n as usize);
    let mut offset: i64 = -1;
    for _ in 0..n {
        let t = r.u8()?;
        let (kind, delta) = match t {
            0..=63 => (Kind::Same, t as u16),
            64..=127 => (Kind::SameLocals1, (t - 64) as u16),
            247 => (Kind::SameLocals1, r.u16()?),
            248..=250 => (Kind::Chop(251 - t), r.u16()?),
            251 => (Kind::Same, r.u16()?),
            252..=254 => (Kind::Append(t - 251), r.u16()?),
            255 => (Kind::Full, r.u16()?),
            _ => return Err(ClassFileError::BadCode("stack map frame type")),
        };
        let start = r.pos();
        match kind {
            Kind::Same | Kind::Chop(_) => {}
            Kind::SameLocals1 => skip_types(&mut r, 1)?,
            Kind::Append(k) => skip_types(&mut r, k as usize)?,
            Kind::Full => {
                let nl = r.u16()? as usize;
                skip_types(&mut r, nl)?;
                let ns = r.u16()? as usize;
                skip_types(&mut r, ns)?;
            }
        }
        offset += delta as i64 + 1;
        frames.push(Frame {
            offset: offset as u32,
            kind,
            types: &body[start..r.pos()],
        });
    }
    if !r.is_empty() {
        return Err(ClassFileError::BadCode("StackMapTable length"));
    }
    Ok(frames)
}

/// Copies `n` verification types, remapping `uninitialized(offset)`.
fn copy_types(
    r: &mut Reader,
    n: usize,
    out: &mut Vec<u8>,
    map_new: &impl Fn(u16) -> Result<u16, ClassFileError>,
) -> Result<(), ClassFileError> {
    for _ in 0..n {
        let t = r.u8()?;
        out.put_u8(t);
        match t {
            ITEM_OBJECT => out.put_u16(r.u16()?),
            ITEM_UNINIT => out.put_u16(map_new(r.u16()?)?),
            _ => {}
        }
    }
    Ok(())
}

/// Writes one frame at `new_offset` given the previous frame's new offset.
pub(crate) fn encode_frame(
    f: &Frame,
    new_offset: u32,
    prev: Option<u32>,
    out: &mut Vec<u8>,
    map_new: &impl Fn(u16) -> Result<u16, ClassFileError>,
) -> Result<(), ClassFileError> {
    let delta = match prev {
        None => new_offset,
        Some(p) if new_offset > p => new_offset - p - 1,
        Some(_) => return Err(ClassFileError::BadCode("stack map frames out of order")),
    };
    let delta = u16::try_from(delta).map_err(|_| ClassFileError::MethodTooLarge)?;
    let mut r = Reader::new(f.types);
    match f.kind {
        Kind::Same if delta < 64 => out.put_u8(delta as u8),
        Kind::Same => {
            out.put_u8(251);
            out.put_u16(delta);
        }
        Kind::SameLocals1 => {
            if delta < 64 {
                out.put_u8(64 + delta as u8);
            } else {
                out.put_u8(247);
                out.put_u16(delta);
            }
            copy_types(&mut r, 1, out, map_new)?;
        }
        Kind::Chop(k) => {
            out.put_u8(251 - k);
            out.put_u16(delta);
        }
        Kind::Append(k) => {
            out.put_u8(251 + k);
            out.put_u16(delta);
            copy_types(&mut r, k as usize, out, map_new)?;
        }
        Kind::Full => {
            out.put_u8(255);
            out.put_u16(delta);
            let nl = r.u16()?;
            out.put_u16(nl);
            copy_types(&mut r, nl as usize, out, map_new)?;
            let ns = r.u16()?;
            out.put_u16(ns);
            copy_types(&mut r, ns as usize, out, map_new)?;
        }
    }
    Ok(())
}

/// Writes a full_frame with the given raw locals and a one-element stack
/// holding `Object(stack_class)`.
pub(crate) fn encode_handler_frame(
    new_offset: u32,
    prev: Option<u32>,
    locals: &[u8],
    nlocals: u16,
    stack_class: u16,
    out: &mut Vec<u8>,
) -> Result<(), ClassFileError> {
    let mut types = Vec::with_capacity(locals.len() + 7);
    types.put_u16(nlocals);
    types.extend_from_slice(locals);
    types.put_u16(1);
    types.put_u8(ITEM_OBJECT);
    types.put_u16(stack_class);
    let f = Frame {
        offset: 0,
        kind: Kind::Full,
        types: &types,
    };
    encode_frame(&f, new_offset, prev, out, &|x| Ok(x))
}

/// A full frame with no locals and an empty stack at `new_offset`.
pub(crate) fn encode_empty_frame(
    new_offset: u32,
    prev: Option<u32>,
    out: &mut Vec<u8>,
) -> Result<(), ClassFileError> {
    let types = [0u8, 0, 0, 0];
    let f = Frame {
        offset: 0,
        kind: Kind::Full,
        types: &types,
    };
    encode_frame(&f, new_offset, prev, out, &|x| Ok(x))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roundtrip_moves_frames() {
        // same(5), same_locals_1(+3, uninit(2)), full(+100, [int], [])
        let body = [
            0,
            3,
            5,
            64 + 3,
            ITEM_UNINIT,
            0,
            2,
            255,
            0,
            100,
            0,
            1,
            1,
            0,
            0,
        ];
        let frames = parse(&body).unwrap();
        assert_eq!(
            frames.iter().map(|f| f.offset).collect::<Vec<_>>(),
            vec![5, 9, 110]
        );
        let mut out = Vec::new();
        let map = |x: u16| Ok(x + 10);
        encode_frame(&frames[0], 80, None, &mut out, &map).unwrap();
        encode_frame(&frames[1], 90, Some(80), &mut out, &map).unwrap();
        assert_eq!(out, vec![251, 0, 80, 64 + 9, ITEM_UNINIT, 0, 12]);
        assert!(parse(&body[..body.len() - 1]).is_err());
    }
}
