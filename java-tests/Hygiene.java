// Work for every event family (threads, calls, exceptions, allocations, monitors, waits, a
// collection), so that `cargo xtask test`'s hygiene step (xtask/src/steps/hygiene.rs) sees the agent
// do everything it does while it checks that the trace honours the umask, that the agent opens
// no socket, and that it creates or writes no file but `out`. As a test case of its own it
// checks its counts. With the argument `socket` it opens a TCP socket: the hygiene step's proof
// that its socket trap works.
// jtrace-options: alloc=exact,lines=on

public class Hygiene {
    static final Object lock = new Object();
    // Both threads call work(): an atomic counter, not a racy int.
    static final java.util.concurrent.atomic.AtomicInteger calls = new java.util.concurrent.atomic.AtomicInteger();
    static Object sink;

    static int work(int n) {
        calls.incrementAndGet();
        sink = new int[n + 1];
        try {
            if (n % 2 == 0) {
                throw new IllegalStateException("even"); // not a failure: caught below
            }
        } catch (IllegalStateException e) {
            sink = e;
        }
        return n;
    }

    public static void main(String[] args) throws Exception {
        if (args.length > 0 && args[0].equals("socket")) {
            java.nio.channels.SocketChannel.open().close();
        }
        Thread t = new Thread(() -> {
            synchronized (lock) {
                for (int i = 0; i < 10; i++) {
                    work(i);
                }
                try {
                    lock.wait(20);
                } catch (InterruptedException e) {
                    throw new AssertionError(e);
                }
            }
        }, "hygiene-worker");
        t.start();
        for (int i = 0; i < 10; i++) {
            work(i);
        }
        t.join();
        System.gc();
        System.out.println("EXPECT calls Hygiene.work " + calls.get());
        System.out.println("EXPECT thread-calls hygiene-worker Hygiene.work 10");
        System.out.println("EXPECT catches Hygiene.work 10");
        System.out.println("EXPECT allocs - 10 " + calls.get());
        System.out.println("EXPECT waits hygiene-worker 1");
        System.out.println("EXPECT gc-at-least 1");
        System.out.println("EXPECT exit-code 0");
    }
}
