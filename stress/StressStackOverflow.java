// Unbounded traced recursion until StackOverflowError, caught, then ordinary calls:
// every entry of down() is counted inside the method and every one of them must be
// closed by the unwind (exception exits); the calls after the catch nest exactly at
// depth 2 under main. Twice, because the second overflow starts from a stack whose
// guard pages were just used. Depths beyond 32,767 are expected (see the stress
// suite's known failure about stackDepth).
// jtrace-compare-modes: no
// jtrace-stdout: FIGURE *
// jtrace-timeout: 180

public class StressStackOverflow {
    static int downCalls;
    static int afterCalls;

    static void down() {
        downCalls++;
        down();
    }

    static int after(int x) {
        afterCalls++;
        return x + 1;
    }

    public static void main(String[] args) {
        int deepest = 0;
        for (int round = 0; round < 2; round++) {
            int before = downCalls;
            try {
                down();
                throw new AssertionError("unbounded recursion returned");
            } catch (StackOverflowError e) {
                deepest = Math.max(deepest, downCalls - before);
            }
            int s = 0;
            for (int i = 0; i < 1000; i++) {
                s = after(s);
            }
            if (s != 1000) {
                throw new AssertionError(s);
            }
        }
        System.out.println("EXPECT calls StressStackOverflow.down " + downCalls);
        System.out.println("EXPECT exits StressStackOverflow.down " + downCalls);
        System.out.println("EXPECT exception-exits StressStackOverflow.down " + downCalls);
        System.out.println("EXPECT calls StressStackOverflow.after " + afterCalls);
        System.out.println("EXPECT exits StressStackOverflow.after " + afterCalls);
        // main is frame 1, so after() is always frame 2.
        System.out.println("EXPECT max-depth StressStackOverflow.after 2");
        System.out.println("EXPECT max-depth StressStackOverflow.down " + (deepest + 1));
        System.out.println("EXPECT exit-code 0");
        System.out.println("FIGURE deepest=" + deepest + " down-calls=" + downCalls
                + " after-calls=" + afterCalls);
    }
}
