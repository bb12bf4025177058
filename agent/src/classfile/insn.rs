//! Bytecode instruction decoding: lengths (incl. switch padding and `wide`),
//! control-flow kinds and branch targets.

use super::reader::Reader;
use super::ClassFileError;

pub(crate) const IINC: u8 = 0x84;
pub(crate) const GOTO: u8 = 0xa7;
pub(crate) const JSR: u8 = 0xa8;
pub(crate) const RET: u8 = 0xa9;
pub(crate) const TABLESWITCH: u8 = 0xaa;
pub(crate) const LOOKUPSWITCH: u8 = 0xab;
pub(crate) const IRETURN: u8 = 0xac;
pub(crate) const RETURN: u8 = 0xb1;
pub(crate) const INVOKESPECIAL: u8 = 0xb7;
pub(crate) const INVOKESTATIC: u8 = 0xb8;
pub(crate) const NEW: u8 = 0xbb;
pub(crate) const ATHROW: u8 = 0xbf;
pub(crate) const WIDE: u8 = 0xc4;
pub(crate) const GOTO_W: u8 = 0xc8;
pub(crate) const JSR_W: u8 = 0xc9;
pub(crate) const DUP: u8 = 0x59;
pub(crate) const LDC: u8 = 0x12;
pub(crate) const LDC_W: u8 = 0x13;
pub(crate) const BIPUSH: u8 = 0x10;
pub(crate) const SIPUSH: u8 = 0x11;
pub(crate) const ICONST_0: u8 = 0x03;
pub(crate) const INVOKEVIRTUAL: u8 = 0xb6;
pub(crate) const INVOKEINTERFACE: u8 = 0xb9;
pub(crate) const NOP: u8 = 0x00;
pub(crate) const ACONST_NULL: u8 = 0x01;
// Opcodes the agent's own tracker class is written with (classfile::tracker).
pub(crate) const ILOAD_0: u8 = 0x1a;
pub(crate) const ILOAD_1: u8 = 0x1b;
pub(crate) const ILOAD_2: u8 = 0x1c;
pub(crate) const ALOAD_0: u8 = 0x2a;
pub(crate) const ALOAD_1: u8 = 0x2b;
pub(crate) const ALOAD_3: u8 = 0x2d;
pub(crate) const ISTORE_2: u8 = 0x3d;
pub(crate) const ASTORE_1: u8 = 0x4c;
pub(crate) const ASTORE_3: u8 = 0x4e;
pub(crate) const ILOAD: u8 = 0x15;
pub(crate) const ALOAD: u8 = 0x19;
pub(crate) const ISTORE: u8 = 0x36;
pub(crate) const ASTORE: u8 = 0x3a;
pub(crate) const AALOAD: u8 = 0x32;
pub(crate) const LALOAD: u8 = 0x2f;
pub(crate) const LASTORE: u8 = 0x50;
pub(crate) const ICONST_1: u8 = 0x04;
pub(crate) const LCONST_1: u8 = 0x0a;
pub(crate) const DUP2: u8 = 0x5c;
pub(crate) const LADD: u8 = 0x61;
pub(crate) const IUSHR: u8 = 0x7c;
pub(crate) const IAND: u8 = 0x7e;
pub(crate) const IXOR: u8 = 0x82;
pub(crate) const IFEQ: u8 = 0x99;
pub(crate) const IF_ICMPGE: u8 = 0xa2;
pub(crate) const IF_ACMPEQ: u8 = 0xa5;
pub(crate) const IF_ACMPNE: u8 = 0xa6;
pub(crate) const IFNULL: u8 = 0xc6;
pub(crate) const GETSTATIC: u8 = 0xb2;
pub(crate) const PUTSTATIC: u8 = 0xb3;
pub(crate) const ANEWARRAY: u8 = 0xbd;
pub(crate) const ARRAYLENGTH: u8 = 0xbe;

/// One decoded instruction of the original code.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Insn {
    pub(crate) pc: u32,
    pub(crate) len: u32,
    pub(crate) op: u8,
}

/// How an instruction affects control flow (what ends a basic block).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Flow {
    /// Falls through to the next instruction only.
    Next,
    /// `if*` with a 16-bit offset: falls through or jumps.
    CondBranch,
    /// `goto`, `goto_w`.
    Goto,
    /// `jsr`, `jsr_w`.
    Jsr,
    Ret,
    Switch,
    Return,
    Throw,
    Invoke,
}

pub(crate) fn flow(op: u8) -> Flow {
    match op {
        0x99..=0xa6 | 0xc6 | 0xc7 => Flow::CondBranch,
        GOTO | GOTO_W => Flow::Goto,
        JSR | JSR_W => Flow::Jsr,
        RET => Flow::Ret,
        TABLESWITCH | LOOKUPSWITCH => Flow::Switch,
        IRETURN..=RETURN => Flow::Return,
        ATHROW => Flow::Throw,
        0xb6..=0xba => Flow::Invoke,
        _ => Flow::Next,
    }
}

/// Fixed instruction lengths; 0 = variable-length or invalid opcode.
fn fixed_len(op: u8) -> u32 {
    match op {
        0x00..=0x0f => 1,
        0x10 | 0x12 => 2,
        0x11 | 0x13 | 0x14 => 3,
        0x15..=0x19 => 2,
        0x1a..=0x35 => 1,
        0x36..=0x3a => 2,
        0x3b..=0x83 => 1,
        IINC => 3,
        0x85..=0x98 => 1,
        0x99..=JSR => 3,
        RET => 2,
        IRETURN..=RETURN => 1,
        0xb2..=0xb8 => 3,
        0xb9 | 0xba => 5,
        NEW => 3,
        0xbc => 2,
        0xbd => 3,
        0xbe | 0xbf => 1,
        0xc0 | 0xc1 => 3,
        0xc2 | 0xc3 => 1,
        0xc5 => 4,
        0xc6 | 0xc7 => 3,
        GOTO_W | JSR_W => 5,
        _ => 0,
    }
}

/// Padding after a switch opcode at `pc` so its operands are 4-byte aligned.
pub(crate) fn switch_pad(pc: u32) -> u32 {
    (4 - (pc + 1) % 4) % 4
}

/// Length of the instruction at `pc`.
pub(crate) fn insn_len(code: &[u8], pc: u32) -> Result<u32, ClassFileError> {
    let op = *code.get(pc as usize).ok_or(ClassFileError::Truncated)?;
    let len = match op {
        TABLESWITCH | LOOKUPSWITCH => {
            let mut r = Reader::at(code, (pc + 1 + switch_pad(pc)) as usize);
            r.i32()?; // default
            let n = if op == TABLESWITCH {
                let low = r.i32()?;
                let high = r.i32()?;
                if high < low {
                    return Err(ClassFileError::BadCode("tableswitch high < low"));
                }
                (high as i64 - low as i64 + 1) * 4 + 12
            } else {
                let npairs = r.i32()?;
                if npairs < 0 {
                    return Err(ClassFileError::BadCode("lookupswitch npairs < 0"));
                }
                npairs as i64 * 8 + 8
            };
            // Bounded by the code length below, so no overflow is possible.
            1 + switch_pad(pc) as i64 + n
        }
        WIDE => match code.get(pc as usize + 1) {
            Some(&IINC) => 6,
            Some(0x15..=0x19 | 0x36..=0x3a | &RET) => 4,
            _ => return Err(ClassFileError::BadCode("bad wide")),
        },
        _ => match fixed_len(op) {
            0 => return Err(ClassFileError::BadCode("bad opcode")),
            n => n as i64,
        },
    };
    if pc as i64 + len > code.len() as i64 {
        return Err(ClassFileError::Truncated);
    }
    Ok(len as u32)
}

/// Decodes every instruction of `code`.
pub(crate) fn decode(code: &[u8]) -> Result<Vec<Insn>, ClassFileError> {
    let mut out = Vec::with_capacity(code.len() / 2 + 1);
    let mut pc = 0u32;
    while (pc as usize) < code.len() {
        let len = insn_len(code, pc)?;
        out.push(Insn {
            pc,
            len,
            op: code[pc as usize],
        });
        pc += len;
    }
    Ok(out)
}

/// Calls `f` with the absolute target of every branch of `insn` (none for
/// non-branches). Targets may be out of range; the caller validates them.
pub(crate) fn for_each_target(
    code: &[u8],
    insn: &Insn,
    mut f: impl FnMut(i64) -> Result<(), ClassFileError>,
) -> Result<(), ClassFileError> {
    let pc = insn.pc as i64;
    let mut r = Reader::at(code, insn.pc as usize + 1);
    match insn.op {
        0x99..=JSR | 0xc6 | 0xc7 => f(pc + r.i16()? as i64),
        GOTO_W | JSR_W => f(pc + r.i32()? as i64),
        TABLESWITCH => {
            r.skip(switch_pad(insn.pc) as usize)?;
            f(pc + r.i32()? as i64)?;
            let low = r.i32()? as i64;
            let high = r.i32()? as i64;
            for _ in low..=high {
                f(pc + r.i32()? as i64)?;
            }
            Ok(())
        }
        LOOKUPSWITCH => {
            r.skip(switch_pad(insn.pc) as usize)?;
            f(pc + r.i32()? as i64)?;
            let n = r.i32()?;
            for _ in 0..n {
                r.i32()?;
                f(pc + r.i32()? as i64)?;
            }
            Ok(())
        }
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lengths() {
        // iconst_0; tableswitch at pc 1 (pad 2): default, low 0, high 1, 2 offsets
        let mut code = vec![0x03, TABLESWITCH, 0, 0];
        for v in [20i32, 0, 1, 20, 20] {
            code.extend_from_slice(&v.to_be_bytes());
        }
        code.push(RETURN);
        let insns = decode(&code).unwrap();
        assert_eq!(insns.len(), 3);
        assert_eq!(insns[1].len, 1 + 2 + 20);
        let mut t = vec![];
        for_each_target(&code, &insns[1], |x| {
            t.push(x);
            Ok(())
        })
        .unwrap();
        assert_eq!(t, vec![21, 21, 21]);
        assert_eq!(insn_len(&[WIDE, IINC, 0, 1, 0, 1], 0).unwrap(), 6);
        assert!(insn_len(&[WIDE, 0x00], 0).is_err());
        assert!(insn_len(&[0xff], 0).is_err());
        assert!(insn_len(&[0x11, 0], 0).is_err());
    }
}
