// The in-application switch of the jtrace agent: trace just the code under test.
package jtrace;

import java.lang.reflect.Method;

/**
 * Starts and stops jtrace traces from inside the application (tests, benchmarks).
 *
 * <p>Every method is a no-op returning {@code false} when the JVM runs without the
 * jtrace agent, so calls can stay in the code. With the agent (loaded with
 * {@code -agentpath:libjtrace.so=start=off,...} or attached with {@code jtrace attach}):
 *
 * <pre>
 *   jtrace.Trace.start("out=/tmp/block-%n.xml");
 *   codeUnderTest();
 *   jtrace.Trace.stop();
 * </pre>
 *
 * <p>The agent reaches this class through {@code java.jtrace.Tracker}, a class it defines
 * in the boot loader; classes in package {@code jtrace} are never traced.
 */
public final class Trace {
    private Trace() {}

    /** The agent's {@code control(String)} native, or null without the agent. */
    private static final Method CONTROL = find();

    private static Method find() {
        try {
            Class<?> tracker = Class.forName("java.jtrace.Tracker", false, null);
            return tracker.getMethod("control", String.class);
        } catch (ReflectiveOperationException | LinkageError | SecurityException e) {
            return null;
        }
    }

    /** Whether the jtrace agent is loaded in this JVM. */
    public static boolean available() {
        return CONTROL != null;
    }

    /**
     * Starts a new trace. {@code options} are the per-trace agent options
     * ({@code out}, {@code include}, {@code exclude}, {@code filters}, {@code delay},
     * {@code duration}); a key not given takes its default, except {@code out}: without
     * it the trace goes to the file the agent was loaded with ("" starts a trace there).
     *
     * @return true if a trace started; false without the agent or while a trace is
     *     already running
     * @throws IllegalArgumentException if the agent rejects the options
     */
    public static boolean start(String options) {
        return call("jtrace-control=start," + (options == null ? "" : options));
    }

    /**
     * Ends the current trace: the file is complete when this returns.
     *
     * @return true if a trace was stopped; false without the agent or when none was running
     */
    public static boolean stop() {
        return call("jtrace-control=stop");
    }

    /**
     * Writes what the agent's ring holds ({@code ring=SIZE}) to {@code path} as a complete
     * trace ({@code .jtr}, {@code .xml}, {@code .xml.gz}, {@code .xml.zst}); recording goes on.
     * {@code null} or "" writes to the agent's {@code out=} with {@code %n} the dump's number.
     *
     * @return true if the dump was written; false without the agent, when no trace runs or
     *     when the trace has no ring
     * @throws IllegalArgumentException if the path cannot be written or has a comma
     */
    public static boolean dump(String path) {
        if (path == null || path.isEmpty()) {
            return call("jtrace-control=dump");
        }
        String abs = java.nio.file.Paths.get(path).toAbsolutePath().toString();
        return call("jtrace-control=dump,out=" + abs);
    }

    /** The agent's status text ({@code state: tracing|idle}, file, figures), or null without it. */
    public static String status() {
        String r = raw("jtrace-control=status");
        return r == null ? null : r.substring(Math.min(2, r.length()));
    }

    /**
     * Writes a {@code tag} element into the current trace, on the calling thread, at this
     * moment: {@code name} and the key/value pairs (see docs/TRACE_FORMAT.md). The JUnit
     * listener marks tests with it. Newlines in keys and values become spaces.
     *
     * @return true if the tag was recorded; false without the agent or when no trace runs
     */
    public static boolean tag(String name, String... keyValues) {
        if (CONTROL == null) {
            return false;
        }
        StringBuilder b = new StringBuilder("jtrace-control=tag\n").append(line(name));
        for (String kv : keyValues) {
            b.append('\n').append(line(kv));
        }
        return call(b.toString());
    }

    private static String line(String s) {
        return s == null ? "" : s.replace('\n', ' ').replace('\r', ' ');
    }

    private static boolean call(String request) {
        String r = raw(request);
        if (r == null || r.isEmpty()) {
            return false;
        }
        switch (r.charAt(0)) {
            case '0':
                return true;
            case '2':
                throw new IllegalArgumentException(r.substring(Math.min(2, r.length())));
            default:
                return false;
        }
    }

    private static String raw(String request) {
        if (CONTROL == null) {
            return null;
        }
        try {
            return (String) CONTROL.invoke(null, request);
        } catch (ReflectiveOperationException e) {
            return null;
        }
    }
}
