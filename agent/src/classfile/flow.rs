//! Per-method code analysis: instructions, branch targets, handler starts,
//! source lines and Probekit executable units (METHODLINETABLES.md §3).

use super::constpool::ConstPool;
use super::insn::{self, Flow, Insn};
use super::parse::RawCode;
use super::reader::Reader;
use super::ClassFileError;

/// Instruction is the target of a branch or switch.
pub(crate) const F_TARGET: u8 = 1;
/// Instruction starts an exception handler.
pub(crate) const F_HANDLER: u8 = 2;
/// Instruction starts an executable unit.
pub(crate) const F_UNIT: u8 = 4;

const NONE: u32 = u32::MAX;

pub(crate) struct Analysis {
    pub(crate) insns: Vec<Insn>,
    /// pc -> instruction index, `NONE` inside an instruction;
    /// `index[code_len]` is `insns.len()` so end-of-code offsets map too.
    index: Vec<u32>,
    pub(crate) flags: Vec<u8>,
    /// Source line of each instruction (0 before the first entry).
    pub(crate) lines: Vec<u16>,
    /// (start_pc, line) of all LineNumberTable attributes, stably sorted.
    pub(crate) line_numbers: Vec<(u16, u16)>,
    pub(crate) has_lnt: bool,
}

impl Analysis {
    /// Index of the instruction starting at `pc`; `insns.len()` for the end
    /// of the code. Anything else is malformed input.
    pub(crate) fn at(&self, pc: i64) -> Result<usize, ClassFileError> {
        match usize::try_from(pc).ok().and_then(|p| self.index.get(p)) {
            Some(&i) if i != NONE => Ok(i as usize),
            _ => Err(ClassFileError::BadCode("offset not on an instruction")),
        }
    }

    /// Executable units as (original pc, line).
    pub(crate) fn units(&self) -> Vec<(u32, u16)> {
        self.insns
            .iter()
            .zip(&self.flags)
            .zip(&self.lines)
            .filter(|((_, f), _)| **f & F_UNIT != 0)
            .map(|((i, _), l)| (i.pc, *l))
            .collect()
    }
}

pub(crate) fn analyze(code: &RawCode, pool: &ConstPool) -> Result<Analysis, ClassFileError> {
    let bytes = code.code;
    let insns = insn::decode(bytes)?;
    let mut index = vec![NONE; bytes.len() + 1];
    for (i, ins) in insns.iter().enumerate() {
        index[ins.pc as usize] = i as u32;
    }
    index[bytes.len()] = insns.len() as u32;
    let mut a = Analysis {
        flags: vec![0; insns.len()],
        lines: vec![0; insns.len()],
        insns,
        index,
        line_numbers: Vec::new(),
        has_lnt: false,
    };
    for i in 0..a.insns.len() {
        let ins = a.insns[i];
        insn::for_each_target(bytes, &ins, |t| {
            let ti = a.at(t)?;
            if ti == a.insns.len() {
                return Err(ClassFileError::BadCode("branch past end"));
            }
            a.flags[ti] |= F_TARGET;
            Ok(())
        })?;
        // A basic block ends after any branch, call, throw or return.
        if insn::flow(ins.op) != Flow::Next && i + 1 < a.insns.len() {
            a.flags[i + 1] |= F_UNIT;
        }
    }
    for h in &code.handlers {
        let (s, e, hi) = (
            a.at(h.start.into())?,
            a.at(h.end.into())?,
            a.at(h.handler.into())?,
        );
        if s >= e || hi == a.insns.len() {
            return Err(ClassFileError::BadCode("exception table"));
        }
        a.flags[hi] |= F_HANDLER;
    }
    for at in &code.attrs {
        if pool.utf8_bytes(at.name)? == b"LineNumberTable" {
            a.has_lnt = true;
            let mut r = Reader::new(at.body);
            for _ in 0..r.u16()? {
                a.line_numbers.push((r.u16()?, r.u16()?));
            }
        }
    }
    a.line_numbers.sort_by_key(|e| e.0);
    if !a.has_lnt {
        // Probekit treats a method without line information as one unit.
        a.flags[0] |= F_UNIT;
        for f in &mut a.flags[1..] {
            *f &= !F_UNIT;
        }
        return Ok(a);
    }
    // Among entries with the same start_pc the first one wins, as in
    // HotSpot's exact-match lookup.
    let mut lookup = a.line_numbers.clone();
    lookup.dedup_by_key(|e| e.0);
    let mut j = 0;
    let mut line = 0;
    let mut prev_line = None;
    for i in 0..a.insns.len() {
        let pc = a.insns[i].pc;
        while j < lookup.len() && lookup[j].0 as u32 <= pc {
            line = lookup[j].1;
            j += 1;
        }
        a.lines[i] = line;
        if i == 0 || prev_line != Some(line) || a.flags[i] & (F_TARGET | F_HANDLER) != 0 {
            a.flags[i] |= F_UNIT;
        }
        prev_line = Some(line);
    }
    Ok(a)
}
