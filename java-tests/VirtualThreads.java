// Virtual threads (JDK 21+): 10,000 virtual threads named vt-0 .. vt-9999, each running a
// traced method once. Each is a thread of its own in the trace (threadStart/threadEnd with
// its name) and its method events carry its own id, not its carrier's. The JDK 21 API is
// called reflectively so the file compiles on JDK 17 too (the harness skips it there).
// jtrace-min-jdk: 21

import java.lang.reflect.Method;
import java.util.concurrent.atomic.AtomicInteger;

public class VirtualThreads {
    static final int N = 10_000;
    static final AtomicInteger calls = new AtomicInteger();

    static void work() {
        calls.incrementAndGet();
    }

    static class Task implements Runnable {
        @Override
        public void run() {
            work();
        }
    }

    public static void main(String[] args) throws Exception {
        Class<?> builderType = Class.forName("java.lang.Thread$Builder");
        Object builder = Thread.class.getMethod("ofVirtual").invoke(null);
        builder = builderType.getMethod("name", String.class, long.class).invoke(builder, "vt-", 0L);
        Method start = builderType.getMethod("start", Runnable.class);
        Runnable task = new Task();
        Thread[] threads = new Thread[N];
        for (int i = 0; i < N; i++) {
            threads[i] = (Thread) start.invoke(builder, task);
        }
        for (Thread t : threads) {
            t.join();
        }
        System.out.println("EXPECT calls VirtualThreads.work " + calls.get());
        System.out.println("EXPECT threads-named vt- " + N);
        System.out.println("EXPECT each-thread-calls vt- VirtualThreads.work 1");
        System.out.println("EXPECT each-thread-calls vt- VirtualThreads$Task.run 1");
        // Carriers run the virtual threads' code but none of it is theirs.
        System.out.println("EXPECT prefix-calls ForkJoinPool VirtualThreads.work 0");
        System.out.println("EXPECT thread-calls main VirtualThreads.work 0");
        System.out.println("EXPECT exit-code 0");
    }
}
