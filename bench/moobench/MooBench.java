package moobench;

/**
 * MooBench-style driver: calls {@code MonitoredClass.monitoredMethod} (recursing to
 * {@code depth}) {@code n} times, timing the loop itself with System.nanoTime so JVM
 * start-up and the agent's final flush are not part of the number.
 *
 * Usage: java moobench.MooBench N [DEPTH]
 * Prints: loop_ns=..., calls=... (N * DEPTH monitored calls), check=...
 */
public final class MooBench {
    public static void main(final String[] args) {
        final long n = Long.parseLong(args[0]);
        final int depth = args.length > 1 ? Integer.parseInt(args[1]) : 10;
        final MonitoredClass mc = new MonitoredClass();
        long check = 0;
        final long t0 = System.nanoTime();
        for (long i = 0; i < n; i++) {
            check += mc.monitoredMethod(i & 1, depth);
        }
        final long t1 = System.nanoTime();
        System.out.println("loop_ns=" + (t1 - t0));
        System.out.println("calls=" + (n * depth));
        System.out.println("check=" + check);
    }
}
