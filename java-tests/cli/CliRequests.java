// The program `cargo xtask test` traces to test the readers of windows (window=,
// keep=): `jtrace windows` lists exactly the windows the program says were kept, with
// their calls and outcomes, the same from the .jtr and the XML; `--window ID` narrows
// `report` to exactly that window's calls (xtask/src/steps/cli_requests.rs).
// jtrace-options: window=CliRequests.handle,keep=over:150ms|exception,waits=off
// jtrace-stdout: EXPECT *
// jtrace-compare-modes: no
public class CliRequests {
    static long sink;

    static int handle(int id) {
        int calls = 1;
        for (int k = 0; k < 2 + id % 5; k++) {
            calls += work(k);
        }
        if (id % 4 == 1) {
            long until = System.nanoTime() + 300_000_000L;
            while (System.nanoTime() < until) {
                sink++;
            }
        }
        if (id % 3 == 2) {
            throw new IllegalArgumentException("request " + id);
        }
        return calls;
    }

    static int work(int k) {
        sink += k;
        return 1;
    }

    static void between() {
        sink--;
    }

    public static void main(String[] args) throws Exception {
        String[] lists = new String[2];
        Thread[] ts = new Thread[2];
        for (int w = 0; w < 2; w++) {
            final int worker = w;
            ts[w] = new Thread(() -> {
                StringBuilder kept = new StringBuilder();
                for (int i = 0; i < 8; i++) {
                    int id = worker * 8 + i;
                    int calls = 1 + 2 + id % 5;
                    String outcome = "returned";
                    try {
                        handle(id);
                    } catch (IllegalArgumentException e) {
                        outcome = "threw";
                    }
                    if (id % 4 == 1 || id % 3 == 2) {
                        if (kept.length() > 0) kept.append(',');
                        kept.append(calls).append(':').append(outcome);
                    }
                    between();
                }
                lists[worker] = kept.length() == 0 ? "-" : kept.toString();
            }, "serve-" + w);
            ts[w].start();
        }
        for (Thread t : ts) {
            t.join();
        }
        for (int w = 0; w < 2; w++) {
            System.out.println("EXPECT windows serve-" + w + " " + lists[w]);
        }
        System.out.println("EXPECT end-count windowsSeen 16");
        System.out.println("EXPECT calls CliRequests.between 0");
    }
}
