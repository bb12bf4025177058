// Hundreds of short threads that contend at start and exit (their ThreadGroup's
// monitor) while calling traced methods: every call is counted, the trace stays
// valid, and -Xcheck:jni stays quiet however many threads wait on one monitor.
// jtrace-compare-modes: no

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

public class ManyThreads {
    static final int THREADS = 400;
    static final AtomicInteger calls = new AtomicInteger();

    static int fib(int n) {
        calls.incrementAndGet();
        return n < 2 ? n : fib(n - 1) + fib(n - 2);
    }

    public static void main(String[] args) throws InterruptedException {
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < THREADS; i++) {
            Thread t = new Thread(() -> fib(10), "many-" + i);
            threads.add(t);
            t.start();
        }
        for (Thread t : threads) {
            t.join();
        }
        System.out.println("EXPECT calls ManyThreads.fib " + calls.get());
        System.out.println("EXPECT threads-named many- " + THREADS);
    }
}
