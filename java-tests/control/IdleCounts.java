// counts=all between traces, for `cargo xtask test` step control:idle-counts. The agent
// loads idle (start=off). Before each of two traces, work() is called while idle by
// THREADS long threads (CALLS calls each), SHORT short-lived threads (FEW each, so that
// ended threads' slots are reused and their counts folded), and, where the JDK has
// them (21+, found by reflection), VIRTUAL virtual threads (FEW each); before trace 2
// main calls it CALLS times too. Each trace records TRACED calls. Prints the exact
// methodCount of work each trace must show (its own count of every call so far),
// then whether each start and stop took effect.
import java.lang.reflect.Method;

public class IdleCounts {
    static final int THREADS = 8;
    static final int CALLS = 200_000;
    static final int SHORT = 300;
    static final int VIRTUAL = 200;
    static final int FEW = 1_000;
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

    static void joinAll(Thread[] ts) throws InterruptedException {
        for (Thread t : ts) {
            t.join();
        }
    }

    /** The idle calls of one round; returns how many were made. */
    static long idleRound() throws Exception {
        long made = 0;
        Thread[] ts = new Thread[THREADS];
        for (int t = 0; t < THREADS; t++) {
            ts[t] = new Thread(() -> calls(CALLS));
            ts[t].start();
        }
        joinAll(ts);
        made += (long) THREADS * CALLS;
        for (int b = 0; b < SHORT / 10; b++) {
            Thread[] few = new Thread[10];
            for (int t = 0; t < few.length; t++) {
                few[t] = new Thread(() -> calls(FEW));
                few[t].start();
            }
            joinAll(few);
            made += 10L * FEW;
        }
        Method start;
        try {
            start = Thread.class.getMethod("startVirtualThread", Runnable.class);
        } catch (NoSuchMethodException e) {
            return made;
        }
        Thread[] vs = new Thread[VIRTUAL];
        for (int t = 0; t < VIRTUAL; t++) {
            vs[t] = (Thread) start.invoke(null, (Runnable) () -> calls(FEW));
        }
        joinAll(vs);
        return made + (long) VIRTUAL * FEW;
    }

    public static void main(String[] args) throws Exception {
        long total = idleRound();
        boolean s1 = jtrace.Trace.start("out=" + args[0] + "/idle-1.xml");
        calls(TRACED);
        boolean e1 = jtrace.Trace.stop();
        long one = total + TRACED;
        total = one + idleRound();
        calls(CALLS);
        boolean s2 = jtrace.Trace.start("out=" + args[0] + "/idle-2.xml");
        calls(TRACED);
        boolean e2 = jtrace.Trace.stop();
        long two = total + CALLS + TRACED;
        System.out.println(one + " " + two + " " + s1 + " " + e1 + " " + s2 + " " + e2);
    }
}
