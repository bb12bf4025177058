// 1,000 platform threads released at once by one latch; thread st-i makes a number of
// traced calls that depends on i (nested two deep), counted inside the traced method.
// Every thread's own count must be exact and every thread balanced (tracecheck's
// nesting rule closes each thread's frames at its threadEnd). Under alloc=exact each
// thread's threadStart names the Thread object main allocated (its objAlloc is in main's
// buffer): tracecheck holds the 1,000 references to be defined before use.
// jtrace-options: alloc=exact
// jtrace-compare-modes: no
// jtrace-stdout: FIGURE *
// jtrace-timeout: 180

import java.util.concurrent.CountDownLatch;

public class StressThreads {
    static final int THREADS = 1000;
    static final int[] calls = new int[THREADS];

    static void step(int i, int depth) {
        calls[i]++;
        if (depth > 0) {
            step(i, depth - 1);
        }
    }

    public static void main(String[] args) throws InterruptedException {
        CountDownLatch go = new CountDownLatch(1);
        Thread[] threads = new Thread[THREADS];
        for (int i = 0; i < THREADS; i++) {
            final int me = i;
            threads[i] = new Thread(() -> {
                try {
                    go.await();
                } catch (InterruptedException e) {
                    throw new AssertionError(e);
                }
                for (int k = 0; k < 5 + me % 20; k++) {
                    step(me, me % 3);
                }
            }, "st-" + i);
            threads[i].start();
        }
        long t0 = System.nanoTime();
        go.countDown();
        for (Thread t : threads) {
            t.join();
        }
        long total = 0;
        for (int i = 0; i < THREADS; i++) {
            System.out.println("EXPECT thread-calls st-" + i + " StressThreads.step " + calls[i]);
            total += calls[i];
        }
        System.out.println("EXPECT calls StressThreads.step " + total);
        System.out.println("EXPECT exits StressThreads.step " + total);
        System.out.println("EXPECT threads-named st- " + THREADS);
        System.out.println("EXPECT allocs java.lang.Thread 0 " + THREADS);
        System.out.println("EXPECT allocs java.lang.Thread 2 1");
        System.out.println("EXPECT exit-code 0");
        System.out.println("FIGURE threads=" + THREADS + " calls=" + total
                + " ms=" + (System.nanoTime() - t0) / 1_000_000);
    }
}
