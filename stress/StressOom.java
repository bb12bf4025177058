// OutOfMemoryError in the application, caught: 64 K long[] chunks (512 KiB each) kept
// until the small heap (-Xmx48m) is full, then dropped, and
// the program goes on. The runner runs it without the agent, with alloc=exact and with
// alloc=sampled: the lines that do not depend on the heap's exact size ("oom ...") and
// the exit code must be the same every time, and the traced calls exact.
// jtrace-compare-modes: no
// jtrace-jvm-args: -Xmx48m
// jtrace-stdout: oom *
// jtrace-stdout: FIGURE *
// jtrace-timeout: 120

import java.util.ArrayList;
import java.util.List;

public class StressOom {
    static int chunkCalls;
    static int afterCalls;

    static long[] chunk() {
        chunkCalls++;
        return new long[64 * 1024];
    }

    static long after(long x) {
        afterCalls++;
        return x * 3 + 1;
    }

    public static void main(String[] args) {
        List<long[]> hog = new ArrayList<>();
        int kept;
        try {
            while (true) {
                hog.add(chunk());
            }
        } catch (OutOfMemoryError e) {
            kept = hog.size();
            hog = null;
            System.out.println("oom caught " + e.getClass().getName());
        }
        long x = 1;
        for (int i = 0; i < 1000; i++) {
            x = after(x) % 1_000_003;
        }
        System.out.println("oom result " + x);
        System.out.println("EXPECT calls StressOom.chunk " + chunkCalls);
        System.out.println("EXPECT exception-exits StressOom.chunk 1");
        System.out.println("EXPECT calls StressOom.after " + afterCalls);
        System.out.println("EXPECT exit-code 0");
        System.out.println("FIGURE heap-filled-mb=" + kept / 2);
    }
}
