package cost;

/**
 * Idle cell: N calls of a small static method, timed by the program after a warm-up of
 * the same loop, with the agent loaded but not tracing (start=off).
 *
 * Usage: java cost.Idle N. Prints loop_ns=..., calls=N, check=...
 */
public final class Idle {
    static int work(final int i) {
        return (i * 31) ^ (i >>> 3);
    }

    static long loop(final long n) {
        long check = 0;
        for (long i = 0; i < n; i++) {
            check += work((int) i);
        }
        return check;
    }

    public static void main(final String[] args) {
        final long n = Long.parseLong(args[0]);
        long check = loop(n / 4);
        final long t0 = System.nanoTime();
        check += loop(n);
        final long t1 = System.nanoTime();
        System.out.println("loop_ns=" + (t1 - t0));
        System.out.println("calls=" + n);
        System.out.println("check=" + check);
    }
}
