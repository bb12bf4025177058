// System.exit(7) from a worker while 8 threads sit 2,000 frames deep in traced
// recursion, spinning (busy, not parked) at the bottom: the document must be closed
// (their frames stay open; their threads end after runtimeShutdown) and every entry
// counted.
// jtrace-expect-exit: 7
// jtrace-compare-modes: no
// jtrace-stdout: FIGURE *
// jtrace-timeout: 120

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

public class StressExitDeep {
    static final int THREADS = 8;
    static final int DEPTH = 2000;
    static final AtomicInteger calls = new AtomicInteger();
    static final CountDownLatch atBottom = new CountDownLatch(THREADS);
    static volatile boolean never;

    static void down(int n) {
        calls.incrementAndGet();
        if (n > 1) {
            down(n - 1);
            return;
        }
        atBottom.countDown();
        while (!never) {
            Thread.onSpinWait();
        }
    }

    static void exitNow() {
        int c = calls.get();
        System.out.println("EXPECT calls StressExitDeep.down " + c);
        System.out.println("EXPECT exits StressExitDeep.down 0");
        System.out.println("EXPECT calls StressExitDeep.exitNow 1");
        System.out.println("EXPECT threads-named deep- " + THREADS);
        System.out.println("EXPECT exit-code 7");
        System.out.println("FIGURE threads=" + THREADS + " open-frames=" + c);
        System.out.flush();
        System.exit(7);
    }

    public static void main(String[] args) throws InterruptedException {
        for (int i = 0; i < THREADS; i++) {
            new Thread(() -> down(DEPTH), "deep-" + i).start();
        }
        atBottom.await();
        Thread exiter = new Thread(StressExitDeep::exitNow, "exiter");
        exiter.start();
        exiter.join();
        throw new AssertionError("System.exit returned");
    }
}
