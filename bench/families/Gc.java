package families;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;

/**
 * GC family: allocation pressure that causes many collections (run with a small heap,
 * e.g. -Xmx64m). Each call of {@link #batch} allocates {@code BATCH} 4 KiB arrays and
 * keeps the last 256 of them alive, so every young collection has a little to copy.
 *
 * Usage: java -Xmx64m families.Gc N (N batches of 1000 arrays, 4 MB each batch)
 * Prints: loop_ns=..., ops=... (collections during the loop), check=...
 */
public final class Gc {
    static final int BATCH = 1000;
    static final byte[][] LIVE = new byte[256][];

    static long collections() {
        long c = 0;
        for (final GarbageCollectorMXBean b : ManagementFactory.getGarbageCollectorMXBeans()) {
            c += Math.max(0, b.getCollectionCount());
        }
        return c;
    }

    static long batch(final int seed) {
        long s = 0;
        for (int i = 0; i < BATCH; i++) {
            final byte[] b = new byte[4096];
            b[i & 4095] = (byte) seed;
            LIVE[i & 255] = b;
            s += b.length;
        }
        return s;
    }

    public static void main(final String[] args) {
        final int n = Integer.parseInt(args[0]);
        long check = 0;
        final long c0 = collections();
        final long t0 = System.nanoTime();
        for (int k = 0; k < n; k++) {
            check += batch(k);
        }
        final long t1 = System.nanoTime();
        final long c1 = collections();
        System.out.println("loop_ns=" + (t1 - t0));
        System.out.println("ops=" + (c1 - c0));
        System.out.println("check=" + check);
    }
}
