//! Whole-class instrumentation: splices rewritten Code attributes and the
//! appended constant pool entries into an otherwise byte-identical class.

use super::constpool::PoolAdditions;
use super::parse::{self, RawClass};
use super::reader::Reader;
use super::rewrite::{self, MethodCtx, Refs};
use super::writer::PutBe;
use super::{ClassFileError, ProbePlan};

/// Inserts the probes described by `plan`; see the module docs. On `Err` the
/// caller must use the original bytes.
pub fn instrument(bytes: &[u8], plan: &ProbePlan) -> Result<Vec<u8>, ClassFileError> {
    instrument_noting(bytes, plan, &mut Vec::new())
}

/// As `instrument`, degrading per method rather than per class: a method whose
/// rewriting fails with line probes (code past 65535 bytes, a branch out of range)
/// gets entry and exit probes only; one too large even for those runs untouched (its
/// calls are not seen). Each such method is described in `notes` (`name+descriptor:
/// what it lost`); the other methods of its class are traced as usual.
pub fn instrument_noting(
    bytes: &[u8],
    plan: &ProbePlan,
    notes: &mut Vec<String>,
) -> Result<Vec<u8>, ClassFileError> {
    let c = parse::parse(bytes)?;
    if plan.method_ids.len() != c.methods.len() {
        return Err(ClassFileError::Unsupported(format!(
            "plan has {} method ids for {} methods",
            plan.method_ids.len(),
            c.methods.len()
        )));
    }
    let todo = |i: usize| plan.method_ids[i].is_some() && c.methods[i].code.is_some();
    if !(0..c.methods.len()).any(todo) {
        return Ok(bytes.to_vec());
    }
    let mut add = PoolAdditions::new(c.pool.count());
    let refs = add_refs(&mut add, plan.tracker)?;
    let is_window = |i: usize| plan.windows.get(i).copied().unwrap_or(false);
    let window_refs = if (0..c.methods.len()).any(|i| todo(i) && is_window(i)) {
        Some(add_window_refs(&mut add, plan.tracker, &refs)?)
    } else {
        None
    };
    let ctor_names = ctor_names(&c)?;

    let mut methods = Vec::with_capacity(c.methods_end - c.methods_start + 1024);
    methods.extend_from_slice(&bytes[c.methods_start..c.methods_start + 2]);
    for (i, m) in c.methods.iter().enumerate() {
        let (Some(id), Some((code_at, code_body))) = (plan.method_ids[i], m.code) else {
            methods.extend_from_slice(&bytes[m.start..m.end]);
            continue;
        };
        let is_init = c.pool.utf8_bytes(m.name)? == b"<init>";
        let mut ctx = MethodCtx {
            pool: &c.pool,
            add: &mut add,
            refs: match &window_refs {
                Some(w) if is_window(i) => w,
                _ => &refs,
            },
            major: c.major,
            ctor: if is_init { ctor_names } else { None },
            id,
            lines: plan.lines,
            pad: plan.pad,
            this_method: (c.pool.utf8_bytes(m.name)?, c.pool.utf8_bytes(m.desc)?),
        };
        // access, name, descriptor, attributes_count are unchanged.
        methods.extend_from_slice(&bytes[m.start..m.start + 8]);
        let mut r = Reader::at(bytes, m.start + 6);
        for a in parse::attrs(&mut r)? {
            if a.at == code_at {
                let mark = methods.len();
                let Err(e) = rewrite::rewrite_code(&mut ctx, a.name, code_body, &mut methods)
                else {
                    continue;
                };
                methods.truncate(mark);
                let what = || {
                    Ok::<_, ClassFileError>(format!(
                        "{}{}",
                        String::from_utf8_lossy(c.pool.utf8_bytes(m.name)?),
                        String::from_utf8_lossy(c.pool.utf8_bytes(m.desc)?)
                    ))
                };
                if ctx.lines {
                    ctx.lines = false;
                    match rewrite::rewrite_code(&mut ctx, a.name, code_body, &mut methods) {
                        Ok(()) => {
                            notes.push(format!("{}: {e}; traced without line probes", what()?));
                            continue;
                        }
                        Err(ClassFileError::MethodTooLarge) => methods.truncate(mark),
                        Err(e) => return Err(e),
                    }
                } else if e != ClassFileError::MethodTooLarge {
                    return Err(e);
                }
                notes.push(format!(
                    "{}: {}; it runs untouched and untraced",
                    what()?,
                    ClassFileError::MethodTooLarge
                ));
                methods.extend_from_slice(&bytes[a.at..a.at + 6 + a.body.len()]);
            } else {
                methods.extend_from_slice(&bytes[a.at..a.at + 6 + a.body.len()]);
            }
        }
    }

    let extra = add.bytes();
    let mut out = Vec::with_capacity(bytes.len() + extra.len() + methods.len());
    out.extend_from_slice(&bytes[..8]);
    out.put_u16(add.count());
    out.extend_from_slice(&bytes[10..c.pool.end]);
    out.extend_from_slice(extra);
    out.extend_from_slice(&bytes[c.pool.end..c.methods_start]);
    out.extend_from_slice(&methods);
    out.extend_from_slice(&bytes[c.methods_end..]);
    Ok(out)
}

/// (this, super) internal names, raw.
type CtorNames<'a> = (&'a [u8], &'a [u8]);

fn add_refs(add: &mut PoolAdditions, tracker: &str) -> Result<Refs, ClassFileError> {
    let t = add.class(tracker)?;
    Ok(Refs {
        enter: add.method_ref(t, "enter", "(I)V")?,
        exit: add.method_ref(t, "exit", "(I)V")?,
        unwind: add.method_ref(t, "unwind", "(Ljava/lang/Throwable;I)V")?,
        caught: add.method_ref(t, "caught", "(Ljava/lang/Throwable;I)V")?,
        line: add.method_ref(t, "line", "(II)V")?,
        throwable: add.class("java/lang/Throwable")?,
    })
}

/// A window method's probes: `wenter`, `wexit`, `wunwind` for its entry, exit and
/// unwind; `caught` and `line` as any method's (its thread is in a window there).
fn add_window_refs(
    add: &mut PoolAdditions,
    tracker: &str,
    refs: &Refs,
) -> Result<Refs, ClassFileError> {
    let t = add.class(tracker)?;
    let [(e, ed), (x, xd), (u, ud)] = super::WINDOW_PROBES;
    Ok(Refs {
        enter: add.method_ref(t, e, ed)?,
        exit: add.method_ref(t, x, xd)?,
        unwind: add.method_ref(t, u, ud)?,
        ..*refs
    })
}

/// (this, super) class names for constructor handling; `None` for a class
/// without a superclass (java/lang/Object), whose `<init>` starts with an
/// initialized `this`.
fn ctor_names<'a>(c: &RawClass<'a>) -> Result<Option<CtorNames<'a>>, ClassFileError> {
    if c.super_class == 0 {
        return Ok(None);
    }
    Ok(Some((
        c.pool.class_name_bytes(c.this_class)?,
        c.pool.class_name_bytes(c.super_class)?,
    )))
}
