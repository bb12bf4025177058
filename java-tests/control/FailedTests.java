// keep=failed (issue 39): tests marked as the JUnit listener marks them (jtrace.Trace.tag
// "test" with event start/end and outcome), some failing; only the failing tests' calls
// are written, each test's window with exactly the calls the program counted; the calls
// around the tests (the "engine" frames entered before a start mark and left after it)
// are not. Prints, per failing test in order, "FAILED id calls".
import jtrace.Trace;

public class FailedTests {
    static long sink;
    static int calls;

    static void work(int k) {
        calls++;
        sink += k;
    }

    /** A test body: n calls of work, and itself. */
    static void body(int n, boolean fails) {
        calls++;
        for (int k = 0; k < n; k++) {
            work(k);
        }
        if (fails) {
            throw new AssertionError("expected failure");
        }
    }

    /** Stands for the test engine: entered before the start mark, left after the end. */
    static void engine(String id, int n, boolean fails) {
        Trace.tag("test", "event", "start", "id", id, "name", id, "class", "FailedTests",
                "method", id, "outcome", "", "exception", "");
        calls = 0;
        String outcome = "SUCCESSFUL";
        try {
            body(n, fails);
        } catch (AssertionError e) {
            outcome = "FAILED";
        }
        int mine = calls;
        Trace.tag("test", "event", "end", "id", id, "name", id, "class", "FailedTests",
                "method", id, "outcome", outcome, "exception", fails ? "java.lang.AssertionError" : "");
        if (fails) {
            System.out.println("FAILED " + id + " " + mine);
        }
    }

    public static void main(String[] args) {
        for (int i = 0; i < 12; i++) {
            engine("t" + i, 3 + i, i % 4 == 1);
            work(-1);
        }
    }
}
