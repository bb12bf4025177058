// An exception escapes main: exit code 1, and the trace is still complete.
// jtrace-expect-exit: 1
// jtrace-expect-stderr: IllegalArgumentException: escaped

public class UncaughtInMain {
    static int outerCalls, innerCalls;

    static void inner() {
        innerCalls++;
        throw new IllegalArgumentException("escaped");
    }

    static void outer() {
        outerCalls++;
        inner();
    }

    public static void main(String[] args) {
        // Printed before the throw: each frame is entered once and left by the exception.
        System.out.println("EXPECT calls UncaughtInMain.outer " + (outerCalls + 1));
        System.out.println("EXPECT calls UncaughtInMain.inner " + (innerCalls + 1));
        System.out.println("EXPECT exits UncaughtInMain.inner 1");
        System.out.println("EXPECT exits UncaughtInMain.outer 1");
        System.out.println("EXPECT exits UncaughtInMain.main 1");
        System.out.println("EXPECT exception-exits UncaughtInMain.inner 1");
        System.out.println("EXPECT exception-exits UncaughtInMain.outer 1");
        System.out.println("EXPECT exception-exits UncaughtInMain.main 1");
        System.out.println("EXPECT exit-code 1");
        System.out.flush();
        outer();
    }
}
