// The -javaagent way in: extracts the jar's libjtrace.so once per content and loads it.
package jtrace.agent;

import java.io.IOException;
import java.io.InputStream;
import java.lang.instrument.Instrumentation;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Locale;
import java.util.jar.JarFile;

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

    private static void start(String options, Instrumentation inst) {
        String where = Extract.platform();
        String dir = where == null ? null : "/META-INF/native/" + where + "/";
        try {
            // The build's own platform has its checksum compiled in (Built.java, written
            // by cargo xtask jar): no resource to open on the way.
            String sum = dir == null ? null
                    : where.equals(Built.PLATFORM) ? Built.LIB_SHA256
                    : text(dir + "libjtrace.so.sha256");
            if (sum == null) {
                say("no native agent for " + System.getProperty("os.name") + " "
                        + System.getProperty("os.arch") + " in this jar (it has linux-x86_64); "
                        + "the application runs untraced");
                return;
            }
            Path lib = Extract.extract(Loader.class, dir + "libjtrace.so", sum.trim(),
                    "libjtrace.so", false);
            System.load(lib.toString());
            load(options == null ? "" : options);
        } catch (IllegalCallerException e) {
            // JDK 24+ with --illegal-native-access=deny (JEP 472; a later JDK's default).
            say("this JVM refuses System.load from the class path (" + e.getMessage()
                    + "): add --enable-native-access=ALL-UNNAMED, or trace with "
                    + "-agentpath:libjtrace.so; the application runs untraced");
            return;
        } catch (IOException | RuntimeException | LinkageError e) {
            say(e.toString() + "; the application runs untraced");
            return;
        }
        if (inst != null && mayRunTests()) {
            try {
                markTests(inst);
            } catch (IOException | RuntimeException | LinkageError e) {
                say(e.toString() + "; tests are not marked in the trace");
            }
        }
    }

    /**
     * Tests marked as under {@code jtrace record}: where the JUnit Platform launcher is on the
     * class path, its listener registered (a jar holding only the {@code ServiceLoader} entry
     * for the listener class, which is in this jar, appended to the class path: registered in
     * a JVM whose JUnit lives in another loader, the entry would name a class that cannot link
     * there and break test discovery); tests run by JUnit 3 and 4 (Gradle's and surefire's
     * JUnit 4 runners, Ant's {@code <junit>}) through jtrace-record's patch.
     */
    private static void markTests(Instrumentation inst) throws IOException {
        if (ClassLoader.getSystemResource("org/junit/platform/launcher/TestExecutionListener.class")
                != null) {
            Path listener = Extract.extract(Loader.class, "/META-INF/jtrace/listener.jar",
                    Built.LISTENER_SHA256, "listener.jar", false);
            inst.appendToSystemClassLoaderSearch(new JarFile(listener.toFile()));
        }
        jtrace.record.Premain.markJUnit(inst);
    }

    /**
     * Whether this JVM may run JUnit tests, so that the class path is worth searching for
     * JUnit (the first search of the system class loader's resources costs a JVM's start 4 to
     * 8 ms: it reads the run-time image): where a class path entry or the main class names
     * JUnit, surefire or Gradle (their forked test JVMs, JUnit's console launcher, the IDEs'
     * and Ant's and Bazel's runners all do), or {@code -Djtrace.tests=on} says so
     * ({@code -Djtrace.tests=off}: never).
     */
    static boolean mayRunTests() {
        String forced = System.getProperty("jtrace.tests");
        if (forced != null && !forced.isEmpty()) {
            return !forced.equals("off");
        }
        String seen = (System.getProperty("java.class.path", "") + " "
                + System.getProperty("sun.java.command", "")).toLowerCase(Locale.ROOT);
        return seen.contains("junit") || seen.contains("surefire") || seen.contains("gradle");
    }

    private static void say(String what) {
        System.err.println("jtrace: -javaagent: " + what);
    }

    private static String text(String resource) throws IOException {
        try (InputStream in = Loader.class.getResourceAsStream(resource)) {
            return in == null ? null : new String(in.readAllBytes(), StandardCharsets.US_ASCII);
        }
    }
}
