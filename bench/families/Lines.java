package families;

/**
 * Line family: a loop of one statement per source line, 16 lines per iteration, inside
 * one traced method per 1000 iterations (so method entry/exit is a small part of the
 * events and line events dominate when lines=on).
 *
 * Usage: java families.Lines N (N calls of 1000 iterations)
 * Prints: loop_ns=..., ops=... (line executions in the loop body), check=...
 */
public final class Lines {
    static final int BATCH = 1000;
    static final int LINES_PER_ITERATION = 16;

    static long batch(final long seed) {
        long a = seed;
        long b = 1;
        for (int i = 0; i < BATCH; i++) {
            a += i;
            b ^= a;
            a = a * 31 + b;
            b += a >>> 7;
            a ^= b << 3;
            b = b * 17 + i;
            a += b & 0xff;
            b -= a >> 5;
            a ^= i * 7;
            b += a & 0xf0;
            a = a + (b >>> 11);
            b ^= a * 3;
            a -= b >> 2;
            b += 1;
            a ^= b;
            b = b + a % 13;
        }
        return a + b;
    }

    public static void main(final String[] args) {
        final int n = Integer.parseInt(args[0]);
        long check = 0;
        final long t0 = System.nanoTime();
        for (int k = 0; k < n; k++) {
            check += batch(k);
        }
        final long t1 = System.nanoTime();
        System.out.println("loop_ns=" + (t1 - t0));
        System.out.println("ops=" + (long) n * BATCH * LINES_PER_ITERATION);
        System.out.println("check=" + check);
    }
}
