package families;

/**
 * Allocation family: many small objects and arrays allocated by traced code.
 *
 * Each call of {@link #batch} allocates {@code BATCH} plain objects and {@code BATCH}
 * small int arrays and keeps the most recent ones in a ring, so escape analysis cannot
 * remove them. The allocations happen in a traced method (the agent records an
 * allocation only when the allocating frame is traced); {@code new Object()} runs no
 * traced constructor, so method events stay at two per batch.
 *
 * Usage: java families.Alloc N (N batches of 1000 iterations)
 * Prints: loop_ns=..., ops=... (allocations made), check=...
 */
public final class Alloc {
    static final int BATCH = 1000;
    static final Object[] RING = new Object[1024];

    static long batch(final int seed) {
        long s = 0;
        for (int i = 0; i < BATCH; i++) {
            final Object o = new Object();
            final int[] a = new int[4];
            a[i & 3] = seed + i;
            RING[i & 1023] = (i & 1) == 0 ? o : a;
            s += a[i & 3];
        }
        return s;
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
        System.out.println("ops=" + 2L * n * BATCH);
        System.out.println("check=" + check);
    }
}
