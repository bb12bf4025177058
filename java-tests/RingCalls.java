// The ring (ring=1m, dump-on=exit): far more is recorded than the ring holds, so the
// trace written at exit holds only the newest records: every call of the last phase,
// exactly, and none of the first phase's (their entries were cut; their exits, and the
// exit of main() entered before the cut, are left out). Contended monitors, waits and
// a collection happen before the cut too; the trace stays valid.
// jtrace-options: ring=1m,dump-on=exit,waits=off
// jtrace-compare-modes: no

public class RingCalls {
    static final int EARLY = 400_000;
    static final int MIDDLE = 80_000;
    static final int LATE = 1_000;
    static int sink;
    static final Object LOCK = new Object();

    public static void main(String[] args) throws Exception {
        contend();
        System.gc();
        // Two 13-byte records per call: ten times what the ring holds.
        for (int i = 0; i < EARLY; i++) {
            early(i);
        }
        // Twice what the ring holds, between: the early calls are surely cut.
        for (int i = 0; i < MIDDLE; i++) {
            middle(i);
        }
        int lateCalls = 0;
        for (int i = 0; i < LATE; i++) {
            lateCalls += late(i);
        }
        System.out.println("EXPECT calls RingCalls.early 0");
        System.out.println("EXPECT calls RingCalls.late " + LATE);
        System.out.println("EXPECT calls RingCalls.leaf " + lateCalls);
        System.out.println("EXPECT end-count-at-least ringCutRecords " + 2 * EARLY);
        System.out.println("EXPECT end-count ringBytes " + (1 << 20));
    }

    static void early(int i) {
        sink += i;
    }

    static void middle(int i) {
        sink -= i;
    }

    /** Calls leaf() i % 3 times; returns the calls it made (itself included). */
    static int late(int i) {
        int n = 0;
        for (int k = 0; k < i % 3; k++) {
            leaf(k);
            n++;
        }
        return n;
    }

    static void leaf(int k) {
        sink += k;
    }

    /** Two threads contend for LOCK and one waits on it. */
    static void contend() throws Exception {
        Thread other;
        synchronized (LOCK) {
            other = new Thread(() -> {
                synchronized (LOCK) {
                    LOCK.notifyAll();
                }
            }, "ring-other");
            other.start();
            LOCK.wait(2000);
        }
        other.join();
    }
}
