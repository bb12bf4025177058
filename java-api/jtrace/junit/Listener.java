// Marks every JUnit Platform test in the jtrace trace: start, end, unique id, display name, outcome.
package jtrace.junit;

import java.util.Optional;
import jtrace.Trace;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.TestSource;
import org.junit.platform.engine.support.descriptor.MethodSource;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;

/**
 * A JUnit Platform listener, registered through {@code ServiceLoader}
 * ({@code META-INF/services/org.junit.platform.launcher.TestExecutionListener}), so that
 * putting {@code jtrace.jar} on the test class path (or running under {@code jtrace record})
 * is all it takes. For every test (Jupiter, Vintage for JUnit 4, any engine) it writes a
 * {@code test} tag when the test starts and when it ends, on the thread that runs it; see
 * docs/TRACE_FORMAT.md. Without the agent every call is a no-op.
 */
public final class Listener implements TestExecutionListener {
    private static final boolean ON = Trace.available();

    public Listener() {
        // Under jtrace record, JUnit 4's RunNotifier and JUnit 3's TestResult are patched to
        // mark tests too (java.jtrace.TestMarks); here this listener marks them, once.
        try {
            Class.forName("java.jtrace.TestMarks", true, null).getMethod("platform").invoke(null);
        } catch (Throwable e) {
            // Not under jtrace record: nothing else marks tests.
        }
    }

    @Override
    public void executionStarted(TestIdentifier t) {
        if (ON && t.isTest()) {
            mark(t, "start", null, null);
        }
    }

    @Override
    public void executionFinished(TestIdentifier t, TestExecutionResult r) {
        if (ON && t.isTest()) {
            Optional<Throwable> e = r.getThrowable();
            mark(t, "end", r.getStatus().name(), e.map(x -> x.getClass().getName()).orElse(null));
        }
    }

    @Override
    public void executionSkipped(TestIdentifier t, String reason) {
        if (ON && t.isTest()) {
            mark(t, "skipped", "SKIPPED", null);
        }
    }

    private static void mark(TestIdentifier t, String event, String outcome, String exception) {
        String cls = "";
        String method = "";
        Optional<TestSource> s = t.getSource();
        if (s.isPresent() && s.get() instanceof MethodSource) {
            MethodSource m = (MethodSource) s.get();
            cls = m.getClassName();
            method = m.getMethodName();
        }
        try {
            Trace.tag(
                    "test",
                    "event", event,
                    "id", t.getUniqueId(),
                    "name", t.getDisplayName(),
                    "class", cls,
                    "method", method,
                    "outcome", outcome == null ? "" : outcome,
                    "exception", exception == null ? "" : exception);
        } catch (RuntimeException e) {
            // Never let tracing change a test's outcome.
        }
    }
}
