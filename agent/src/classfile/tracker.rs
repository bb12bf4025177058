//! Generates the tracker class whose `static native` methods the probes call.

use super::insn::{
    AALOAD, ALOAD, ALOAD_0, ALOAD_1, ALOAD_3, ANEWARRAY, ARRAYLENGTH, ASTORE, ASTORE_1, ASTORE_3,
    BIPUSH, DUP2, GETSTATIC, IAND, ICONST_1, IFEQ, IFNULL, IF_ACMPEQ, IF_ACMPNE, IF_ICMPGE, ILOAD,
    ILOAD_0, ILOAD_1, ILOAD_2, INVOKESTATIC, ISTORE, ISTORE_2, IUSHR, IXOR, LADD, LALOAD, LASTORE,
    LCONST_1, PUTSTATIC, RETURN, SIPUSH,
};
use super::writer::PutBe;

/// Internal name of the tracker class the probes call.
///
/// It lives in a `java.*` package (defined by the agent in the boot loader, in no
/// module) because that is the one namespace every class loader must delegate:
/// `ClassLoader.preDefineClass` forbids any loader but the boot and platform loaders
/// to define a `java.*` class, so isolating loaders (Ant's `AntClassLoader`, OSGi
/// bundle loaders whose boot delegation is `java.*`, child-first web-application
/// loaders, loaders with a `null` parent) all hand such names up to the boot loader.
/// JaCoCo's probes reach their runtime through a `java.*` class for the same reason.
pub const TRACKER: &str = "java/jtrace/Tracker";

/// (name, descriptor) of the tracker methods, in the order the agent
/// registers them with `RegisterNatives`.
pub const TRACKER_METHODS: [(&str, &str); 6] = [
    ("enter", "(I)V"),
    ("exit", "(I)V"),
    ("unwind", "(Ljava/lang/Throwable;I)V"),
    ("caught", "(Ljava/lang/Throwable;I)V"),
    ("line", "(II)V"),
    // The in-application switch (`jtrace.Trace`): a control request, its reply.
    ("control", "(Ljava/lang/String;)Ljava/lang/String;"),
];

const ACC_PUBLIC: u16 = 0x0001;
const ACC_STATIC: u16 = 0x0008;
const ACC_FINAL: u16 = 0x0010;
const ACC_SUPER: u16 = 0x0020;
const ACC_NATIVE: u16 = 0x0100;

/// Bytes of `public final class <name>` with the `public static native`
/// methods of [`TRACKER_METHODS`]. `name` is written as plain UTF-8, so it
/// must not contain NUL or characters outside the BMP. The class has no
/// code, hence needs no StackMapTable; the version is clamped to at least 49.
pub fn tracker_class(name: &str, major_version: u16) -> Vec<u8> {
    tracker_class_with(name, major_version, ACC_PUBLIC | ACC_STATIC | ACC_NATIVE)
}

fn tracker_class_with(name: &str, major_version: u16, method_access: u16) -> Vec<u8> {
    let mut utf8s: Vec<&str> = vec![name, "java/lang/Object"];
    for (n, d) in TRACKER_METHODS {
        for s in [n, d] {
            if !utf8s.contains(&s) {
                utf8s.push(s);
            }
        }
    }
    let idx = |s: &str| utf8s.iter().position(|&u| u == s).unwrap_or(0) as u16 + 1;
    // Pool: Utf8 entries 1..=k, then Class(this) k+1, Class(Object) k+2.
    let k = utf8s.len() as u16;
    let mut out = Vec::with_capacity(256 + name.len());
    out.put_u32(0xCAFE_BABE);
    out.put_u16(0);
    out.put_u16(major_version.max(49));
    out.put_u16(k + 3);
    for s in &utf8s {
        out.put_u8(1);
        // Names longer than 65535 bytes cannot be expressed; truncating keeps
        // the output well-formed (the agent's names are short).
        let b = &s.as_bytes()[..s.len().min(0xFFFF)];
        out.put_u16(b.len() as u16);
        out.extend_from_slice(b);
    }
    out.put_u8(7);
    out.put_u16(idx(name));
    out.put_u8(7);
    out.put_u16(idx("java/lang/Object"));
    out.put_u16(ACC_PUBLIC | ACC_FINAL | ACC_SUPER);
    out.put_u16(k + 1);
    out.put_u16(k + 2);
    out.put_u16(0); // interfaces
    out.put_u16(0); // fields
    out.put_u16(TRACKER_METHODS.len() as u16);
    for (n, d) in TRACKER_METHODS {
        out.put_u16(method_access);
        out.put_u16(idx(n));
        out.put_u16(idx(d));
        out.put_u16(0);
    }
    out.put_u16(0); // class attributes
    out
}

/// Names of the natives behind the gated probes, in registration order: the five
/// probes' `<name>0`, then `count0` (an entry between traces that the tracker's own
/// per-thread counts could not take, see [`gated_tracker_class`]) and `control`.
pub const GATED_NATIVES: [(&str, &str); 7] = [
    ("enter0", "(I)V"),
    ("exit0", "(I)V"),
    ("unwind0", "(Ljava/lang/Throwable;I)V"),
    ("caught0", "(Ljava/lang/Throwable;I)V"),
    ("line0", "(II)V"),
    ("count0", "(ILjava/lang/Thread;I)V"),
    ("control", "(Ljava/lang/String;)Ljava/lang/String;"),
];

/// The name of the tracker's recording switch: `public static volatile boolean`.
pub const SWITCH_FIELD: &str = "on";

/// With `window=`: `public static volatile int windows`, not 0 while some thread is
/// inside a window that records. The probes of other methods reach the agent only then,
/// so a call made while no window records costs two field reads (see
/// [`gated_tracker_class`]).
pub const WINDOWS_FIELD: &str = "windows";

/// The probes of window methods (entry, exit, unwind: descriptors as `enter`, `exit`,
/// `unwind`): they reach the agent whenever a trace records, so that a window can open
/// (and close) while no other is recording.
pub const WINDOW_PROBES: [(&str, &str); 3] = [
    ("wenter", "(I)V"),
    ("wexit", "(I)V"),
    ("wunwind", "(Ljava/lang/Throwable;I)V"),
];

/// With `counts=all`, the tracker's per-thread count tables: `static final Thread[]
/// OWNERS` and `static final long[][][] DIRS`, [`IDLE_SLOTS`] slots each (fewer
/// under test: `JTRACE_IDLE_SLOTS`). Slot `i`
/// belongs to thread `OWNERS[i]`; `DIRS[i][id >>> SEGMENT_SHIFT][id & SEGMENT_MASK]`
/// counts its entries of method `id`. Only the owner writes its counts; the agent
/// fills the slots (`count0`) and sums them.
pub const OWNERS_FIELD: (&str, &str) = ("OWNERS", "[Ljava/lang/Thread;");
/// See [`OWNERS_FIELD`].
pub const DIRS_FIELD: (&str, &str) = ("DIRS", "[[[J");
/// Slots of the per-thread count tables: a thread may use slot `h` or `h ^ 1`, where
/// `h` is its identity hash masked to the table.
pub const IDLE_SLOTS: usize = 16_384;
/// A thread's counts come in segments of `1 << SEGMENT_SHIFT` methods (1 KiB).
pub const SEGMENT_SHIFT: u32 = 7;
/// Methods per segment.
pub const SEGMENT: usize = 1 << SEGMENT_SHIFT;

const ACC_PRIVATE: u16 = 0x0002;
const ACC_VOLATILE: u16 = 0x0040;

/// A small constant pool under construction (Utf8, Class, Fieldref, Methodref).
struct Pool {
    bytes: Vec<u8>,
    count: u16,
    utf8: Vec<(String, u16)>,
}

impl Pool {
    fn add(&mut self, entry: &[u8]) -> u16 {
        self.bytes.extend_from_slice(entry);
        self.count += 1;
        self.count
    }

    fn utf8(&mut self, s: &str) -> u16 {
        if let Some(&(_, i)) = self.utf8.iter().find(|(u, _)| u == s) {
            return i;
        }
        let mut e = vec![1];
        e.put_u16(s.len() as u16);
        e.extend_from_slice(s.as_bytes());
        let i = self.add(&e);
        self.utf8.push((s.to_string(), i));
        i
    }

    fn class(&mut self, name: &str) -> u16 {
        let n = self.utf8(name);
        let mut e = vec![7];
        e.put_u16(n);
        self.add(&e)
    }

    fn member(&mut self, tag: u8, class: u16, name: &str, desc: &str) -> u16 {
        let (n, d) = (self.utf8(name), self.utf8(desc));
        let mut nt = vec![12];
        nt.put_u16(n);
        nt.put_u16(d);
        let nt = self.add(&nt);
        let mut e = vec![tag];
        e.put_u16(class);
        e.put_u16(nt);
        self.add(&e)
    }
}

/// Bytecode with forward branches to labels, patched when the label is placed.
#[derive(Default)]
struct Code {
    bytes: Vec<u8>,
    /// (offset of the branch's opcode, label) of branches not yet placed.
    pending: Vec<(usize, u8)>,
}

impl Code {
    fn op(&mut self, b: &[u8]) -> &mut Self {
        self.bytes.extend_from_slice(b);
        self
    }

    fn op_u16(&mut self, op: u8, v: u16) -> &mut Self {
        self.bytes.push(op);
        self.bytes.put_u16(v);
        self
    }

    /// A branch (`op`) to `label`, placed later.
    fn branch(&mut self, op: u8, label: u8) -> &mut Self {
        self.pending.push((self.bytes.len(), label));
        self.op(&[op, 0, 0])
    }

    /// Places `label` here: every branch to it jumps here.
    fn place(&mut self, label: u8) -> &mut Self {
        let here = self.bytes.len();
        for &(at, l) in &self.pending {
            if l == label {
                let off = (here - at) as u16;
                self.bytes[at + 1..at + 3].copy_from_slice(&off.to_be_bytes());
            }
        }
        self.pending.retain(|&(_, l)| l != label);
        self
    }
}

/// A method with a Code attribute (no exception table, no attributes).
fn code_method(
    pool: &mut Pool,
    access: u16,
    name: &str,
    desc: &str,
    stack_locals: (u16, u16),
    code: &[u8],
) -> Vec<u8> {
    let code_name = pool.utf8("Code");
    let mut m = Vec::new();
    m.put_u16(access);
    m.put_u16(pool.utf8(name));
    m.put_u16(pool.utf8(desc));
    m.put_u16(1);
    m.put_u16(code_name);
    m.put_u32(12 + code.len() as u32);
    m.put_u16(stack_locals.0);
    m.put_u16(stack_locals.1);
    m.put_u32(code.len() as u32);
    m.extend_from_slice(code);
    m.put_u16(0); // exception table
    m.put_u16(0); // attributes
    m
}

/// The tracker the agent defines: each probe method (`enter`, `exit`, `unwind`,
/// `caught`, `line`, as in [`TRACKER_METHODS`]) is plain bytecode that reads the
/// volatile static `on` and calls its native (`enter0`, ...) only while a trace
/// records. Between traces a probe therefore costs a field read once the JIT has
/// inlined it. `control` stays a native.
///
/// With `count_idle` (`counts=all`), `enter` between traces counts the entry in the
/// current thread's own table ([`OWNERS_FIELD`]), in Java and without a lock: the
/// thread's identity hash picks its slot (`h` or `h ^ 1`), and the count is a plain
/// increment that only this thread makes. `Thread.currentThread` and
/// `System.identityHashCode` are natives, so no probe can run inside (no recursion,
/// whatever the filters trace). When the thread has no slot yet, or no segment for the
/// method, `count0(id, thread, h)` counts the entry in the agent and makes them.
///
/// Version 49: the methods need no StackMapTable (the class is the agent's own, in
/// the boot loader).
///
/// `count_slots`: `Some(n)` with `counts=all`, the size of the tables (a power of two
/// from 2 to [`IDLE_SLOTS`]). `windowed` (`window=`): the five probes also read
/// [`WINDOWS_FIELD`] and call the agent only while it is not 0; the window methods'
/// own probes ([`WINDOW_PROBES`]) read only `on`.
pub fn gated_tracker_class(name: &str, count_slots: Option<u16>, windowed: bool) -> Vec<u8> {
    let mut pool = Pool {
        bytes: Vec::new(),
        count: 0,
        utf8: Vec::new(),
    };
    let this = pool.class(name);
    let object = pool.class("java/lang/Object");
    let on = pool.member(9, this, SWITCH_FIELD, "Z");
    let open = pool.member(9, this, WINDOWS_FIELD, "I");
    let natives: Vec<u16> = GATED_NATIVES
        .iter()
        .map(|(n, d)| pool.member(10, this, n, d))
        .collect();
    let mut methods: Vec<Vec<u8>> = Vec::new();
    for (i, (n, d)) in TRACKER_METHODS.iter().enumerate() {
        if *n == "control" {
            let mut m = Vec::new();
            m.put_u16(ACC_PUBLIC | ACC_STATIC | ACC_NATIVE);
            m.put_u16(pool.utf8(n));
            m.put_u16(pool.utf8(d));
            m.put_u16(0);
            methods.push(m);
            continue;
        }
        // Load the arguments: (I)V, (II)V, (Throwable, I)V.
        let loads: &[u8] = match *d {
            "(I)V" => &[ILOAD_0],
            "(II)V" => &[ILOAD_0, ILOAD_1],
            _ => &[ALOAD_0, ILOAD_1],
        };
        const SKIP: u8 = 3;
        let mut code = Code::default();
        code.op_u16(GETSTATIC, on).branch(IFEQ, 0);
        if windowed {
            code.op_u16(GETSTATIC, open).branch(IFEQ, SKIP);
        }
        code.op(loads)
            .op_u16(INVOKESTATIC, natives[i])
            .op(&[RETURN])
            .place(0);
        let mut frame = (loads.len() as u16, loads.len() as u16);
        if let (true, Some(slots)) = (*n == "enter", count_slots) {
            frame = idle_count(&mut pool, this, natives[5], slots, &mut code);
        }
        code.place(SKIP).op(&[RETURN]);
        methods.push(code_method(
            &mut pool,
            ACC_PUBLIC | ACC_STATIC,
            n,
            d,
            frame,
            &code.bytes,
        ));
    }
    // The window methods' probes: `if (on) enter0(id)` (exit0, unwind0).
    for (k, (n, d)) in WINDOW_PROBES.iter().enumerate() {
        let loads: &[u8] = if k == 2 {
            &[ALOAD_0, ILOAD_1]
        } else {
            &[ILOAD_0]
        };
        let mut code = Code::default();
        code.op_u16(GETSTATIC, on)
            .branch(IFEQ, 0)
            .op(loads)
            .op_u16(INVOKESTATIC, natives[[0, 1, 2][k]])
            .place(0)
            .op(&[RETURN]);
        let frame = (loads.len() as u16, loads.len() as u16);
        methods.push(code_method(
            &mut pool,
            ACC_PUBLIC | ACC_STATIC,
            n,
            d,
            frame,
            &code.bytes,
        ));
    }
    for (n, d) in GATED_NATIVES.iter().filter(|(n, _)| *n != "control") {
        let mut m = Vec::new();
        m.put_u16(ACC_PRIVATE | ACC_STATIC | ACC_NATIVE);
        m.put_u16(pool.utf8(n));
        m.put_u16(pool.utf8(d));
        m.put_u16(0);
        methods.push(m);
    }
    let mut fields = vec![
        (ACC_PUBLIC | ACC_STATIC | ACC_VOLATILE, SWITCH_FIELD, "Z"),
        (ACC_PUBLIC | ACC_STATIC | ACC_VOLATILE, WINDOWS_FIELD, "I"),
    ];
    if let Some(slots) = count_slots {
        methods.push(count_tables_init(&mut pool, this, slots));
        for (n, d) in [OWNERS_FIELD, DIRS_FIELD] {
            fields.push((ACC_PRIVATE | ACC_STATIC | ACC_FINAL, n, d));
        }
    }
    let fields: Vec<(u16, u16, u16)> = fields
        .into_iter()
        .map(|(a, n, d)| (a, pool.utf8(n), pool.utf8(d)))
        .collect();
    let mut out = Vec::with_capacity(1024);
    out.put_u32(0xCAFE_BABE);
    out.put_u16(0);
    out.put_u16(49);
    out.put_u16(pool.count + 1);
    out.extend_from_slice(&pool.bytes);
    out.put_u16(ACC_PUBLIC | ACC_FINAL | ACC_SUPER);
    out.put_u16(this);
    out.put_u16(object);
    out.put_u16(0); // interfaces
    out.put_u16(fields.len() as u16);
    for (a, n, d) in fields {
        out.put_u16(a);
        out.put_u16(n);
        out.put_u16(d);
        out.put_u16(0);
    }
    out.put_u16(methods.len() as u16);
    for m in methods {
        out.extend_from_slice(&m);
    }
    out.put_u16(0); // class attributes
    out
}

/// `enter`'s code between traces with `counts=all` (locals: 0 id, 1 thread, 2 slot,
/// 3 directory, 4 segment index, 5 segment):
///
/// ```text
/// Thread t = Thread.currentThread();
/// int s = System.identityHashCode(t) & (slots - 1);
/// if (OWNERS[s] != t && OWNERS[s ^= 1] != t) goto slow;
/// long[][] dir = DIRS[s];              if (dir == null) goto slow;
/// int k = id >>> SEGMENT_SHIFT;        if (k >= dir.length) goto slow;
/// long[] seg = dir[k];                 if (seg == null) goto slow;
/// seg[id & (SEGMENT - 1)]++; return;
/// slow: count0(id, t, s);
/// ```
/// Returns (max_stack, max_locals).
fn idle_count(pool: &mut Pool, this: u16, count0: u16, slots: u16, code: &mut Code) -> (u16, u16) {
    let thread = pool.class("java/lang/Thread");
    let current = pool.member(10, thread, "currentThread", "()Ljava/lang/Thread;");
    let system = pool.class("java/lang/System");
    let hash = pool.member(10, system, "identityHashCode", "(Ljava/lang/Object;)I");
    let owners = pool.member(9, this, OWNERS_FIELD.0, OWNERS_FIELD.1);
    let dirs = pool.member(9, this, DIRS_FIELD.0, DIRS_FIELD.1);
    const FOUND: u8 = 1;
    const SLOW: u8 = 2;
    code.op_u16(INVOKESTATIC, current)
        .op(&[ASTORE_1, ALOAD_1])
        .op_u16(INVOKESTATIC, hash)
        .op_u16(SIPUSH, slots - 1)
        .op(&[IAND, ISTORE_2])
        .op_u16(GETSTATIC, owners)
        .op(&[ILOAD_2, AALOAD, ALOAD_1])
        .branch(IF_ACMPEQ, FOUND)
        .op(&[ILOAD_2, ICONST_1, IXOR, ISTORE_2])
        .op_u16(GETSTATIC, owners)
        .op(&[ILOAD_2, AALOAD, ALOAD_1])
        .branch(IF_ACMPNE, SLOW)
        .place(FOUND)
        .op_u16(GETSTATIC, dirs)
        .op(&[ILOAD_2, AALOAD, ASTORE_3, ALOAD_3])
        .branch(IFNULL, SLOW)
        .op(&[ILOAD_0, BIPUSH, SEGMENT_SHIFT as u8, IUSHR, ISTORE, 4])
        .op(&[ILOAD, 4, ALOAD_3, ARRAYLENGTH])
        .branch(IF_ICMPGE, SLOW)
        .op(&[ALOAD_3, ILOAD, 4, AALOAD, ASTORE, 5, ALOAD, 5])
        .branch(IFNULL, SLOW)
        .op(&[ALOAD, 5, ILOAD_0, BIPUSH, SEGMENT as u8 - 1, IAND])
        .op(&[DUP2, LALOAD, LCONST_1, LADD, LASTORE, RETURN])
        .place(SLOW)
        .op(&[ILOAD_0, ALOAD_1, ILOAD_2])
        .op_u16(INVOKESTATIC, count0);
    // dup2 of (segment, index) and a long on top: 6.
    (6, 6)
}

/// `<clinit>`: `OWNERS = new Thread[slots]; DIRS = new long[slots][][];`
fn count_tables_init(pool: &mut Pool, this: u16, slots: u16) -> Vec<u8> {
    let thread = pool.class("java/lang/Thread");
    let dir = pool.class("[[J");
    let owners = pool.member(9, this, OWNERS_FIELD.0, OWNERS_FIELD.1);
    let dirs = pool.member(9, this, DIRS_FIELD.0, DIRS_FIELD.1);
    let mut code = Code::default();
    code.op_u16(SIPUSH, slots)
        .op_u16(ANEWARRAY, thread)
        .op_u16(PUTSTATIC, owners)
        .op_u16(SIPUSH, slots)
        .op_u16(ANEWARRAY, dir)
        .op_u16(PUTSTATIC, dirs)
        .op(&[RETURN]);
    code_method(pool, ACC_STATIC, "<clinit>", "()V", (1, 0), &code.bytes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::classfile::parse_info;

    #[test]
    fn tracker_parses() {
        let b = tracker_class("jtrace/Tracker", 45);
        let info = parse_info(&b).unwrap();
        assert_eq!(info.name, "jtrace/Tracker");
        assert_eq!(info.super_name.as_deref(), Some("java/lang/Object"));
        assert_eq!(info.major_version, 49);
        let m: Vec<_> = info
            .methods
            .iter()
            .map(|m| (m.name.as_str(), m.descriptor.as_str(), m.access, m.has_code))
            .collect();
        assert_eq!(m[0], ("enter", "(I)V", 0x0109, false));
        assert_eq!(m[4], ("line", "(II)V", 0x0109, false));
        assert_eq!(m.len(), 6);
    }

    #[test]
    fn gated_tracker_parses() {
        for count in [false, true] {
            let slots = count.then_some(IDLE_SLOTS as u16);
            // Windowed with the count tables, plain without: both shapes parse.
            let b = gated_tracker_class("jtrace/Tracker", slots, count);
            let info = parse_info(&b).unwrap();
            let m: Vec<_> = info
                .methods
                .iter()
                .map(|m| (m.name.as_str(), m.access, m.has_code))
                .collect();
            assert_eq!(m[0], ("enter", 0x0009, true));
            assert_eq!(m[5], ("control", 0x0109, false));
            assert_eq!(m[6], ("wenter", 0x0009, true));
            assert_eq!(m[8], ("wunwind", 0x0009, true));
            assert_eq!(m[9], ("enter0", 0x010a, false));
            assert_eq!(m.len(), 15 + count as usize, "<clinit> with counts");
            // Every probe's code is accepted by the rewriter's parser too.
            assert!(crate::classfile::instrument(
                &b,
                &crate::classfile::ProbePlan {
                    tracker: "x/T",
                    method_ids: &vec![None; m.len()],
                    lines: false,
                    pad: false,
                    windows: &[],
                }
            )
            .is_ok());
        }
    }
}
