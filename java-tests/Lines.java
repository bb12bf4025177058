// Lines (lines=on): compute() runs a known set of its source lines. Every executable line of
// it calls mark(here()), and here() reads the caller's line number from a stack trace, so the
// expected line numbers come from the class file's own line table, not from this comment.
// Executed once: the first statement (A), the loop header (B), the if (G), the else branch
// (E) and the return (F); the loop body (C) runs K times, each entered from the loop header,
// so it has K line events; the then-branch (D) never runs. The loop header's own count is
// not claimed (how often a backward jump re-reports it is the agent's documented rule, not
// something this program can observe).
// jtrace-options: lines=on

public class Lines {
    static final int K = 4;
    static final boolean[] executed = new boolean[1000];
    static int bodyRuns;

    static int here() {
        return new Throwable().getStackTrace()[1].getLineNumber();
    }

    static int mark(int line) {
        executed[line] = true;
        return 0;
    }

    static int compute(int k) {
        int s = mark(here());
        for (int i = mark(here()); i < k; i += 1) {
            s += i + mark(here()); bodyRuns++;
        }
        if (s > 100 + mark(here())) {
            s = -1 + mark(here());
        } else {
            s = s * 2 + mark(here());
        }
        return s + mark(here());
    }

    public static void main(String[] args) {
        int r = compute(K);
        StringBuilder lines = new StringBuilder();
        int first = -1;
        int count = 0;
        for (int l = 0; l < executed.length; l++) {
            if (executed[l]) {
                if (first < 0) {
                    first = l;
                }
                count++;
                lines.append(lines.length() == 0 ? "" : ",").append(l);
            }
        }
        if (r != 12 || count != 6 || bodyRuns != K) {
            throw new AssertionError("unexpected run: r=" + r + " lines=" + lines);
        }
        System.out.println("EXPECT lines Lines.compute " + lines);
        // The body line C is the third marked line (A, B, C, G, E, F in file order).
        int c = nth(3);
        System.out.println("EXPECT line-count Lines.compute " + c + " " + bodyRuns);
        for (int i : new int[] {1, 4, 5, 6}) {
            System.out.println("EXPECT line-count Lines.compute " + nth(i) + " 1");
        }
        System.out.println("EXPECT calls Lines.compute 1");
        System.out.println("EXPECT exit-code 0");
    }

    /** The n-th (1-based) marked line. */
    static int nth(int n) {
        for (int l = 0; l < executed.length; l++) {
            if (executed[l] && --n == 0) {
                return l;
            }
        }
        throw new AssertionError("fewer marked lines");
    }
}
