// Exact allocation tracing from a thread's first allocation: a program whose main thread
// allocates little, with no warm-up. HotSpot arms a thread's allocation buffer for
// sampling only after a sampled allocation, so a buffer the main thread took during
// start-up used to hide its first ~150 KB of allocations on JDK 17 (0 of these 1,000
// objects were reported). The class's static initialiser allocates too: the first traced
// allocation of the run must be in the trace as well.
//
// Every counted allocation happens before the program reads the VM's layout flags (the
// management API allocates a lot, in JDK code, which is not traced), so nothing warms the
// allocation buffer up. Sizes: see AllocExact.java.
// jtrace-options: alloc=exact

import com.sun.management.HotSpotDiagnosticMXBean;
import java.lang.management.ManagementFactory;

public class AllocLittle {
    static final int OBJECTS = 1000;

    // The only instance field: an instance is header + 4 bytes, padded.
    int id;

    AllocLittle(int id) {
        this.id = id;
    }

    // The first traced allocation of the run (in <clinit>, before main).
    static final AllocLittle FIRST = new AllocLittle(-1);

    static Object[] keep;
    static long[] little;

    public static void main(String[] args) {
        keep = new Object[OBJECTS];
        for (int i = 0; i < OBJECTS; i++) {
            keep[i] = new AllocLittle(i);
        }
        little = new long[5];

        // ------------------------------------------------ ground truth (no traced allocations)
        HotSpotDiagnosticMXBean hs = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
        boolean compact = option(hs, "UseCompactObjectHeaders", "false").equals("true");
        boolean ccp = option(hs, "UseCompressedClassPointers", "false").equals("true");
        boolean coops = option(hs, "UseCompressedOops", "false").equals("true");
        long alignment = Long.parseLong(option(hs, "ObjectAlignmentInBytes", "8"));
        int feature = Runtime.version().feature();
        long header = compact ? 8 : ccp ? 12 : 16;
        long instance = align(header + 4, alignment);
        long ref = coops ? 4 : 8;

        System.out.println("EXPECT allocs AllocLittle 0 " + (OBJECTS + 1));
        System.out.println("EXPECT alloc-size AllocLittle 0 " + (OBJECTS + 1) * instance);
        System.out.println("EXPECT allocs java.lang.Object 2 1");
        System.out.println("EXPECT alloc-size java.lang.Object 2 "
                + arraySize(header, feature, alignment, ref, OBJECTS));
        System.out.println("EXPECT allocs - 11 1");
        System.out.println("EXPECT alloc-size - 11 " + arraySize(header, feature, alignment, 8, 5));
        System.out.println("EXPECT elements objAlloc " + (OBJECTS + 3));
        System.out.println("EXPECT calls AllocLittle.-init- " + (OBJECTS + 1));
        System.out.println("EXPECT exit-code 0");
    }

    static String option(HotSpotDiagnosticMXBean hs, String name, String dflt) {
        try {
            return hs.getVMOption(name).getValue();
        } catch (IllegalArgumentException e) {
            // The flag does not exist on this JDK (e.g. UseCompactObjectHeaders before 24).
            return dflt;
        }
    }

    static long align(long n, long a) {
        return (n + a - 1) / a * a;
    }

    static long arraySize(long header, int feature, long alignment, long elemBytes, long length) {
        long lengthEnd = header + 4;
        long base = feature >= 22 ? align(lengthEnd, elemBytes) : align(lengthEnd, 8);
        return align(base + elemBytes * length, alignment);
    }
}
