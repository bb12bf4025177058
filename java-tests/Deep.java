// Deep recursion: stackDepth must count every open traced frame.

public class Deep {
    static final int DEPTH = 3000;
    static int calls;
    /** Traced frames open on this thread; main itself is the first. */
    static int depth = 1;
    static int maxDepth;

    static int rec(int n) {
        calls++;
        depth++;
        maxDepth = Math.max(maxDepth, depth);
        int r = n == 0 ? 0 : 1 + rec(n - 1);
        depth--;
        return r;
    }

    public static void main(String[] args) {
        int r = rec(DEPTH - 1);
        if (r != DEPTH - 1) {
            throw new AssertionError(r);
        }
        System.out.println("EXPECT calls Deep.rec " + calls);
        System.out.println("EXPECT exits Deep.rec " + calls);
        System.out.println("EXPECT max-depth Deep.rec " + maxDepth);
        System.out.println("EXPECT exit-code 0");
    }
}
