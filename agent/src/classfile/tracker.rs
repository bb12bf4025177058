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
}
