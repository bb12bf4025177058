// The Java agent `jtrace record` loads beside libjtrace.so: marks tests in the trace (JUnit Platform; JUnit 3 and 4 through TestResult and RunNotifier).
package jtrace.record;

import java.io.InputStream;
import java.lang.invoke.MethodHandles;
import java.lang.instrument.Instrumentation;
import java.util.jar.JarFile;

/**
 * {@code -javaagent:jtrace-record.jar=/path/to/jtrace.jar}: in a JVM whose system class
 * loader sees the JUnit Platform launcher (a test JVM: Maven's surefire fork, the console
 * launcher, Ant's junitlauncher), appends jtrace.jar to that class path, so that JUnit's
 * {@code ServiceLoader} finds the listener that marks every test in the trace. In any
 * other JVM (the build tool's own) it does not: a listener put where JUnit cannot link it
 * would break test discovery.
 *
 * <p>In every JVM it also marks the tests that JUnit 3's {@code junit.framework.TestResult} or
 * JUnit 4's {@code RunNotifier} report (Ant's classic {@code <junit>}, forked or not;
 * Gradle's and surefire's JUnit 4 runners; {@code JUnitCore}): it defines
 * {@code java.jtrace.TestMarks} in the boot loader and has {@link JUnitPatch} call it at
 * the start of their test methods (where the JUnit Platform runs, its listener marks
 * the tests and TestMarks stays quiet).
 * It never prints and never throws.
 *
 * <p>With {@code =/path/to/jtrace.jar;OPTIONS} (from {@code jtrace record --tests-only}, which
 * loads the agent idle) it also starts the trace, with those per-trace options
 * ({@code out=...}), in test JVMs only: at once where the JUnit Platform launcher or
 * JUnit 3 or 4 is on the class path, else at the first test TestMarks sees.
 */
public final class Premain {
    private Premain() {}

    public static void premain(String args, Instrumentation inst) {
        int semi = args.indexOf(';');
        String jar = semi < 0 ? args : args.substring(0, semi);
        String start = semi < 0 ? null : args.substring(semi + 1);
        boolean platform = visible("org.junit.platform.launcher.TestExecutionListener");
        // Found, not loaded: the patched classes must load after the transformer is in place.
        boolean junit3 = ClassLoader.getSystemResource(JUnitPatch.TEST_RESULT + ".class") != null
                || ClassLoader.getSystemResource(JUnitPatch.RUN_NOTIFIER + ".class") != null;
        boolean started = false;
        if (start != null && (platform || junit3)) {
            started = control("jtrace-control=start," + start);
        }
        markJUnit(inst, started ? null : start);
        if (!platform) {
            return;
        }
        try {
            inst.appendToSystemClassLoaderSearch(new JarFile(jar));
        } catch (Throwable e) {
            // No listener: the trace is still written, without test marks.
        }
    }

    /**
     * What {@code -javaagent:jtrace-agent.jar} does once its library is loaded: where JUnit 3 or
     * 4 is on the class path, marks the tests its {@code TestResult} and {@code RunNotifier}
     * report (the jar's loader registers the JUnit Platform's listener itself).
     */
    public static void markJUnit(Instrumentation inst) {
        // Only where JUnit 3 or 4 is on the class path: elsewhere (a program, a server) the
        // patch would cost a JVM's start about 20 ms for nothing.
        if (ClassLoader.getSystemResource(JUnitPatch.TEST_RESULT + ".class") != null
                || ClassLoader.getSystemResource(JUnitPatch.RUN_NOTIFIER + ".class") != null) {
            markJUnit(inst, null);
        }
    }

    private static boolean visible(String name) {
        try {
            Class.forName(name, false, ClassLoader.getSystemClassLoader());
            return true;
        } catch (Throwable e) {
            return false;
        }
    }

    /** Sends a request to the agent; whether it was carried out. */
    private static boolean control(String request) {
        try {
            Object r = Class.forName("java.jtrace.Tracker", false, null)
                    .getMethod("control", String.class)
                    .invoke(null, request);
            return r instanceof String && ((String) r).startsWith("0");
        } catch (Throwable e) {
            return false; // Without the agent there is nothing to start.
        }
    }

    /**
     * Defines {@code java.jtrace.TestMarks} (from this jar) beside the agent's
     * {@code java.jtrace.Tracker} in the boot loader and, once that worked, patches
     * {@code TestResult} and {@code RunNotifier}; {@code start}: per-trace options for the first test to start the
     * trace with, or null. (Appending the jar to the boot class path instead would turn
     * class data sharing off for application classes, with a VM warning on stdout.)
     */
    private static void markJUnit(Instrumentation inst, String start) {
        try {
            Class<?> tracker = Class.forName("java.jtrace.Tracker", false, null);
            byte[] bytes;
            try (InputStream in = Premain.class.getResourceAsStream("/" + JUnitPatch.MARKS + ".class")) {
                bytes = in.readAllBytes();
            }
            Class<?> marks = MethodHandles.privateLookupIn(tracker, MethodHandles.lookup()).defineClass(bytes);
            // Initialised and run once here: if it cannot, nothing is patched.
            marks.getMethod("arm", String.class).invoke(null, start);
            marks.getMethod("ignored", Object.class).invoke(null, (Object) null);
            inst.addTransformer(new JUnitPatch());
        } catch (Throwable e) {
            // Without the agent or TestMarks the patched call could not link: no patch.
        }
    }
}
