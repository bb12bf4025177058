// SIGTERM to a busy JVM: four threads call traced methods in a tight loop when the
// signal comes. A shutdown hook stops and joins them and only then prints the counts,
// so they are exact; the agent closes the document after the hooks (VMDeath).
// jtrace-signal: TERM
// jtrace-expect-exit: 143
// jtrace-compare-modes: no
// jtrace-stdout: FIGURE *
// jtrace-timeout: 120

import java.util.concurrent.CountDownLatch;

public class StressSigterm {
    static final int THREADS = 4;
    static final long[] calls = new long[THREADS];
    static volatile boolean stop;
    static final CountDownLatch running = new CountDownLatch(THREADS);

    static long work(int i, long x) {
        calls[i]++;
        return x * 31 + i;
    }

    public static void main(String[] args) throws InterruptedException {
        Thread[] threads = new Thread[THREADS];
        for (int i = 0; i < THREADS; i++) {
            final int me = i;
            threads[i] = new Thread(() -> {
                long x = 0;
                running.countDown();
                while (!stop) {
                    x = work(me, x);
                    // Untraced work between calls (about 10 us) keeps the trace to
                    // tens of MB per second.
                    for (int k = 0; k < 10_000; k++) {
                        x ^= (x << 1) + k;
                    }
                }
                if (x == 42) {
                    System.out.println("unlikely");
                }
            }, "busy-" + i);
            threads[i].start();
        }
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            stop = true;
            long total = 0;
            for (Thread t : threads) {
                try {
                    t.join();
                } catch (InterruptedException e) {
                    throw new AssertionError(e);
                }
            }
            for (int i = 0; i < THREADS; i++) {
                System.out.println("EXPECT thread-calls busy-" + i + " StressSigterm.work " + calls[i]);
                total += calls[i];
            }
            System.out.println("EXPECT calls StressSigterm.work " + total);
            System.out.println("EXPECT exits StressSigterm.work " + total);
            System.out.println("EXPECT exit-code 143");
            System.out.println("FIGURE busy-threads=" + THREADS + " calls=" + total);
            System.out.flush();
        }, "hook"));
        running.await();
        // Busy for a while before the signal: the writer is behind when it comes.
        Thread.sleep(1000);
        System.out.println("READY");
        System.out.flush();
        Thread.sleep(120_000);
    }
}
