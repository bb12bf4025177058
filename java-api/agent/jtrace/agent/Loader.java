// The -javaagent way in: extracts the jar's libjtrace.so once per content and loads it.
package jtrace.agent;

import java.io.IOException;
import java.io.InputStream;
import java.lang.instrument.Instrumentation;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.util.Locale;

/**
 * {@code -javaagent:jtrace-agent.jar[=OPTIONS]} (Premain-Class) and a dynamic load of the
 * jar (Agent-Class): the agent options are those of {@code -agentpath:libjtrace.so=OPTIONS}.
 *
 * <p>The jar carries the native agent per platform under {@code META-INF/native/OS-ARCH/}
 * with its SHA-256 beside it. The library is extracted once per content into
 * {@code ${java.io.tmpdir}/jtrace-${user.name}/SHA256/libjtrace.so} (or under
 * {@code -Djtrace.extractPath=DIR}): written to a temporary file in that directory and
 * renamed into place, so two JVMs starting at once never load a half-written file. Then
 * {@code System.load} and the agent's {@code load} native, which attaches it as
 * {@code jtrace attach} would. Anything that stops this (no library for this platform, a
 * directory that cannot be written) is one line on stderr, and the application runs
 * untraced. Nothing is printed on stdout.
 */
public final class Loader {
    private Loader() {}

    /** Attaches the agent loaded from this class's library; 0 when it is tracing. */
    private static native int load(String options);

    public static void premain(String options, Instrumentation inst) {
        start(options, inst);
    }

    public static void agentmain(String options, Instrumentation inst) {
        start(options, inst);
    }

    /** The platform directory of this JVM's library, or null when the jar has none. */
    static String platform() {
        String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
        String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
        String o = os.startsWith("linux") ? "linux" : os.startsWith("mac") ? "macos" : null;
        String a = arch.equals("amd64") || arch.equals("x86_64") ? "x86_64"
                : arch.equals("aarch64") || arch.equals("arm64") ? "aarch64" : null;
        return o == null || a == null ? null : o + "-" + a;
    }

    private static void start(String options, Instrumentation inst) {
        String where = platform();
        String dir = where == null ? null : "/META-INF/native/" + where + "/";
        try {
            // The build's own platform has its checksum compiled in (Built.java, written
            // by cargo xtask jar): no resource to open on the way.
            String sum = dir == null ? null
                    : where.equals(Built.PLATFORM) ? Built.LIB_SHA256
                    : text(dir + "libjtrace.so.sha256");
            if (sum == null) {
                say("no native agent for " + System.getProperty("os.name") + " "
                        + System.getProperty("os.arch") + " in this jar (it has linux-x86_64)");
                return;
            }
            Path lib = extract(dir + "libjtrace.so", sum.trim());
            System.load(lib.toString());
            load(options == null ? "" : options);
            // Tests run by JUnit 3 and 4 (Gradle's and surefire's JUnit 4 runners, Ant's
            // <junit>) marked as under jtrace record; the Platform's listener is in this jar.
            if (inst != null) {
                jtrace.record.Premain.markJUnit(inst);
            }
        } catch (IOException | RuntimeException | LinkageError e) {
            say(e.toString());
        }
    }

    private static void say(String what) {
        System.err.println("jtrace: -javaagent: " + what + "; the application runs untraced");
    }

    private static String text(String resource) throws IOException {
        try (InputStream in = Loader.class.getResourceAsStream(resource)) {
            return in == null ? null : new String(in.readAllBytes(), StandardCharsets.US_ASCII);
        }
    }

    // No regular expressions on the way: the first one loads and compiles java.util.regex
    // at the JVM's start.

    /** Whether every character of {@code s} is one of {@code chars}. */
    private static boolean only(String s, String chars) {
        for (int i = 0; i < s.length(); i++) {
            if (chars.indexOf(s.charAt(i)) < 0) {
                return false;
            }
        }
        return true;
    }

    /** {@code s} with every character but letters, digits, '.', '_' and '-' made '_'. */
    private static String fileName(String s) {
        StringBuilder b = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            boolean ok = c < 128 && (Character.isLetterOrDigit(c) || c == '.' || c == '_' || c == '-');
            b.append(ok ? c : '_');
        }
        return b.toString();
    }

    /** The library at its content's path, written there first if it is not there yet. */
    private static Path extract(String resource, String sum) throws IOException {
        if (sum.length() != 64 || !only(sum, "0123456789abcdef")) {
            throw new IOException("the jar's checksum of " + resource + " is malformed");
        }
        String base = System.getProperty("jtrace.extractPath");
        Path root = base != null && !base.isEmpty()
                ? Paths.get(base)
                : Paths.get(System.getProperty("java.io.tmpdir"),
                        "jtrace-" + fileName(System.getProperty("user.name", "user")));
        Path dir = root.resolve(sum);
        Path lib = dir.resolve("libjtrace.so");
        if (Files.isRegularFile(lib)) {
            return lib;
        }
        Files.createDirectories(dir);
        Path tmp = Files.createTempFile(dir, "libjtrace", ".part");
        try {
            try (InputStream in = Loader.class.getResourceAsStream(resource)) {
                if (in == null) {
                    throw new IOException("the jar has no " + resource);
                }
                Files.copy(in, tmp, StandardCopyOption.REPLACE_EXISTING);
            }
            Files.move(tmp, lib, StandardCopyOption.ATOMIC_MOVE);
        } finally {
            Files.deleteIfExists(tmp);
        }
        return lib;
    }
}
