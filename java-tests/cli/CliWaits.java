// The program `cargo xtask test` traces (default filters: the JDK is not traced) to test
// that the JDK's blocking methods are probed anyway (waits=on, the default) and that
// `jtrace report` shows their time as waiting, apart from working
// (xtask/src/steps/cli_tests.rs). napper() sleeps, parker() parks on its own thread, busy()
// computes. Thread.sleep(long, int) is Java on every JDK (sleep(long) is native on
// JDK 17), so the sleeps are seen everywhere. Prints EXPECT lines (exact counts per
// thread) and TRUTH lines (counts, and the sleeps' lower bound it measured itself).
// jtrace-options: waits=on
// jtrace-stdout: TRUTH *
// jtrace-compare-modes: no
// jtrace-timeout: 120
import java.util.concurrent.locks.LockSupport;

public class CliWaits {
    static final int SLEEPS = 4;
    static final long SLEEP_MS = 25;
    static final int PARKS = 6;
    static final long PARK_NS = 10_000_000L;
    static long sink;

    static void napper() throws InterruptedException {
        for (int i = 0; i < SLEEPS; i++) {
            Thread.sleep(SLEEP_MS, 0);
        }
    }

    static void parker() {
        for (int i = 0; i < PARKS; i++) {
            LockSupport.parkNanos(PARK_NS);
        }
    }

    static void busy() {
        long x = 0;
        for (int i = 0; i < 20_000_000; i++) {
            x += (i * 31L) ^ (x >>> 3);
        }
        sink = x;
    }

    public static void main(String[] args) throws Exception {
        Thread t = new Thread(CliWaits::parker, "waits-parker");
        t.start();
        t.join();
        busy();
        napper();
        System.out.println("EXPECT thread-calls waits-parker CliWaits.parker 1");
        System.out.println("EXPECT thread-calls waits-parker java.util.concurrent.locks.LockSupport.parkNanos " + PARKS);
        System.out.println("EXPECT thread-calls main java.lang.Thread.sleep " + SLEEPS);
        System.out.println("EXPECT calls CliWaits.napper 1");
        System.out.println("TRUTH caller java.lang.Thread.sleep CliWaits.napper " + SLEEPS);
        System.out.println("TRUTH caller java.util.concurrent.locks.LockSupport.parkNanos CliWaits.parker " + PARKS);
        // Thread.sleep sleeps at least what it is asked (HotSpot loops until then).
        System.out.println("TRUTH slept-at-least CliWaits.napper " + SLEEPS * SLEEP_MS * 1_000_000L);
        System.out.println("TRUTH working CliWaits.busy");
        System.out.println("TRUTH sink " + (sink & 1));
    }
}
