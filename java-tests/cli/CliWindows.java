// The program `cargo xtask test` traces to test time windows read through the `.jtr`
// index (xtask/src/steps/cli_tests.rs, `windows`): several threads recursing, throwing and
// catching, waiting on and contending for monitors, long enough for many record chunks
// per thread, so that windows start and end with frames, waits and exceptions open.
// Prints EXPECT lines (exact call counts per method).
// jtrace-options: waits=off
// jtrace-stdout: EXPECT *
// jtrace-compare-modes: no
// jtrace-timeout: 120
public class CliWindows {
    static final int ROUNDS = 40;
    static final int THREADS = 3;
    static final Object LOCK = new Object();
    static long sink;

    static int down(int n) {
        if (n == 0) {
            return 1;
        }
        if (n == 7) {
            try {
                thrower(n);
            } catch (IllegalStateException e) {
                sink++;
            }
        }
        return down(n - 1) + leaf(n);
    }

    static int leaf(int n) {
        return n * 3;
    }

    static void thrower(int n) {
        throw new IllegalStateException("at " + n);
    }

    static void waitABit() throws InterruptedException {
        synchronized (LOCK) {
            LOCK.wait(1);
        }
    }

    static void contend() {
        synchronized (LOCK) {
            sink += leaf(2);
        }
    }

    static void work() {
        try {
            for (int r = 0; r < ROUNDS; r++) {
                for (int i = 0; i < 5; i++) {
                    sink += down(30);
                }
                if (r % 10 == 0) {
                    waitABit();
                }
                contend();
            }
        } catch (InterruptedException e) {
            throw new RuntimeException(e);
        }
    }

    public static void main(String[] args) throws Exception {
        Thread[] ts = new Thread[THREADS];
        for (int i = 0; i < THREADS; i++) {
            ts[i] = new Thread(CliWindows::work, "window-worker-" + i);
            ts[i].start();
        }
        work();
        for (Thread t : ts) {
            t.join();
        }
        int runs = ROUNDS * (THREADS + 1);
        System.out.println("EXPECT calls CliWindows.work " + (THREADS + 1));
        System.out.println("EXPECT calls CliWindows.down " + runs * 5 * 31);
        System.out.println("EXPECT calls CliWindows.thrower " + runs * 5);
        System.out.println("EXPECT calls CliWindows.contend " + runs);
        System.out.println("EXPECT calls CliWindows.waitABit " + runs / 10);
    }
}
