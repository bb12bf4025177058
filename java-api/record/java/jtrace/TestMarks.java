// Marks JUnit 3 and 4 tests (TestResult, RunNotifier: Ant's <junit>, Gradle's and surefire's JUnit 4 runners) in the trace.
package java.jtrace;

import java.lang.reflect.Method;

/**
 * Called from the first instructions of JUnit 3's {@code junit.framework.TestResult}
 * ({@code startTest}, {@code endTest}, {@code addError}, {@code addFailure}) and JUnit 4's
 * {@code org.junit.runner.notification.RunNotifier} ({@code fireTestStarted},
 * {@code fireTestFinished}, {@code fireTestFailure}, {@code fireTestAssumptionFailed},
 * {@code fireTestIgnored}), which {@code jtrace-record.jar} inserts (see
 * {@code jtrace.record.JUnitPatch}). Every JUnit 3 or 4 runner reports there: Ant's
 * classic {@code <junit>} (forked or not, JUnit 4 through {@code JUnit4TestAdapter}),
 * Gradle's and Maven surefire's JUnit 4 runners, {@code JUnitCore},
 * {@code junit.textui.TestRunner}. It writes the same {@code test} tags as the JUnit
 * Platform listener (docs/TRACE_FORMAT.md).
 *
 * <p>A test reported to both (JUnit 4 through {@code JUnit4TestAdapter}: the notifier's
 * listener calls {@code TestResult}) is marked once: the outermost start and end on a
 * thread count. Where the JUnit Platform runs with jtrace's listener (which also sees
 * vintage's JUnit 4 and 3 tests), the listener says so through {@link #platform} and this
 * class marks nothing.
 *
 * <p>The class is in a {@code java.*} package, defined in the boot loader beside the
 * agent's {@code java.jtrace.Tracker}, because that is the one name space every class
 * loader hands to the boot loader: the inserted call resolves whatever loader defined
 * JUnit. It reaches JUnit's classes only by reflection, never prints, and never throws:
 * nothing here can change a test's outcome.
 */
public final class TestMarks {
    private TestMarks() {}

    /** The agent's {@code java.jtrace.Tracker.control(String)}, or null without the agent. */
    private static volatile Method control;

    /** Per-trace options to start the trace with at the first test ({@code --tests-only}). */
    private static volatile String startOptions;

    /** The JUnit Platform listener marks the tests of this JVM. */
    private static volatile boolean platform;

    /** Per thread: the open test's depth ({@code int[1]}). (No nested class, no lambda:
     * only this one class is defined in the boot loader.) */
    private static final ThreadLocal<int[]> DEPTH = new ThreadLocal<>();

    /** Per thread: the first failure of the open test. */
    private static final ThreadLocal<Throwable> FAILURE = new ThreadLocal<>();

    private static int[] depth() {
        int[] d = DEPTH.get();
        if (d == null) {
            d = new int[1];
            DEPTH.set(d);
        }
        return d;
    }

    /**
     * Called once by jtrace-record.jar's premain: with {@code options} non-null, the first
     * test starts the trace with them if none runs yet (the agent was loaded idle).
     */
    public static void arm(String options) {
        startOptions = options;
    }

    /** Called by the JUnit Platform listener (jtrace.jar): it marks the tests from now on. */
    public static void platform() {
        platform = true;
    }

    /** A test starts: {@code TestResult.startTest(Test)}, {@code RunNotifier.fireTestStarted(Description)}. */
    public static void start(Object test) {
        if (platform) {
            return;
        }
        try {
            if (depth()[0]++ > 0) {
                return;
            }
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

    /** A test ends: {@code TestResult.endTest(Test)}, {@code RunNotifier.fireTestFinished(Description)}. */
    public static void end(Object test) {
        if (platform) {
            return;
        }
        try {
            int[] d = depth();
            if (d[0] == 0 || --d[0] > 0) {
                return;
            }
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

    /** {@code RunNotifier.fireTestFailure(Failure)} and {@code fireTestAssumptionFailed(Failure)}. */
    public static void failure(Object failure) {
        if (platform || failure == null) {
            return;
        }
        try {
            Method m = publicMethod(failure.getClass(), "getException");
            failed(null, m == null ? null : m.invoke(failure));
        } catch (Throwable e) {
            // Never let tracing change a test's outcome.
        }
    }

    /** {@code RunNotifier.fireTestIgnored(Description)}: a test that never ran. */
    public static void ignored(Object description) {
        if (platform) {
            return;
        }
        try {
            if (depth()[0] == 0) {
                mark(description, "skipped", "SKIPPED", "");
            }
        } catch (Throwable e) {
            // Never let tracing change a test's outcome.
        }
    }

    /**
     * Class and method of a test: a JUnit 4 {@code Description}, a {@code Describable}
     * ({@code JUnit4TestCaseFacade}) or a JUnit 3 {@code TestCase}.
     */
    private static void mark(Object test, String event, String outcome, String exception)
            throws ReflectiveOperationException {
        if (test == null) {
            return;
        }
        Object d = test;
        Method describe = publicMethod(test.getClass(), "getDescription");
        if (describe != null) {
            d = describe.invoke(test);
        }
        String cls = test.getClass().getName();
        String method = "";
        Method c = d == null ? null : publicMethod(d.getClass(), "getClassName");
        Method m = d == null ? null : publicMethod(d.getClass(), "getMethodName");
        if (c != null && m != null) {
            Object cn = c.invoke(d);
            Object mn = m.invoke(d);
            cls = cn == null ? "" : cn.toString();
            method = mn == null ? "" : mn.toString();
        } else {
            Method name = publicMethod(test.getClass(), "getName");
            Object n = name == null ? null : name.invoke(test);
            method = n == null ? "" : n.toString();
        }
        String display = method.isEmpty() ? String.valueOf(d) : method;
        // The id the JUnit Platform's vintage engine gives the same test, so that
        // `jtrace diff --by-test` pairs an Ant or surefire run with a Platform run.
        String id = "[engine:junit-vintage]/[runner:" + cls + "]/[test:"
                + (method.isEmpty() ? display : method + "(" + cls + ")") + "]";
        StringBuilder b = new StringBuilder("jtrace-control=tag\ntest");
        String[] kv = {
            "event", event,
            "id", id,
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
