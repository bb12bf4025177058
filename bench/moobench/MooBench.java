package moobench;

/**
 * MooBench-style driver: calls {@code MonitoredClass.monitoredMethod} (recursing to
 * {@code depth}) {@code n} times, timing the loop itself with System.nanoTime so JVM
 * start-up and the agent's final flush are not part of the number.
 *
 * Usage: java moobench.MooBench N [DEPTH]
 * Prints: loop_ns=..., calls=... (N * DEPTH monitored calls), steady_ns=... and
 * steady_calls=... (the second half of the loop alone), check=..., and hwm_kb=... (the
 * process's peak resident memory so far, VmHWM, 0 where /proc cannot say).
 */
public final class MooBench {
    public static void main(final String[] args) {
        final long n = Long.parseLong(args[0]);
        final int depth = args.length > 1 ? Integer.parseInt(args[1]) : 10;
        final MonitoredClass mc = new MonitoredClass();
        long check = 0;
        final long half = n / 2;
        final long t0 = System.nanoTime();
        for (long i = 0; i < half; i++) {
            check += mc.monitoredMethod(i & 1, depth);
        }
        final long tHalf = System.nanoTime();
        for (long i = half; i < n; i++) {
            check += mc.monitoredMethod(i & 1, depth);
        }
        final long t1 = System.nanoTime();
        System.out.println("loop_ns=" + (t1 - t0));
        System.out.println("calls=" + (n * depth));
        // The second half alone: the steady state, after warm-up and compilation.
        System.out.println("steady_ns=" + (t1 - tHalf));
        System.out.println("steady_calls=" + ((n - half) * depth));
        System.out.println("check=" + check);
        System.out.println("hwm_kb=" + peakKb());
    }

    /** VmHWM of /proc/self/status, in kB (0 if unreadable). */
    private static long peakKb() {
        try {
            for (String l : java.nio.file.Files.readAllLines(java.nio.file.Paths.get("/proc/self/status"))) {
                if (l.startsWith("VmHWM:")) {
                    return Long.parseLong(l.replaceAll("[^0-9]", ""));
                }
            }
        } catch (java.io.IOException | NumberFormatException e) {
            // no figure
        }
        return 0;
    }
}
