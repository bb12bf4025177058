// The Java agent `jtrace record` loads beside libjtrace.so: puts jtrace.jar (the JUnit listener) on test JVMs' class path.
package jtrace.record;

import java.lang.instrument.Instrumentation;
import java.util.jar.JarFile;

/**
 * {@code -javaagent:jtrace-record.jar=/path/to/jtrace.jar}: in a JVM whose system class
 * loader sees the JUnit Platform launcher (a test JVM: Maven's surefire fork, the console
 * launcher, Ant's junitlauncher), appends jtrace.jar to that class path, so that JUnit's
 * {@code ServiceLoader} finds the listener that marks every test in the trace. In any
 * other JVM (the build tool's own) it does nothing: a listener put where JUnit cannot
 * link it would break test discovery. It never prints and never throws.
 *
 * <p>With {@code =/path/to/jtrace.jar;OPTIONS} (from {@code jtrace record --tests-only}, which
 * loads the agent idle) it also starts the trace, with those per-trace options
 * ({@code out=...}), in test JVMs only.
 */
public final class Premain {
    private Premain() {}

    public static void premain(String args, Instrumentation inst) {
        int semi = args.indexOf(';');
        String jar = semi < 0 ? args : args.substring(0, semi);
        String start = semi < 0 ? null : args.substring(semi + 1);
        try {
            Class.forName(
                    "org.junit.platform.launcher.TestExecutionListener",
                    false,
                    ClassLoader.getSystemClassLoader());
        } catch (Throwable e) {
            return;
        }
        try {
            inst.appendToSystemClassLoaderSearch(new JarFile(jar));
        } catch (Throwable e) {
            // No listener: the trace is still written, without test marks.
        }
        if (start != null) {
            try {
                Class.forName("java.jtrace.Tracker", false, null)
                        .getMethod("control", String.class)
                        .invoke(null, "jtrace-control=start," + start);
            } catch (Throwable e) {
                // Without the agent there is nothing to start.
            }
        }
    }
}
