// Sampled allocation tracing (alloc=sampled:65536): the JVM reports about one allocation per
// 65536 bytes allocated, so the trace holds far fewer objAlloc elements than allocations, and
// samples x interval estimates the bytes allocated.
//
// Estimator: every sample stands for INTERVAL bytes on average (the sampling points are drawn
// with mean INTERVAL over the thread's allocated bytes), so estimate = samples * INTERVAL.
// The program allocates COUNT int[LENGTH] arrays (about 64 MB, about 980 expected samples,
// standard deviation about 3%) and nothing else in the loop; the check allows +-30%.
// The size of one array is computed from the VM's layout flags (see AllocExact.java):
// int[1000] = align8(16 + 4000) = 4016 bytes on a default 64-bit HotSpot.
// jtrace-options: alloc=sampled:65536

import com.sun.management.HotSpotDiagnosticMXBean;
import java.lang.management.ManagementFactory;

public class AllocSampled {
    static final long INTERVAL = 65536; // as in the jtrace-options line
    static final int LENGTH = 1000;
    static final int COUNT = 16000;

    static Object[] ring;

    static HotSpotDiagnosticMXBean hs;

    static String vmOption(String name, String dflt) {
        try {
            return hs.getVMOption(name).getValue();
        } catch (IllegalArgumentException e) {
            return dflt;
        }
    }

    static long align(long n, long a) {
        return (n + a - 1) / a * a;
    }

    static long intArraySize(int length) {
        hs = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
        boolean compact = vmOption("UseCompactObjectHeaders", "false").equals("true");
        boolean ccp = vmOption("UseCompressedClassPointers", "false").equals("true");
        long alignment = Long.parseLong(vmOption("ObjectAlignmentInBytes", "8"));
        long header = compact ? 8 : ccp ? 12 : 16;
        long base = Runtime.version().feature() >= 22 ? align(header + 4, 4) : align(header + 4, 8);
        return align(base + 4L * length, alignment);
    }

    static long allocate(long size) {
        long total = 0;
        for (int i = 0; i < COUNT; i++) {
            ring[i & 63] = new int[LENGTH];
            total += size;
        }
        return total;
    }

    public static void main(String[] args) {
        long size = intArraySize(LENGTH);
        ring = new Object[64];
        long total = allocate(size);
        System.out.println("EXPECT alloc-estimate - 10 " + total + " 30");
        System.out.println("EXPECT allocs-at-most - 10 " + COUNT / 10);
        System.out.println("EXPECT calls AllocSampled.allocate 1");
        System.out.println("EXPECT exit-code 0");
    }
}
