//! The JDK's blocking methods: which of them the agent probes even when the JDK is not traced (`waits=on`), and which methods' own time readers count as waiting.

/// JDK methods probed with `waits=on` even when their classes are filtered out (no
/// other method of these classes gets probes): every overload of each name that has
/// bytecode. Chosen on JDK 17 and 25 as the Java methods nearest to the native call
/// that blocks. `Object.wait` is not here: monitor waits are recorded as events
/// (`monitors=on`). `Thread.sleep(long)` is native on JDK 17 (only `sleep(long, int)`
/// is seen there); from JDK 21 every `sleep` is Java. `FileInputStream.read` is not
/// here: class loaders read every class file of a directory through it, so it is
/// mostly the application's own loading, not waiting.
pub const PROBED: &[(&str, &[&str])] = &[
    (
        "java.util.concurrent.locks.LockSupport",
        &["park", "parkNanos", "parkUntil"],
    ),
    ("java.lang.Thread", &["sleep"]),
    ("java.lang.ProcessImpl", &["waitFor"]),
    ("sun.nio.ch.NioSocketImpl", &["accept", "connect", "read"]),
    ("sun.nio.ch.ServerSocketChannelImpl", &["accept"]),
    ("sun.nio.ch.SocketChannelImpl", &["connect", "read"]),
    ("sun.nio.ch.DatagramChannelImpl", &["receive", "read"]),
    ("sun.nio.ch.SelectorImpl", &["select"]),
];

/// Whether `waits=on` probes some method of the class (dotted name).
pub fn probes_class(class: &str) -> bool {
    PROBED.iter().any(|(c, _)| *c == class)
}

/// Whether `waits=on` probes method `name` of the class (dotted name).
pub fn probed(class: &str, name: &str) -> bool {
    PROBED
        .iter()
        .any(|(c, names)| *c == class && names.contains(&name))
}

/// JDK methods whose own time is waiting, not working: sleeping, parking, waiting on
/// a monitor, accepting connections, blocking reads and selects. The [`PROBED`] ones
/// are seen whatever the filters (`waits=on`); the others when the JDK is traced
/// (`include=java.*`). Monitor contention and waits are recorded as events.
pub fn blocks(class: &str, name: &str) -> bool {
    probed(class, name)
        || matches!(
            (class, name),
            (
                "java.lang.Thread",
                "sleep" | "sleep0" | "sleepNanos" | "sleepNanos0" | "onSpinWait" | "yield"
            ) | ("java.lang.Object", "wait" | "wait0")
                | (
                    "java.lang.VirtualThread",
                    "park" | "parkNanos" | "sleepNanos"
                )
                | ("jdk.internal.misc.Unsafe", "park")
                | (
                    "java.lang.ProcessImpl" | "java.lang.ProcessHandleImpl",
                    "waitFor" | "waitForProcessExit0"
                )
        )
        || (name.starts_with("accept")
            || name.starts_with("read")
            || name.starts_with("receive")
            || name == "poll"
            || name.starts_with("select")
            || name == "connect")
            && (class.starts_with("sun.nio.ch.")
                || class.starts_with("java.net.")
                || class == "java.io.FileInputStream"
                || class == "sun.nio.fs.UnixNativeDispatcher")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_probed_method_is_waiting() {
        for (class, names) in PROBED {
            assert!(probes_class(class));
            for n in *names {
                assert!(probed(class, n) && blocks(class, n), "{class}.{n}");
            }
        }
        assert!(!probed("java.lang.Thread", "run"));
        assert!(!probes_class("java.lang.Object"));
        assert!(blocks("java.lang.Object", "wait"));
        assert!(!blocks("java.lang.Thread", "run"));
        assert!(!blocks("com.example.Net", "read"));
    }
}
