// counts=all between traces, for `cargo xtask test` step control:idle-counts. The agent
// loads idle (start=off); THREADS threads each call work() CALLS times and end; a trace
// records TRACED calls (trace 1); then THREADS more threads and main call work() CALLS
// times each, idle again, and trace 2 records TRACED calls. Exact methodCount of work:
// trace 1: THREADS*CALLS + TRACED; trace 2: 2*THREADS*CALLS + CALLS + 2*TRACED.
// Prints the two expected counts, then whether each start and stop took effect.
public class IdleCounts {
    static final int THREADS = 8;
    static final int CALLS = 200_000;
    static final int TRACED = 1_000;
    static volatile long sink;

    static int work(int i) {
        return (i * 31) ^ (i >>> 3);
    }

    static void calls(int n) {
        long s = 0;
        for (int i = 0; i < n; i++) {
            s += work(i);
        }
        sink += s;
    }

    static void idleThreads() throws InterruptedException {
        Thread[] ts = new Thread[THREADS];
        for (int t = 0; t < THREADS; t++) {
            ts[t] = new Thread(() -> calls(CALLS));
            ts[t].start();
        }
        for (Thread t : ts) {
            t.join();
        }
    }

    public static void main(String[] args) throws InterruptedException {
        idleThreads();
        boolean s1 = jtrace.Trace.start("out=" + args[0] + "/idle-1.xml");
        calls(TRACED);
        boolean e1 = jtrace.Trace.stop();
        idleThreads();
        calls(CALLS);
        boolean s2 = jtrace.Trace.start("out=" + args[0] + "/idle-2.xml");
        calls(TRACED);
        boolean e2 = jtrace.Trace.stop();
        long one = (long) THREADS * CALLS + TRACED;
        long two = 2L * THREADS * CALLS + CALLS + 2L * TRACED;
        System.out.println(one + " " + two + " " + s1 + " " + e1 + " " + s2 + " " + e2);
    }
}
