// 10,000 virtual threads (JDK 21+), each inside a traced method when it blocks once on a
// gate that opens only after all of them have arrived, so every one of them unmounts
// from its carrier mid-frame and finishes, possibly on another carrier. Each must be a
// thread of its own with exactly one balanced call. JDK 21 API called reflectively so
// that the file compiles on JDK 17 too.
// jtrace-min-jdk: 21
// jtrace-compare-modes: no
// jtrace-stdout: FIGURE *
// jtrace-timeout: 180

import java.lang.reflect.Method;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

public class StressVirtual {
    static final int N = 10_000;
    static final AtomicInteger calls = new AtomicInteger();
    static final AtomicInteger blocked = new AtomicInteger();
    static final CountDownLatch arrived = new CountDownLatch(N);
    static final CountDownLatch gate = new CountDownLatch(1);

    static void task() throws InterruptedException {
        calls.incrementAndGet();
        arrived.countDown();
        // The gate is shut until all N have counted down: this blocks.
        if (gate.getCount() > 0) {
            blocked.incrementAndGet();
        }
        gate.await();
    }

    static class Task implements Runnable {
        @Override
        public void run() {
            try {
                task();
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
        }
    }

    public static void main(String[] args) throws Exception {
        Class<?> builderType = Class.forName("java.lang.Thread$Builder");
        Object builder = Thread.class.getMethod("ofVirtual").invoke(null);
        builder = builderType.getMethod("name", String.class, long.class).invoke(builder, "vt-", 0L);
        Method start = builderType.getMethod("start", Runnable.class);
        long t0 = System.nanoTime();
        Thread[] threads = new Thread[N];
        for (int i = 0; i < N; i++) {
            threads[i] = (Thread) start.invoke(builder, new Task());
        }
        arrived.await();
        gate.countDown();
        for (Thread t : threads) {
            t.join();
        }
        System.out.println("EXPECT calls StressVirtual.task " + calls.get());
        System.out.println("EXPECT exits StressVirtual.task " + calls.get());
        System.out.println("EXPECT threads-named vt- " + N);
        System.out.println("EXPECT each-thread-calls vt- StressVirtual.task 1");
        System.out.println("EXPECT prefix-calls ForkJoinPool StressVirtual.task 0");
        System.out.println("EXPECT exit-code 0");
        System.out.println("FIGURE virtual-threads=" + N + " blocked=" + blocked.get()
                + " ms=" + (System.nanoTime() - t0) / 1_000_000);
    }
}
