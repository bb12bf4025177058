// Marks JUnit 3 style tests (junit.framework.TestResult: Ant's <junit>, JUnit 4 through JUnit4TestAdapter) in the trace.
package java.jtrace;

import java.lang.reflect.Method;

/**
 * Called from the first instructions of {@code junit.framework.TestResult}'s
 * {@code startTest}, {@code endTest}, {@code addError} and {@code addFailure}, which
 * {@code jtrace-record.jar} inserts (see {@code jtrace.record.TestResultPatch}); every way
 * of running JUnit 3 tests and JUnit 4 tests through {@code JUnit4TestAdapter} (Ant's
 * classic {@code <junit>}, forked or not, {@code junit.textui.TestRunner}) passes there.
 * It writes the same {@code test} tags as the JUnit Platform listener (docs/TRACE_FORMAT.md).
 *
 * <p>The class is in a {@code java.*} package, loaded by the boot loader from
 * {@code jtrace-record.jar} (appended to the boot class path by its premain), because
 * that is the one name space every class loader hands to the boot loader: the inserted
 * call resolves whatever loader defined {@code TestResult}. It reaches JUnit's classes
 * only by reflection, never prints, and never throws: nothing here can change a test's
 * outcome.
 */
public final class TestMarks {
    private TestMarks() {}

    /** The agent's {@code java.jtrace.Tracker.control(String)}, or null without the agent. */
    private static volatile Method control;

    /** Per-trace options to start the trace with at the first test ({@code --tests-only}). */
    private static volatile String startOptions;

    /** The first throwable reported for the test running on this thread. */
    private static final ThreadLocal<Throwable> FAILURE = new ThreadLocal<>();

    /**
     * Called once by jtrace-record.jar's premain: with {@code options} non-null, the first
     * test starts the trace with them if none runs yet (the agent was loaded idle).
     */
    public static void arm(String options) {
        startOptions = options;
    }

    /** {@code TestResult.startTest(Test)}. */
    public static void start(Object test) {
        try {
            FAILURE.remove();
            String first = startOptions;
            if (first != null) {
                startOptions = null;
                call("jtrace-control=start," + first);
            }
            mark(test, "start", "", "");
        } catch (Throwable e) {
            // Never let tracing change a test's outcome.
        }
    }

    /** {@code TestResult.endTest(Test)}. */
    public static void end(Object test) {
        try {
            Throwable t = FAILURE.get();
            FAILURE.remove();
            String outcome = "SUCCESSFUL";
            String exception = "";
            if (t != null) {
                exception = t.getClass().getName();
                outcome = exception.endsWith(".AssumptionViolatedException") ? "ABORTED" : "FAILED";
            }
            mark(test, "end", outcome, exception);
        } catch (Throwable e) {
            // Never let tracing change a test's outcome.
        }
    }

    /** {@code TestResult.addError(Test, Throwable)} and {@code addFailure(Test, AssertionFailedError)}. */
    public static void failed(Object test, Object throwable) {
        try {
            if (FAILURE.get() == null && throwable instanceof Throwable) {
                FAILURE.set((Throwable) throwable);
            }
        } catch (Throwable e) {
            // Never let tracing change a test's outcome.
        }
    }

    /** Class and method of a test: JUnit 4's {@code Describable} or JUnit 3's {@code TestCase}. */
    private static void mark(Object test, String event, String outcome, String exception)
            throws ReflectiveOperationException {
        if (test == null) {
            return;
        }
        String cls = test.getClass().getName();
        String method = "";
        Method describe = publicMethod(test.getClass(), "getDescription");
        if (describe != null) {
            Object d = describe.invoke(test);
            Method c = d == null ? null : publicMethod(d.getClass(), "getClassName");
            Method m = d == null ? null : publicMethod(d.getClass(), "getMethodName");
            if (c != null && m != null) {
                cls = String.valueOf(c.invoke(d));
                Object name = m.invoke(d);
                method = name == null ? "" : name.toString();
            }
        } else {
            Method name = publicMethod(test.getClass(), "getName");
            Object n = name == null ? null : name.invoke(test);
            method = n == null ? "" : n.toString();
        }
        String display = method.isEmpty() ? String.valueOf(test) : method;
        StringBuilder b = new StringBuilder("jtrace-control=tag\ntest");
        String[] kv = {
            "event", event,
            "id", "[runner:junit.framework.TestResult]/[class:" + cls + "]/[test:" + display + "]",
            "name", display,
            "class", cls,
            "method", method,
            "outcome", outcome,
            "exception", exception,
        };
        for (String s : kv) {
            b.append('\n').append(s.replace('\n', ' ').replace('\r', ' '));
        }
        call(b.toString());
    }

    private static Method publicMethod(Class<?> c, String name) {
        try {
            Method m = c.getMethod(name);
            return m.getReturnType() == void.class ? null : m;
        } catch (NoSuchMethodException | SecurityException e) {
            return null;
        }
    }

    private static void call(String request) throws ReflectiveOperationException {
        Method m = control;
        if (m == null) {
            Class<?> tracker = Class.forName("java.jtrace.Tracker", false, null);
            m = tracker.getMethod("control", String.class);
            control = m;
        }
        m.invoke(null, request);
    }
}
