// An exception nobody catches, thrown 500 traced frames deep in main while two daemon
// threads spin 300 frames deep: exit code 1, and the document is closed with every
// frame of main left by the exception.
// jtrace-expect-exit: 1
// jtrace-expect-stderr: Exception in thread "main" java.lang.IllegalStateException: stress
// jtrace-compare-modes: no
// jtrace-stdout: FIGURE *
// jtrace-timeout: 120

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

public class StressUncaught {
    static final int DEPTH = 500;
    static final int SPIN_DEPTH = 300;
    static final AtomicInteger spinCalls = new AtomicInteger();
    static final CountDownLatch spinning = new CountDownLatch(2);
    static volatile boolean never;
    static int fallCalls;

    static void spin(int n) {
        spinCalls.incrementAndGet();
        if (n > 1) {
            spin(n - 1);
            return;
        }
        spinning.countDown();
        while (!never) {
            Thread.onSpinWait();
        }
    }

    static void fall(int n) {
        fallCalls++;
        if (n > 1) {
            fall(n - 1);
            return;
        }
        System.out.println("EXPECT calls StressUncaught.fall " + fallCalls);
        System.out.println("EXPECT exception-exits StressUncaught.fall " + fallCalls);
        System.out.println("EXPECT calls StressUncaught.spin " + spinCalls.get());
        System.out.println("EXPECT exits StressUncaught.spin 0");
        // One throw element per traced frame the exception passes (TRACE_FORMAT.md).
        System.out.println("EXPECT throws StressUncaught.fall " + fallCalls);
        System.out.println("EXPECT throws StressUncaught.main 1");
        System.out.println("EXPECT exit-code 1");
        System.out.println("FIGURE unwound-frames=" + fallCalls + " open-frames=" + spinCalls.get());
        System.out.flush();
        throw new IllegalStateException("stress");
    }

    public static void main(String[] args) throws InterruptedException {
        for (int i = 0; i < 2; i++) {
            Thread t = new Thread(() -> spin(SPIN_DEPTH), "spin-" + i);
            t.setDaemon(true);
            t.start();
        }
        spinning.await();
        fall(DEPTH);
    }
}
