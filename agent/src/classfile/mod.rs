//! Class-file parsing and probe insertion (bytecode instrumentation).
//!
//! Std only, no `unsafe`, and no panics on hostile input: every read is
//! bounds-checked and every inconsistency is an `Err`. The agent's rule is
//! *fail safe*: when `instrument` returns `Err`, the caller must load the
//! original bytes unchanged.
//!
//! # What `instrument` does
//! For each method with `Some(id)` and a Code attribute it inserts calls to
//! static methods of the tracker class (see [`tracker_class`]):
//! entry at pc 0, exit before every `*return`, `caught` at every original
//! handler start, `line(id, unit index)` at every executable unit (optional) and a catch-all
//! handler appended last that calls `unwind` and rethrows. Branch offsets,
//! switches (re-padded), the exception table, LineNumberTable,
//! LocalVariable(Type)Table and StackMapTable are remapped; `goto`/`jsr` grow
//! to `goto_w`/`jsr_w` when an offset no longer fits 16 bits.
//!
//! Offset mapping (new positions of an original instruction at `pc`):
//! * branch targets, stack map frames, exception ranges: the start of the
//!   probes inserted before the instruction, except at pc 0 where the entry
//!   probe is skipped (a loop back to pc 0 must not re-enter the method);
//! * exception handler_pc: the start of the `caught` probe;
//! * LineNumberTable, LocalVariable(Type)Table: the start of all probes
//!   before the instruction (so a probe is attributed to the line it
//!   announces); `uninitialized(offset)` types: the `new` itself.
//!
//! The catch-all handler does not cover the entry probe (an exception there
//! must not report an unwind without an enter) nor the exit probe plus its
//! return instruction (the exit is already reported). In a constructor the
//! code before the `super(...)`/`this(...)` call has `uninitializedThis` in
//! local 0, which no handler for the code after it can accept
//! (JVMS 4.10.1.6 flag rule), so it gets its own handler whose frame holds
//! `uninitializedThis`. The super call is found by a linear scan: the first
//! `invokespecial <init>` of this class or its superclass while no `new` is
//! pending (javac nests `new`/`<init>` pairs in the arguments).
//! The super call instruction itself cannot be covered by any handler:
//! HotSpot checks a handler there against the outgoing frame too (`this`
//! initialized but flagThisUninit still set), which no frame accepts. So a
//! constructor left by an exception thrown *inside* its super call reports
//! no `unwind`; the runtime must treat an `exit`/`unwind`/`caught` of an
//! outer frame as implicitly unwinding the frames above it.
//!
//! With [`ProbePlan::pad`], dead code after the handlers brings each rewritten
//! method's code to [`NOT_INLINED`] bytes, past the JIT's inlining limits; a method
//! that calls a method of its own name and descriptor is left unpadded (see there).
//!
//! # When a class is refused (`Err`)
//! Malformed or truncated input; code that grows beyond 65535 bytes; a
//! conditional branch whose offset no longer fits 16 bits (no branch
//! inversion is attempted); a constructor whose super call cannot be found
//! or is not unique, or with a branch or handler crossing it;
//! more than 65534 constants; LineNumberTable/LocalVariableTable offsets that
//! are not instruction boundaries. Type annotations and unknown attributes
//! inside Code carry code offsets we cannot remap, so they are dropped
//! (the JVM does not need them to run or verify the method).
//! Classes older than 50 get no StackMapTable (they may use `jsr`/`ret`);
//! a StackMapTable found in them is dropped since the JVM ignores it.
//!
//! # Per method, not per class (`instrument_noting`)
//! A method whose rewriting fails only because of its line probes (code past
//! 65535 bytes, a branch out of range) is rewritten again with entry, exit and
//! exception probes only; one that is too large even for those keeps its code
//! untouched (its calls are not seen). The rest of the class is traced as usual,
//! and each such method is named in the notes the caller logs once.

mod constpool;
mod flow;
mod insn;
mod instrument;
mod parse;
mod reader;
mod rewrite;
mod stackmap;
mod tracker;
mod writer;

#[cfg(test)]
mod fuzz;
#[cfg(test)]
mod tests;

use std::fmt;

pub use instrument::{instrument, instrument_noting};
pub use tracker::{
    gated_tracker_class, tracker_class, DIRS_FIELD, GATED_NATIVES, IDLE_SLOTS, OWNERS_FIELD,
    SEGMENT, SEGMENT_SHIFT, SWITCH_FIELD, TRACKER, TRACKER_METHODS, WINDOWS_FIELD, WINDOW_PROBES,
};

/// Summary of a class, for the agent's method and class tables.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClassInfo {
    /// Internal form, e.g. `com/foo/Bar$Inner`.
    pub name: String,
    /// Internal form; `None` for `java/lang/Object` and `module-info`.
    pub super_name: Option<String>,
    pub interfaces: Vec<String>,
    pub access: u16,
    pub source_file: Option<String>,
    pub static_fields: u32,
    pub instance_fields: u32,
    pub major_version: u16,
    /// In class-file order.
    pub methods: Vec<MethodInfo>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MethodInfo {
    pub name: String,
    pub descriptor: String,
    pub access: u16,
    /// Internal names from the Exceptions attribute.
    pub exceptions: Vec<String>,
    pub has_code: bool,
    /// (start_pc, line) of all LineNumberTable attributes, sorted by pc.
    pub line_numbers: Vec<(u16, u16)>,
    /// Length of the method's bytecode (0 without code).
    pub code_len: u32,
    /// Bytecode indexes of the allocating instructions (new, newarray, anewarray,
    /// multianewarray), in order.
    pub alloc_sites: Vec<u32>,
    /// Executable units: (original pc, source line or 0). One unit `(0, 0)`
    /// when the method has code but no line table; empty without code.
    pub units: Vec<(u32, u16)>,
}

/// Whether a method runs bytecode we can observe (not abstract, not native) and may
/// be rewritten. An empty `finalize()` (a lone `return`) is left alone: HotSpot
/// registers objects for finalization only when their class's finalize() is not
/// empty, so probes there would make every such object finalizable and change how
/// the application's garbage is collected.
pub fn traceable(m: &MethodInfo) -> bool {
    let empty_finalize = m.name == "finalize" && m.descriptor == "()V" && m.code_len == 1;
    m.has_code && m.access & 0x0500 == 0 && !empty_finalize
}

/// What to insert; see the module docs.
pub struct ProbePlan<'a> {
    /// Internal name of the tracker class, e.g. [`TRACKER`].
    pub tracker: &'a str,
    /// One per method in class-file order; `None` leaves the method alone.
    pub method_ids: &'a [Option<u32>],
    /// Insert `line` probes at executable units.
    pub lines: bool,
    /// Pad each rewritten method's code to [`NOT_INLINED`] bytes (see there).
    pub pad: bool,
    /// One per method (or empty: none): a window method (`window=`), whose entry, exit
    /// and unwind probes call the tracker's [`WINDOW_PROBES`], which reach the agent
    /// whenever a trace records (the others only while some thread is in a window).
    pub windows: &'a [bool],
}

/// Code length a padded method reaches: one byte past HotSpot's largest inlining
/// limit (`FreqInlineSize`, 325 bytes of bytecode by default on JDK 17 and 25; C1's
/// `C1MaxInlineSize` is 35), so that the JIT compiles a traced method once, on its
/// own, instead of into every caller: each probe is a native call site, which C2's
/// register allocator pays for in every copy (measured on an H2 server: half the
/// compile work; docs/BENCHMARKS.md). The padding is dead code after the catch-all
/// handler (`nop`s, then `aconst_null; athrow`, under a stack map frame of its own);
/// the JVM never runs it, and its parsers skip it. A method that calls itself (a call
/// of its own name and descriptor, any class) is not padded: the JIT inlines a
/// recursive call into itself once, so a padded recursive method would take twice
/// the frames and the deepest recursion a thread's stack holds would halve. Mutual
/// recursion (`a` calls `b` calls `a`) is not seen, and gets deeper frames.
pub const NOT_INLINED: usize = 326;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ClassFileError {
    /// The input ends inside a structure.
    Truncated,
    BadMagic,
    /// Constant pool entry missing, of the wrong kind, or with a bad tag.
    BadConstant(u16),
    /// Inconsistent code or attribute (what is wrong).
    BadCode(&'static str),
    /// Instrumented code would exceed 65535 bytes.
    MethodTooLarge,
    /// The constant pool would exceed 65534 entries.
    TooManyConstants,
    /// Valid input this rewriter does not handle.
    Unsupported(String),
}

impl fmt::Display for ClassFileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ClassFileError::Truncated => write!(f, "truncated class file"),
            ClassFileError::BadMagic => write!(f, "not a class file (bad magic)"),
            ClassFileError::BadConstant(i) => write!(f, "bad constant pool entry #{i}"),
            ClassFileError::BadCode(what) => write!(f, "malformed class file: {what}"),
            ClassFileError::MethodTooLarge => write!(f, "instrumented method exceeds 65535 bytes"),
            ClassFileError::TooManyConstants => write!(f, "constant pool would overflow"),
            ClassFileError::Unsupported(what) => write!(f, "unsupported: {what}"),
        }
    }
}

impl std::error::Error for ClassFileError {}

/// Parses the parts of a class the agent reports.
pub fn parse_info(bytes: &[u8]) -> Result<ClassInfo, ClassFileError> {
    let c = parse::parse(bytes)?;
    let p = &c.pool;
    let opt_class = |i: u16| -> Result<Option<String>, ClassFileError> {
        Ok(if i == 0 {
            None
        } else {
            Some(p.class_name(i)?.into_owned())
        })
    };
    let mut methods = Vec::with_capacity(c.methods.len());
    for m in &c.methods {
        let mut exceptions = Vec::new();
        if let Some(body) = m.exceptions {
            let mut r = reader::Reader::new(body);
            for _ in 0..r.u16()? {
                exceptions.push(p.class_name(r.u16()?)?.into_owned());
            }
        }
        let (line_numbers, units, alloc_sites, code_len) = match m.code {
            Some((_, body)) => {
                let rc = parse::parse_code(body)?;
                let code_len = rc.code.len() as u32;
                let a = flow::analyze(&rc, p)?;
                let units = a.units();
                let sites = a
                    .insns
                    .iter()
                    .filter(|i| matches!(i.op, 0xbb | 0xbc | 0xbd | 0xc5))
                    .map(|i| i.pc)
                    .collect();
                (a.line_numbers, units, sites, code_len)
            }
            None => (Vec::new(), Vec::new(), Vec::new(), 0),
        };
        methods.push(MethodInfo {
            name: p.utf8(m.name)?.into_owned(),
            descriptor: p.utf8(m.desc)?.into_owned(),
            access: m.access,
            exceptions,
            has_code: m.code.is_some(),
            line_numbers,
            units,
            alloc_sites,
            code_len,
        });
    }
    Ok(ClassInfo {
        name: p.class_name(c.this_class)?.into_owned(),
        super_name: opt_class(c.super_class)?,
        interfaces: c
            .interfaces
            .iter()
            .map(|&i| p.class_name(i).map(|s| s.into_owned()))
            .collect::<Result<_, _>>()?,
        access: c.access,
        source_file: c
            .source_file
            .map(|i| p.utf8(i).map(|s| s.into_owned()))
            .transpose()?,
        static_fields: c.static_fields,
        instance_fields: c.instance_fields,
        major_version: c.major,
        methods,
    })
}

/// A JNI class signature as the JVM's internal name (`Ljava/lang/String;` →
/// `java/lang/String`); array classes keep their descriptor (`[I`). Definitions carry
/// these; the renderer spells them TPTP's way.
pub fn internal_name(sig: &str) -> String {
    match sig.strip_prefix('L').and_then(|s| s.strip_suffix(';')) {
        Some(name) => name.to_string(),
        None => sig.to_string(),
    }
}

/// A JNI class signature as a Java name, for messages (`Ljava/lang/String;` →
/// `java.lang.String`, `[I` → `int[]`): the renderer's spelling.
pub fn java_name(sig: &str) -> String {
    trace::render::names::java_name(&internal_name(sig)).into_owned()
}
