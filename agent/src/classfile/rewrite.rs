//! Rewrites one Code attribute: inserts the probes, lays the code out again
//! (growing `goto`/`jsr` and re-padding switches until stable) and remaps
//! every code offset in the exception table and the attributes.

use super::constpool::{ConstPool, PoolAdditions};
use super::flow::{self, Analysis, F_HANDLER, F_UNIT};
use super::insn::{self, Flow, Insn};
use super::parse::{self, Attr, Handler};
use super::reader::Reader;
use super::stackmap;
use super::writer::{patch_u32, PutBe};
use super::ClassFileError;

/// Constant pool indexes the probes refer to.
#[derive(Clone, Copy)]
pub(crate) struct Refs {
    pub(crate) enter: u16,
    pub(crate) exit: u16,
    pub(crate) unwind: u16,
    pub(crate) caught: u16,
    pub(crate) line: u16,
    pub(crate) throwable: u16,
}

/// Everything `rewrite_code` needs to know about the method and its class.
pub(crate) struct MethodCtx<'p, 'a> {
    pub(crate) pool: &'p ConstPool<'a>,
    pub(crate) add: &'p mut PoolAdditions,
    pub(crate) refs: &'p Refs,
    pub(crate) major: u16,
    /// For a constructor of a class with a superclass: (this, super) names,
    /// to find the `super(...)`/`this(...)` call.
    pub(crate) ctor: Option<(&'a [u8], &'a [u8])>,
    pub(crate) id: u32,
    pub(crate) lines: bool,
    /// Pad the code to `NOT_INLINED` bytes (unless the method calls itself).
    pub(crate) pad: bool,
    /// The method's (name, descriptor), to tell a recursive method.
    pub(crate) this_method: (&'a [u8], &'a [u8]),
}

/// The bytes of an int-pushing instruction.
#[derive(Clone, Copy)]
struct Push {
    b: [u8; 3],
    n: u8,
}

impl Push {
    fn len(self) -> u32 {
        self.n as u32
    }
}

/// Shortest instruction pushing `v`; a new CONSTANT_Integer beyond sipush.
fn push_int(v: i32, add: &mut PoolAdditions) -> Result<Push, ClassFileError> {
    Ok(match v {
        -1..=5 => Push {
            b: [(insn::ICONST_0 as i32 + v) as u8, 0, 0],
            n: 1,
        },
        -128..=127 => Push {
            b: [insn::BIPUSH, v as u8, 0],
            n: 2,
        },
        -32768..=32767 => {
            let [h, l] = (v as i16).to_be_bytes();
            Push {
                b: [insn::SIPUSH, h, l],
                n: 3,
            }
        }
        _ => {
            let i = add.integer(v)?;
            if i <= 255 {
                Push {
                    b: [insn::LDC, i as u8, 0],
                    n: 2,
                }
            } else {
                let [h, l] = i.to_be_bytes();
                Push {
                    b: [insn::LDC_W, h, l],
                    n: 3,
                }
            }
        }
    })
}

const CALL_LEN: u32 = 3;
const NO_TARGET: u32 = u32::MAX;

fn put_push(out: &mut Vec<u8>, p: Push) {
    out.extend_from_slice(&p.b[..p.n as usize]);
}

fn put_call(out: &mut Vec<u8>, method: u16) {
    out.put_u8(insn::INVOKESTATIC);
    out.put_u16(method);
}

/// New positions of the original instructions.
struct Layout {
    /// Where the probes before instruction i start; `start[n]` is the end of
    /// the (relocated) original code, where the catch-all handlers go.
    start: Vec<u32>,
    /// New pc of instruction i itself.
    ipc: Vec<u32>,
    /// `goto`/`jsr` that became `goto_w`/`jsr_w`.
    wide: Vec<bool>,
    entry_len: u32,
}

impl Layout {
    /// Where branches, frames and exception ranges for instruction i go.
    fn target(&self, i: usize) -> u32 {
        if i == 0 {
            self.start[0] + self.entry_len
        } else {
            self.start[i]
        }
    }
}

/// Finds the constructor's `super(...)`/`this(...)` call; see mod docs.
fn find_init_call(
    a: &Analysis,
    code: &[u8],
    pool: &ConstPool,
    code_handlers: &[Handler],
    this: &[u8],
    sup: &[u8],
) -> Result<usize, ClassFileError> {
    let mut pending = 0u32;
    let mut found = None;
    for (i, ins) in a.insns.iter().enumerate() {
        match ins.op {
            insn::NEW => pending += 1,
            insn::INVOKESPECIAL => {
                let idx = Reader::at(code, ins.pc as usize + 1).u16()?;
                let (owner, name, _) = pool.method_ref(idx)?;
                if name != b"<init>" {
                    continue;
                }
                if pending > 0 {
                    pending -= 1;
                } else if (owner == this || owner == sup) && found.is_none() {
                    found = Some(i);
                } else {
                    // A second super call (non-javac code with super() in
                    // branches) or an unexpected owner: the split into
                    // before/after regions would not be sound.
                    return Err(ClassFileError::Unsupported(
                        "constructor: ambiguous super()/this() call".into(),
                    ));
                }
            }
            _ => {}
        }
    }
    let k = found.ok_or_else(|| {
        ClassFileError::Unsupported("constructor: super()/this() call not found".into())
    })?;
    // Handler code for the region before the call must lie before it too.
    for h in code_handlers {
        if (h.start as u32) < a.insns[k].pc && h.handler as u32 > a.insns[k].pc {
            return Err(ClassFileError::Unsupported(
                "constructor: handler of pre-super code after super()".into(),
            ));
        }
    }
    Ok(k)
}

/// Rewrites the Code attribute with body `body` and name index `name`,
/// appending the whole new attribute to `out`.
pub(crate) fn rewrite_code(
    ctx: &mut MethodCtx,
    name: u16,
    body: &[u8],
    out: &mut Vec<u8>,
) -> Result<(), ClassFileError> {
    let rc = parse::parse_code(body)?;
    let a = flow::analyze(&rc, ctx.pool)?;
    let code = rc.code;
    let n = a.insns.len();
    let id = push_int(ctx.id as i32, ctx.add)?;
    let lines_in_entry = ctx.lines && !a.has_lnt;
    let line_units = ctx.lines && a.has_lnt;

    let init_call = match ctx.ctor {
        Some((this, sup)) => {
            let k = find_init_call(&a, code, ctx.pool, &rc.handlers, this, sup)?;
            Some(k)
        }
        None => None,
    };

    // Probe bytes before each instruction (entry probe counted separately).
    let entry_len = id.len()
        + CALL_LEN
        + if lines_in_entry {
            id.len() + 1 + CALL_LEN
        } else {
            0
        };
    let caught_len = 1 + id.len() + CALL_LEN;
    let exit_len = id.len() + CALL_LEN;
    // Executable unit index of each unit-starting instruction: the line probe passes
    // it (not the line), so the agent can tell a loop re-running a line from a
    // fall-through into the next unit of the same line.
    let mut unit_of = vec![0u32; n];
    let mut next_unit = 0u32;
    for (i, &f) in a.flags.iter().enumerate() {
        if f & F_UNIT != 0 {
            unit_of[i] = next_unit;
            next_unit += 1;
        }
    }
    let mut pre = vec![0u32; n];
    // Single-target branch targets (instruction indexes), for the layout loop.
    let mut btarget = vec![NO_TARGET; n];
    for (i, ins) in a.insns.iter().enumerate() {
        let f = a.flags[i];
        let mut p = 0;
        if f & F_HANDLER != 0 {
            p += caught_len;
        }
        if line_units && f & F_UNIT != 0 {
            p += id.len() + push_int(unit_of[i] as i32, ctx.add)?.len() + CALL_LEN;
        }
        let fl = insn::flow(ins.op);
        if fl == Flow::Return {
            p += exit_len;
        }
        pre[i] = p;
        if matches!(fl, Flow::CondBranch | Flow::Goto | Flow::Jsr) {
            insn::for_each_target(code, ins, |t| {
                btarget[i] = a.at(t)? as u32;
                Ok(())
            })?;
        }
        if let Some(k) = init_call {
            // Code after the super call jumping back before it, or code
            // before it jumping past it, would mix the two handler regions;
            // javac never does either.
            let crosses = |t: usize| (i > k && t <= k) || (i < k && t > k);
            let across =
                || ClassFileError::Unsupported("constructor: branch across super()".into());
            if btarget[i] != NO_TARGET && crosses(btarget[i] as usize) {
                return Err(across());
            }
            if fl == Flow::Switch {
                insn::for_each_target(code, ins, |t| {
                    if crosses(a.at(t)?) {
                        return Err(across());
                    }
                    Ok(())
                })?;
            }
        }
    }

    let lay = layout(&a, &pre, &btarget, entry_len)?;
    let orig_end = lay.start[n];
    let handler_len = 1 + id.len() + CALL_LEN + 1;
    let handlers = if init_call.is_some() { 2 } else { 1 };
    let body_len = orig_end as usize + handlers * handler_len as usize;
    // Dead code up to NOT_INLINED bytes: at least `aconst_null; athrow`.
    let pad = if ctx.pad && body_len + 2 <= super::NOT_INLINED && !calls_itself(ctx, &a, code)? {
        super::NOT_INLINED - body_len
    } else {
        0
    };
    let code_len = body_len + pad;
    if code_len > 65535 {
        return Err(ClassFileError::MethodTooLarge);
    }

    // Attribute header; lengths are back-patched.
    out.put_u16(name);
    let attr_len_at = out.len();
    out.put_u32(0);
    let max_stack = rc
        .max_stack
        .checked_add(4)
        .ok_or_else(|| ClassFileError::Unsupported("max_stack overflow".into()))?;
    out.put_u16(max_stack);
    out.put_u16(rc.max_locals);
    out.put_u32(code_len as u32);
    let code_start = out.len();
    emit_code(
        ctx,
        &a,
        code,
        &lay,
        id,
        lines_in_entry,
        line_units.then_some(&unit_of[..]),
        out,
        code_start,
    )?;
    if out.len() - code_start != orig_end as usize {
        return Err(ClassFileError::BadCode("internal: layout mismatch"));
    }
    for _ in 0..handlers {
        out.put_u8(insn::DUP);
        put_push(out, id);
        put_call(out, ctx.refs.unwind);
        out.put_u8(insn::ATHROW);
    }
    if pad > 0 {
        out.resize(out.len() + pad - 2, insn::NOP);
        out.put_u8(insn::ACONST_NULL);
        out.put_u8(insn::ATHROW);
    }
    let pad_at = (pad > 0).then_some(body_len as u32);

    // Exception table: original handlers first so they keep priority.
    let mut table: Vec<[u16; 4]> = Vec::with_capacity(rc.handlers.len() + 4);
    for h in &rc.handlers {
        table.push([
            lay.target(a.at(h.start.into())?) as u16,
            lay.target(a.at(h.end.into())?) as u16,
            lay.target(a.at(h.handler.into())?) as u16,
            h.catch_type,
        ]);
    }
    let h_post = orig_end + if init_call.is_some() { handler_len } else { 0 };
    let mut cur = lay.target(0);
    if let Some(k) = init_call {
        // HotSpot checks a handler covering the super call against both the
        // incoming frame (uninitializedThis) and the outgoing one (`this`
        // initialized, yet flagThisUninit still set): no frame accepts
        // both, so the call itself stays uncovered (see mod docs).
        if lay.ipc[k] > cur {
            table.push([cur as u16, lay.ipc[k] as u16, orig_end as u16, 0]);
        }
        cur = lay.ipc[k] + 3;
    }
    for (i, ins) in a.insns.iter().enumerate() {
        if insn::flow(ins.op) == Flow::Return {
            let hole = lay.ipc[i] - exit_len;
            if hole > cur {
                table.push([cur as u16, hole as u16, h_post as u16, 0]);
            }
            cur = cur.max(lay.ipc[i] + 1);
        }
    }
    if cur < orig_end {
        table.push([cur as u16, orig_end as u16, h_post as u16, 0]);
    }
    let count = u16::try_from(table.len())
        .map_err(|_| ClassFileError::Unsupported("exception table overflow".into()))?;
    out.put_u16(count);
    for e in &table {
        for v in e {
            out.put_u16(*v);
        }
    }

    // Attributes.
    let nattrs_at = out.len();
    out.put_u16(0);
    let mut nattrs = 0u16;
    let mut had_smt = false;
    for at in &rc.attrs {
        let kind = ctx.pool.utf8_bytes(at.name)?;
        let written = match kind {
            b"LineNumberTable" => {
                remap_pc_table(at, out, 4, |r, o| {
                    let pc = r.u16()?;
                    o.put_u16(lay.start[a.at(pc.into())?] as u16);
                    o.put_u16(r.u16()?);
                    Ok(())
                })?;
                true
            }
            b"LocalVariableTable" | b"LocalVariableTypeTable" => {
                remap_pc_table(at, out, 10, |r, o| {
                    let s = r.u16()?;
                    let e = s as i64 + r.u16()? as i64;
                    let ns = lay.start[a.at(s.into())?];
                    let ne = lay.start[a.at(e)?];
                    o.put_u16(ns as u16);
                    o.put_u16((ne - ns) as u16);
                    o.extend_from_slice(r.bytes(6)?);
                    Ok(())
                })?;
                true
            }
            b"StackMapTable" if ctx.major >= 50 && !had_smt => {
                had_smt = true;
                write_stack_map(
                    ctx.refs.throwable,
                    &a,
                    &lay,
                    Some(at),
                    at.name,
                    init_call,
                    orig_end,
                    h_post,
                    pad_at,
                    out,
                )?;
                true
            }
            // Anything else in Code may hold offsets we cannot remap
            // (type annotations, unknown attributes): dropped.
            _ => false,
        };
        if written {
            nattrs += 1;
        }
    }
    if ctx.major >= 50 && !had_smt {
        let name = ctx.add.utf8("StackMapTable")?;
        write_stack_map(
            ctx.refs.throwable,
            &a,
            &lay,
            None,
            name,
            init_call,
            orig_end,
            h_post,
            pad_at,
            out,
        )?;
        nattrs += 1;
    }
    out[nattrs_at..nattrs_at + 2].copy_from_slice(&nattrs.to_be_bytes());
    let attr_len = out.len() - attr_len_at - 4;
    patch_u32(out, attr_len_at, attr_len as u32);
    Ok(())
}

/// Whether the method calls a method of its own name and descriptor (any class): the
/// JIT inlines such a call into itself once, halving the frames a deep recursion
/// takes, which padding would undo (the deepest recursion a stack holds would halve).
fn calls_itself(ctx: &MethodCtx, a: &Analysis, code: &[u8]) -> Result<bool, ClassFileError> {
    // A constructor's `super(...)` is no recursion, whatever its descriptor.
    if ctx.this_method.0 == b"<init>" {
        return Ok(false);
    }
    for ins in &a.insns {
        if matches!(ins.op, insn::INVOKEVIRTUAL..=insn::INVOKEINTERFACE) {
            let idx = Reader::at(code, ins.pc as usize + 1).u16()?;
            let (_, name, desc) = ctx.pool.method_ref(idx)?;
            if (name, desc) == ctx.this_method {
                return Ok(true);
            }
        }
    }
    Ok(false)
}

/// Copies a `u16 count; entries[count]` attribute, rewriting each entry of
/// `size` bytes with `f`.
fn remap_pc_table(
    at: &Attr,
    out: &mut Vec<u8>,
    size: usize,
    mut f: impl FnMut(&mut Reader, &mut Vec<u8>) -> Result<(), ClassFileError>,
) -> Result<(), ClassFileError> {
    let mut r = Reader::new(at.body);
    let count = r.u16()?;
    if at.body.len() != 2 + count as usize * size {
        return Err(ClassFileError::BadCode("attribute length"));
    }
    out.put_u16(at.name);
    out.put_u32(at.body.len() as u32);
    out.put_u16(count);
    for _ in 0..count {
        f(&mut r, out)?;
    }
    Ok(())
}

/// Computes the new layout, widening `goto`/`jsr` until every offset fits.
fn layout(
    a: &Analysis,
    pre: &[u32],
    btarget: &[u32],
    entry_len: u32,
) -> Result<Layout, ClassFileError> {
    let n = a.insns.len();
    let mut lay = Layout {
        start: vec![0; n + 1],
        ipc: vec![0; n],
        wide: vec![false; n],
        entry_len,
    };
    loop {
        let mut pos: u32 = 0;
        for (i, ins) in a.insns.iter().enumerate() {
            lay.start[i] = pos;
            pos += pre[i] + if i == 0 { entry_len } else { 0 };
            lay.ipc[i] = pos;
            pos += new_len(ins, pos, lay.wide[i]);
            // Keep the arithmetic far from overflow on absurd inputs.
            if pos > 1 << 20 {
                return Err(ClassFileError::MethodTooLarge);
            }
        }
        lay.start[n] = pos;
        let mut changed = false;
        for (i, ins) in a.insns.iter().enumerate() {
            let t = btarget[i];
            if t == NO_TARGET || lay.wide[i] || matches!(ins.op, insn::GOTO_W | insn::JSR_W) {
                continue;
            }
            let off = lay.target(t as usize) as i64 - lay.ipc[i] as i64;
            if i16::try_from(off).is_err() {
                if ins.op == insn::GOTO || ins.op == insn::JSR {
                    lay.wide[i] = true;
                    changed = true;
                } else {
                    return Err(ClassFileError::Unsupported("branch overflow".into()));
                }
            }
        }
        if !changed {
            return Ok(lay);
        }
    }
}

/// Length of an original instruction placed at new pc `pc`.
fn new_len(ins: &Insn, pc: u32, wide: bool) -> u32 {
    match ins.op {
        insn::TABLESWITCH | insn::LOOKUPSWITCH => {
            ins.len - insn::switch_pad(ins.pc) + insn::switch_pad(pc)
        }
        _ if wide => 5,
        _ => ins.len,
    }
}

#[allow(clippy::too_many_arguments)]
fn emit_code(
    ctx: &mut MethodCtx,
    a: &Analysis,
    code: &[u8],
    lay: &Layout,
    id: Push,
    lines_in_entry: bool,
    unit_of: Option<&[u32]>,
    out: &mut Vec<u8>,
    base: usize,
) -> Result<(), ClassFileError> {
    let refs = ctx.refs;
    for (i, ins) in a.insns.iter().enumerate() {
        if i == 0 {
            put_push(out, id);
            put_call(out, refs.enter);
            if lines_in_entry {
                put_push(out, id);
                out.put_u8(insn::ICONST_0);
                put_call(out, refs.line);
            }
        }
        let f = a.flags[i];
        if f & F_HANDLER != 0 {
            out.put_u8(insn::DUP);
            put_push(out, id);
            put_call(out, refs.caught);
        }
        if let Some(unit_of) = unit_of.filter(|_| f & F_UNIT != 0) {
            put_push(out, id);
            put_push(out, push_int(unit_of[i] as i32, ctx.add)?);
            put_call(out, refs.line);
        }
        if insn::flow(ins.op) == Flow::Return {
            put_push(out, id);
            put_call(out, refs.exit);
        }
        let pc = lay.ipc[i];
        if out.len() - base != pc as usize {
            return Err(ClassFileError::BadCode("internal: layout mismatch"));
        }
        let raw = &code[ins.pc as usize..(ins.pc + ins.len) as usize];
        // New relative offset for an original relative offset `rel`.
        let remap = |rel: i64| -> Result<i64, ClassFileError> {
            let t = a.at(ins.pc as i64 + rel)?;
            Ok(lay.target(t) as i64 - pc as i64)
        };
        let mut r = Reader::new(raw);
        let op = r.u8()?;
        match op {
            0x99..=insn::JSR | 0xc6 | 0xc7 => {
                let off = remap(r.i16()? as i64)?;
                if lay.wide[i] {
                    out.put_u8(if op == insn::GOTO {
                        insn::GOTO_W
                    } else {
                        insn::JSR_W
                    });
                    out.put_u32(off as i32 as u32);
                } else {
                    out.put_u8(op);
                    out.put_u16(off as i16 as u16);
                }
            }
            insn::GOTO_W | insn::JSR_W => {
                let off = remap(r.i32()? as i64)?;
                out.put_u8(op);
                out.put_u32(off as i32 as u32);
            }
            insn::TABLESWITCH | insn::LOOKUPSWITCH => {
                out.put_u8(op);
                for _ in 0..insn::switch_pad(pc) {
                    out.put_u8(0);
                }
                r.skip(insn::switch_pad(ins.pc) as usize)?;
                out.put_u32(remap(r.i32()? as i64)? as i32 as u32);
                if op == insn::TABLESWITCH {
                    let low = r.i32()?;
                    let high = r.i32()?;
                    out.put_u32(low as u32);
                    out.put_u32(high as u32);
                    for _ in low as i64..=high as i64 {
                        out.put_u32(remap(r.i32()? as i64)? as i32 as u32);
                    }
                } else {
                    let np = r.i32()?;
                    out.put_u32(np as u32);
                    for _ in 0..np {
                        out.put_u32(r.u32()?);
                        out.put_u32(remap(r.i32()? as i64)? as i32 as u32);
                    }
                }
            }
            _ => out.extend_from_slice(raw),
        }
    }
    Ok(())
}

/// Writes the StackMapTable: original frames moved to their new offsets,
/// then the frames of the catch-all handler(s).
#[allow(clippy::too_many_arguments)]
fn write_stack_map(
    throwable: u16,
    a: &Analysis,
    lay: &Layout,
    orig: Option<&Attr>,
    name: u16,
    init_call: Option<usize>,
    h_pre: u32,
    h_post: u32,
    pad_at: Option<u32>,
    out: &mut Vec<u8>,
) -> Result<(), ClassFileError> {
    let n = a.insns.len();
    let frames = match orig {
        Some(at) => stackmap::parse(at.body)?,
        None => Vec::new(),
    };
    out.put_u16(name);
    let len_at = out.len();
    out.put_u32(0);
    let count = frames.len() + if init_call.is_some() { 2 } else { 1 } + pad_at.map_or(0, |_| 1);
    out.put_u16(u16::try_from(count).map_err(|_| ClassFileError::BadCode("too many frames"))?);
    let map_new = |pc: u16| -> Result<u16, ClassFileError> {
        let i = a.at(pc.into())?;
        if i == n || a.insns[i].op != insn::NEW {
            return Err(ClassFileError::BadCode(
                "uninitialized(offset) is not a new",
            ));
        }
        Ok(lay.ipc[i] as u16)
    };
    let mut prev = None;
    for f in &frames {
        let i = a.at(f.offset.into())?;
        if i == n {
            return Err(ClassFileError::BadCode("frame past end of code"));
        }
        let off = lay.target(i);
        stackmap::encode_frame(f, off, prev, out, &map_new)?;
        prev = Some(off);
    }
    if init_call.is_some() {
        stackmap::encode_handler_frame(
            h_pre,
            prev,
            &[stackmap::ITEM_UNINIT_THIS],
            1,
            throwable,
            out,
        )?;
        prev = Some(h_pre);
    }
    stackmap::encode_handler_frame(h_post, prev, &[], 0, throwable, out)?;
    if let Some(at) = pad_at {
        stackmap::encode_empty_frame(at, Some(h_post), out)?;
    }
    let len = out.len() - len_at - 4;
    patch_u32(out, len_at, len as u32);
    Ok(())
}
