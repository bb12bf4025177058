// The spool behind the XML renderer, forced to spill (JTRACE_SPOOL_BYTES=0 keeps one
// message in memory and writes every other to the spill file beside the trace): four
// threads make enough records for hundreds of chunks, with exceptions thrown and caught
// and threads ending while others still run. Every call is counted exactly, the
// document is the one the .jtr renders to, and the spill file is gone at the end.
// jtrace-env: JTRACE_SPOOL_BYTES=0
// jtrace-compare-modes: no

import java.util.concurrent.atomic.AtomicInteger;

public class SpoolSpill {
    static final int THREADS = 4;
    static final AtomicInteger fibCalls = new AtomicInteger();
    static final AtomicInteger failCalls = new AtomicInteger();
    static final AtomicInteger caught = new AtomicInteger();

    static int fib(int n) {
        fibCalls.incrementAndGet();
        return n < 2 ? n : fib(n - 1) + fib(n - 2);
    }

    static void fail(int i) {
        failCalls.incrementAndGet();
        throw new IllegalStateException("spill " + i);
    }

    static void work(int rounds) {
        for (int i = 0; i < rounds; i++) {
            fib(12);
            try {
                fail(i);
            } catch (IllegalStateException e) {
                caught.incrementAndGet();
            }
        }
    }

    public static void main(String[] args) throws InterruptedException {
        Thread[] threads = new Thread[THREADS];
        for (int t = 0; t < THREADS; t++) {
            final int rounds = 200 * (t + 1);
            threads[t] = new Thread(() -> work(rounds), "spill-" + t);
            threads[t].start();
        }
        for (Thread t : threads) {
            t.join();
        }
        System.out.println("EXPECT calls SpoolSpill.fib " + fibCalls.get());
        System.out.println("EXPECT calls SpoolSpill.fail " + failCalls.get());
        System.out.println("EXPECT exception-exits SpoolSpill.fail " + failCalls.get());
        System.out.println("EXPECT catches SpoolSpill.work " + caught.get());
        System.out.println("EXPECT threads-named spill- " + THREADS);
    }
}
