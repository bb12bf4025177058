//! Generates the tracker class whose `static native` methods the probes call.

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
/// probes' `<name>0`, then `count0(I)V` (an entry between traces) and `control`.
pub const GATED_NATIVES: [(&str, &str); 7] = [
    ("enter0", "(I)V"),
    ("exit0", "(I)V"),
    ("unwind0", "(Ljava/lang/Throwable;I)V"),
    ("caught0", "(Ljava/lang/Throwable;I)V"),
    ("line0", "(II)V"),
    ("count0", "(I)V"),
    ("control", "(Ljava/lang/String;)Ljava/lang/String;"),
];

/// The name of the tracker's recording switch: `public static volatile boolean`.
pub const SWITCH_FIELD: &str = "on";

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

/// The tracker the agent defines: each probe method (`enter`, `exit`, `unwind`,
/// `caught`, `line`, as in [`TRACKER_METHODS`]) is plain bytecode that reads the
/// volatile static `on` and calls its native (`enter0`, ...) only while a trace
/// records. Between traces a probe therefore costs a field read once the JIT has
/// inlined it; with `count_idle`, `enter` calls `count0(id)` instead, so that
/// `methodCount` still counts every invocation. `control` stays a native.
///
/// Version 49: the methods need no StackMapTable (the class is the agent's own, in
/// the boot loader).
pub fn gated_tracker_class(name: &str, count_idle: bool) -> Vec<u8> {
    let mut pool = Pool {
        bytes: Vec::new(),
        count: 0,
        utf8: Vec::new(),
    };
    let this = pool.class(name);
    let object = pool.class("java/lang/Object");
    let on = pool.member(9, this, SWITCH_FIELD, "Z");
    let natives: Vec<u16> = GATED_NATIVES
        .iter()
        .map(|(n, d)| pool.member(10, this, n, d))
        .collect();
    let code_name = pool.utf8("Code");
    let mut methods: Vec<Vec<u8>> = Vec::new();
    for (i, (n, d)) in TRACKER_METHODS.iter().enumerate() {
        let mut m = Vec::new();
        if *n == "control" {
            m.put_u16(ACC_PUBLIC | ACC_STATIC | ACC_NATIVE);
            m.put_u16(pool.utf8(n));
            m.put_u16(pool.utf8(d));
            m.put_u16(0);
            methods.push(m);
            continue;
        }
        // Load the arguments: (I)V, (II)V, (Throwable, I)V.
        let loads: &[u8] = match *d {
            "(I)V" => &[0x1a],
            "(II)V" => &[0x1a, 0x1b],
            _ => &[0x2a, 0x1b],
        };
        let mut call = loads.to_vec();
        call.push(0xb8); // invokestatic
        call.put_u16(natives[i]);
        let mut idle = Vec::new();
        if *n == "enter" && count_idle {
            idle.extend_from_slice(loads);
            idle.push(0xb8);
            idle.put_u16(natives[5]);
        }
        let mut code = vec![0xb2]; // getstatic on
        code.put_u16(on);
        code.push(0x99); // ifeq to the idle part (after the call and its return)
        code.put_u16(3 + call.len() as u16 + 1);
        code.extend_from_slice(&call);
        code.push(0xb1); // return
        code.extend_from_slice(&idle);
        code.push(0xb1);
        let max_locals = loads.len() as u16;
        m.put_u16(ACC_PUBLIC | ACC_STATIC);
        m.put_u16(pool.utf8(n));
        m.put_u16(pool.utf8(d));
        m.put_u16(1);
        m.put_u16(code_name);
        m.put_u32(12 + code.len() as u32);
        m.put_u16(max_locals.max(1)); // max_stack: the arguments
        m.put_u16(max_locals);
        m.put_u32(code.len() as u32);
        m.extend_from_slice(&code);
        m.put_u16(0); // exception table
        m.put_u16(0); // attributes
        methods.push(m);
    }
    for (n, d) in GATED_NATIVES.iter().filter(|(n, _)| *n != "control") {
        let mut m = Vec::new();
        m.put_u16(ACC_PRIVATE | ACC_STATIC | ACC_NATIVE);
        m.put_u16(pool.utf8(n));
        m.put_u16(pool.utf8(d));
        m.put_u16(0);
        methods.push(m);
    }
    let field_name = pool.utf8(SWITCH_FIELD);
    let field_desc = pool.utf8("Z");
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
    out.put_u16(1); // fields: public static volatile boolean on
    out.put_u16(ACC_PUBLIC | ACC_STATIC | ACC_VOLATILE);
    out.put_u16(field_name);
    out.put_u16(field_desc);
    out.put_u16(0);
    out.put_u16(methods.len() as u16);
    for m in methods {
        out.extend_from_slice(&m);
    }
    out.put_u16(0); // class attributes
    out
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
            let b = gated_tracker_class("jtrace/Tracker", count);
            let info = parse_info(&b).unwrap();
            let m: Vec<_> = info
                .methods
                .iter()
                .map(|m| (m.name.as_str(), m.access, m.has_code))
                .collect();
            assert_eq!(m[0], ("enter", 0x0009, true));
            assert_eq!(m[5], ("control", 0x0109, false));
            assert_eq!(m[6], ("enter0", 0x010a, false));
            assert_eq!(m.len(), 12);
            // Every probe's code is accepted by the rewriter's parser too.
            assert!(crate::classfile::instrument(
                &b,
                &crate::classfile::ProbePlan {
                    tracker: "x/T",
                    method_ids: &[None; 12],
                    lines: false,
                    pad: false,
                }
            )
            .is_ok());
        }
    }
}
