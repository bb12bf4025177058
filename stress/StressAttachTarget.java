// The target of 20 attaches in a row: two threads stay busy in traced calls while
// the stress runner loads the agent again and again with jcmd (same and different
// out). The first load must trace; every later one must be refused with a message,
// and the JVM must run on. Phase2 is loaded only after the first agent is in, so its
// calls are all traced; the runner creates the file `stop` in the working directory
// when it is done, and then the counts are printed.
// jtrace-stdout: PHASE2
// jtrace-stdout: FIGURE *
// jtrace-timeout: 300

import java.io.File;
import java.util.concurrent.atomic.AtomicLong;

public class StressAttachTarget {
    static volatile boolean stop;

    static boolean agentIn() {
        try {
            Class.forName("java.jtrace.Tracker", false, null);
            return true;
        } catch (ClassNotFoundException e) {
            return false;
        }
    }

    static class Phase2 {
        static final AtomicLong calls = new AtomicLong();

        static long work(long x) {
            calls.incrementAndGet();
            return x * 31 + 1;
        }

        static void busy() {
            long x = 0;
            while (!stop) {
                x = work(x);
                for (int k = 0; k < 400_000; k++) {
                    x ^= (x << 1) + k;
                }
            }
            if (x == 42) {
                System.out.println("unlikely");
            }
        }
    }

    public static void main(String[] args) throws Exception {
        System.out.println("READY");
        System.out.flush();
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (!agentIn()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("the agent never attached");
            }
            Thread.sleep(10);
        }
        // The attach finishes in the JVM's attach thread (retransforming what is loaded).
        Thread.sleep(500);
        Thread[] busy = new Thread[2];
        for (int i = 0; i < busy.length; i++) {
            busy[i] = new Thread(Phase2::busy, "busy-" + i);
            busy[i].start();
        }
        System.out.println("PHASE2");
        System.out.flush();
        File stopFile = new File("stop");
        deadline = System.nanoTime() + 240_000_000_000L;
        while (!stopFile.exists() && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        stop = true;
        for (Thread t : busy) {
            t.join();
        }
        System.out.println("EXPECT calls StressAttachTarget$Phase2.work " + Phase2.calls.get());
        System.out.println("EXPECT exits StressAttachTarget$Phase2.work " + Phase2.calls.get());
        System.out.println("EXPECT exit-code 0");
        System.out.println("FIGURE phase2-calls=" + Phase2.calls.get());
    }
}
