// Unbounded traced recursion ends in StackOverflowError, which is caught; more calls follow.
// Nesting must stay exact through the overflow, and frames deeper than 32767 (stackDepth is
// xsd:short in traceEvents.xsd) must leave the attribute out: tracecheck rejects a larger
// value and requires it on every shallower frame, and still checks the true depth from the
// nesting (max-depth below).
//
// The recursion runs on a thread with an 8 MiB stack, deep enough to pass 32767 frames in
// both modes and at every tier (4 MiB gave about 42,000 interpreted frames but only 32,319
// C1-compiled ones with bci's probes, -XX:TieredStopAtLevel=1, which failed once in CI), small enough to keep the trace to tens of MB. The program checks that it did
// pass 32767, so the case cannot pass without testing what it is for. The two modes are not
// compared: the overflow depth depends on frame sizes, which differ between them and with JIT
// timing.
// jtrace-timeout: 180
// jtrace-compare-modes: no

public class DeepOverflow {
    static int downCalls;
    static int maxDepth;
    static int recCalls;
    static int leafCalls;
    static int caught;

    /** Traced depth d (Worker.run is depth 1). Never returns. */
    static void down(int d) {
        downCalls++;
        if (d > maxDepth) {
            maxDepth = d;
        }
        down(d + 1);
    }

    static int rec(int n) {
        recCalls++;
        return n == 0 ? 0 : 1 + rec(n - 1);
    }

    static void leaf() {
        leafCalls++;
    }

    static final int REC = 200;
    static final int LEAVES = 1000;

    static class Worker implements Runnable {
        @Override
        public void run() {
            try {
                down(2);
            } catch (StackOverflowError e) {
                caught++;
            }
            // After the overflow: nesting and depths must be exact again.
            if (rec(REC) != REC) {
                throw new AssertionError("rec");
            }
            for (int i = 0; i < LEAVES; i++) {
                leaf();
            }
        }
    }

    public static void main(String[] args) throws InterruptedException {
        Thread t = new Thread(null, new Worker(), "deep", 8L << 20);
        t.start();
        t.join();
        if (caught != 1 || maxDepth <= 32767) {
            throw new AssertionError("caught " + caught + ", depth " + maxDepth + ": the case tests nothing");
        }
        System.out.println("EXPECT calls DeepOverflow.down " + downCalls);
        System.out.println("EXPECT exits DeepOverflow.down " + downCalls);
        System.out.println("EXPECT exception-exits DeepOverflow.down " + downCalls);
        System.out.println("EXPECT max-depth DeepOverflow.down " + maxDepth);
        System.out.println("EXPECT catches DeepOverflow$Worker.run 1");
        System.out.println("EXPECT calls DeepOverflow.rec " + recCalls);
        System.out.println("EXPECT exits DeepOverflow.rec " + recCalls);
        System.out.println("EXPECT exception-exits DeepOverflow.rec 0");
        System.out.println("EXPECT max-depth DeepOverflow.rec " + (REC + 2));
        System.out.println("EXPECT thread-calls deep DeepOverflow.leaf " + leafCalls);
        System.out.println("EXPECT max-depth DeepOverflow.leaf 2");
        System.out.println("EXPECT calls DeepOverflow$Worker.run 1");
        System.out.println("EXPECT exits DeepOverflow$Worker.run 1");
        System.out.println("EXPECT exit-code 0");
    }
}
