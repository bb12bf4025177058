// The ring with windows (window=, ring=2m, dump-on=exit): three threads serve 300
// requests each; the first 250 are large (about 50 KB of records each), the last 50
// small, and all of them come after every thread's large ones. The trace written at exit holds whole windows only, and the newest: each
// thread's last 50 windows with their exact calls and outcomes, none of the large ones
// that the ring cut, and the windows' counts of the whole run.
// jtrace-options: window=RingReq.handle,ring=2m,dump-on=exit,waits=off
// jtrace-compare-modes: no

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;

public class RingWindows {
    static final int WORKERS = 3;
    static final int REQUESTS = 300;
    static final int SMALL = 50;

    public static void main(String[] args) throws Exception {
        List<List<String>> done = new ArrayList<>();
        Thread[] ts = new Thread[WORKERS];
        for (int w = 0; w < WORKERS; w++) {
            List<String> mine = new ArrayList<>();
            done.add(mine);
            final int worker = w;
            ts[w] = new Thread(() -> work(worker, mine), "ring-req-" + w);
            ts[w].start();
        }
        for (Thread t : ts) {
            t.join();
        }
        for (int w = 0; w < WORKERS; w++) {
            List<String> mine = done.get(w);
            String tail = String.join(",", mine.subList(mine.size() - SMALL, mine.size()));
            System.out.println("EXPECT windows-tail ring-req-" + w + " " + tail);
            System.out.println("EXPECT windows-at-most ring-req-" + w + " " + (SMALL + 45));
        }
        System.out.println("EXPECT end-count windowsSeen " + WORKERS * REQUESTS);
        System.out.println("EXPECT end-count windowsKept " + WORKERS * REQUESTS);
        System.out.println("EXPECT calls RingReq.between 0");
    }

    /** Every thread's small requests come after every thread's large ones. */
    static final CyclicBarrier LAST = new CyclicBarrier(WORKERS);

    static void work(int w, List<String> out) {
        for (int i = 0; i < REQUESTS; i++) {
            if (i == REQUESTS - SMALL) {
                try {
                    LAST.await();
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }
            RingReq r = new RingReq(i < REQUESTS - SMALL ? 2_000 : 3 + (i + w) % 5, i % 7 == 3);
            boolean threw = false;
            try {
                RingReq.handle(r);
            } catch (IllegalStateException e) {
                threw = true;
            }
            out.add(r.calls + ":" + (threw ? "threw" : "returned"));
            RingReq.between();
        }
    }
}

class RingReq {
    final int steps;
    final boolean fails;
    int calls;
    static int sink;

    RingReq(int steps, boolean fails) {
        this.steps = steps;
        this.fails = fails;
    }

    static void handle(RingReq r) {
        r.calls++;
        for (int k = 0; k < r.steps; k++) {
            step(r, k);
        }
        if (r.fails) {
            r.calls++;
            fail();
        }
    }

    static void step(RingReq r, int k) {
        r.calls++;
        sink += k;
    }

    static void fail() {
        throw new IllegalStateException("request failed");
    }

    static void between() {
        sink++;
    }
}
