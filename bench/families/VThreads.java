package families;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Virtual-thread family (JDK 21+): many short virtual threads, each calling one traced
 * method and yielding once (one unmount/mount), started and joined in groups of 1000.
 *
 * Usage: java families.VThreads N (N groups of 1000 virtual threads)
 * Prints: loop_ns=..., ops=... (virtual threads run), check=...
 */
public final class VThreads {
    static final int GROUP = 1000;
    static final AtomicLong SUM = new AtomicLong();

    static void work(final int i) {
        SUM.addAndGet(i);
        Thread.yield();
        SUM.addAndGet(1);
    }

    public static void main(final String[] args) throws InterruptedException {
        final int n = Integer.parseInt(args[0]);
        final long t0 = System.nanoTime();
        for (int g = 0; g < n; g++) {
            final List<Thread> group = new ArrayList<>(GROUP);
            for (int i = 0; i < GROUP; i++) {
                final int v = i;
                group.add(Thread.ofVirtual().start(() -> work(v)));
            }
            for (final Thread t : group) {
                t.join();
            }
        }
        final long t1 = System.nanoTime();
        System.out.println("loop_ns=" + (t1 - t0));
        System.out.println("ops=" + (long) n * GROUP);
        System.out.println("check=" + SUM.get());
    }
}
