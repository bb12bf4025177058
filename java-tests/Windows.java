// Windows (window=, keep=all): a server whose workers handle requests on three threads,
// some slow (spinning), some throwing, some re-entering the window method. Only the
// calls inside handle() are recorded, every request is a window, each with its exact
// calls; the calls between requests are not recorded at all.
// jtrace-options: window=WinRequests.handle,waits=off
// jtrace-compare-modes: no

import java.util.ArrayList;
import java.util.List;

public class Windows {
    static final int WORKERS = 3;
    static final int REQUESTS = 24;

    public static void main(String[] args) throws Exception {
        serve(new String[] {"all"}, 0);
    }

    /** One request's truth. */
    static final class Done {
        final int calls;
        final boolean slow, threw;

        Done(int calls, boolean slow, boolean threw) {
            this.calls = calls;
            this.slow = slow;
            this.threw = threw;
        }
    }

    /**
     * Serves every request and prints the truth for the rules given (any of all, over,
     * exception; sampleN > 0: keep=sample:1/sampleN, whose windows are counted only).
     */
    static void serve(String[] rules, int sampleN) throws Exception {
        List<List<Done>> done = new ArrayList<>();
        Thread[] ts = new Thread[WORKERS];
        for (int w = 0; w < WORKERS; w++) {
            List<Done> mine = new ArrayList<>();
            done.add(mine);
            final int worker = w;
            ts[w] = new Thread(() -> work(worker, mine), "req-" + w);
            ts[w].start();
        }
        for (Thread t : ts) {
            t.join();
        }
        int seen = 0, kept = 0, keptOver = 0, keptExc = 0;
        for (int w = 0; w < WORKERS; w++) {
            StringBuilder list = new StringBuilder();
            for (Done d : done.get(w)) {
                seen++;
                boolean over = has(rules, "over") && d.slow;
                boolean exc = has(rules, "exception") && d.threw;
                boolean keep = has(rules, "all") || over || exc;
                if (over) keptOver++;
                if (exc) keptExc++;
                if (!keep) continue;
                kept++;
                if (list.length() > 0) list.append(',');
                list.append(d.calls).append(':').append(d.threw ? "threw" : "returned");
            }
            if (sampleN == 0) {
                System.out.println("EXPECT windows req-" + w + " " + (list.length() == 0 ? "-" : list));
            }
        }
        if (sampleN > 0) {
            kept = (seen + sampleN - 1) / sampleN;
            System.out.println("EXPECT end-count windowsKeptSample " + kept);
        }
        System.out.println("EXPECT end-count windowsSeen " + seen);
        System.out.println("EXPECT end-count windowsKept " + kept);
        if (has(rules, "over")) System.out.println("EXPECT end-count windowsKeptOver " + keptOver);
        if (has(rules, "exception")) System.out.println("EXPECT end-count windowsKeptException " + keptExc);
        System.out.println("EXPECT end-count windowsTooLarge 0");
        System.out.println("EXPECT end-count windowsOpenAtClose 0");
        System.out.println("EXPECT calls WinRequests.between 0");
    }

    static boolean has(String[] rules, String r) {
        for (String x : rules) if (x.equals(r)) return true;
        return false;
    }

    static void work(int w, List<Done> out) {
        for (int i = 0; i < REQUESTS; i++) {
            WinRequests.Req r = new WinRequests.Req(i, w);
            boolean threw = false;
            try {
                WinRequests.handle(r, 0);
            } catch (IllegalStateException e) {
                threw = true;
            }
            out.add(new Done(r.calls, r.slow, threw));
            WinRequests.between();
        }
    }
}

class WinRequests {
    /** A slow request spins this long; keep=over: in the tests is half of it. */
    static final long SLOW_NS = 400_000_000L;

    static final class Req {
        final int i, w;
        final boolean slow, nested, fails;
        final int steps;
        int calls;

        Req(int i, int w) {
            this.i = i;
            this.w = w;
            slow = i % 6 == 3;
            nested = i % 4 == 1;
            fails = i % 5 == 2;
            steps = 2 + (i * 7 + w) % 9;
        }
    }

    static int sink;

    static void handle(Req r, int depth) {
        r.calls++;
        for (int k = 0; k < (depth == 0 ? r.steps : 1); k++) {
            step(r, k);
        }
        if (depth == 0 && r.nested) {
            handle(r, 1);
        }
        if (depth == 0 && r.slow) {
            long until = System.nanoTime() + SLOW_NS;
            while (System.nanoTime() < until) {
                sink++;
            }
        }
        if (depth == 0 && r.fails) {
            fail(r);
        }
    }

    static void step(Req r, int k) {
        r.calls++;
        leaf(r, k);
    }

    static void leaf(Req r, int k) {
        r.calls++;
        sink += k;
    }

    static void fail(Req r) {
        r.calls++;
        throw new IllegalStateException("request " + r.i + " of worker " + r.w);
    }

    static void between() {
        sink--;
    }
}
