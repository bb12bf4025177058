// The program `cargo xtask test` traces to test one thread's calls cut over two workers
// (xtask/src/steps/cli_cut.rs): one thread makes every call, recursing deep and throwing
// exceptions that pass through many frames before a catch, in many record chunks, so
// that the cut `report --jobs 2` makes falls inside deep stacks and open exceptions.
// Prints EXPECT lines (exact call counts per method).
// jtrace-options: waits=off
// jtrace-stdout: EXPECT *
// jtrace-compare-modes: no
// jtrace-timeout: 120
public class CliCut {
    static final int ROUNDS = 120;
    static final int DEPTH = 400;
    static long sink;
    static int downs, leaves, recs;

    static int down(int n, int throwAt) {
        downs++;
        if (n == throwAt) {
            throw new IllegalStateException("at " + n);
        }
        if (n == 0) {
            return leaf(n);
        }
        try {
            return down(n - 1, throwAt) + 1;
        } catch (IllegalStateException e) {
            if (n % 7 == 0) {
                return -1;
            }
            throw e;
        }
    }

    static int leaf(int n) {
        leaves++;
        return n + 1;
    }

    static int rec(int n) {
        recs++;
        return n == 0 ? 0 : rec(n - 1) + 1;
    }

    public static void main(String[] args) {
        for (int r = 0; r < ROUNDS; r++) {
            try {
                sink += down(DEPTH, r % 3 == 0 ? DEPTH - (r % 40) * 9 : -1);
            } catch (IllegalStateException e) {
                sink--;
            }
            sink += rec(DEPTH / 2);
        }
        System.out.println("EXPECT calls CliCut.down " + downs);
        System.out.println("EXPECT calls CliCut.leaf " + leaves);
        System.out.println("EXPECT calls CliCut.rec " + recs);
        System.out.println("EXPECT calls CliCut.main 1");
    }
}
