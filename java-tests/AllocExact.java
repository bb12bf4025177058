// Exact allocation tracing: every object and array allocated by traced code appears once as
// objAlloc, with the right isArray code, element class, size and allocation-site line.
//
// Sizes: the program computes what JVMTI GetObjectSize reports on HotSpot from the VM's own
// layout flags (read through HotSpotDiagnosticMXBean, not assumed): an object's header is
// 12 bytes with compressed class pointers (16 without, 8 with compact headers), an array's
// length field follows the header and its elements start at the next multiple of the
// element size (of 8 before JDK 22), and every object is padded to ObjectAlignmentInBytes.
// So `new int[10]` = align8(16 + 40) = 56 and an instance of this class (one int field)
// = align8(12 + 4) = 16 on a default 64-bit HotSpot.
//
// Lines: each allocation shares its source line with a call to line(), which reads that
// line number back from a stack trace, so the expected aLineNr values come from the class
// file's own line table. line() allocates one Throwable per call (counted below).
// jtrace-options: alloc=exact

import com.sun.management.HotSpotDiagnosticMXBean;
import java.lang.management.ManagementFactory;

public class AllocExact {
    static final int OBJECTS = 1000;
    static final int ROUNDS = 3;

    // The only instance field: an instance is header + 4 bytes, padded.
    int id;

    AllocExact(int id) {
        this.id = id;
    }

    // Sinks, so no allocation can be optimised away.
    static Object sink;
    static Object[] keep;

    static int throwables;

    /** The line number of the caller's current line. Allocates one Throwable. */
    static int line() {
        throwables++;
        return new Throwable().getStackTrace()[1].getLineNumber();
    }

    // ---------------------------------------------------------------- layout

    static HotSpotDiagnosticMXBean hs;

    static String vmOption(String name, String dflt) {
        try {
            return hs.getVMOption(name).getValue();
        } catch (IllegalArgumentException e) {
            // The flag does not exist on this JDK (e.g. UseCompactObjectHeaders before 24).
            return dflt;
        }
    }

    static boolean compact, ccp, coops;
    static int alignment, feature;

    static long align(long n, long a) {
        return (n + a - 1) / a * a;
    }

    static long headerBytes() {
        return compact ? 8 : ccp ? 12 : 16;
    }

    static long instanceSize(long fieldBytes) {
        return align(headerBytes() + fieldBytes, alignment);
    }

    static long arraySize(long elemBytes, long length) {
        long lengthEnd = headerBytes() + 4;
        long base = feature >= 22 ? align(lengthEnd, elemBytes) : align(lengthEnd, 8);
        return align(base + elemBytes * length, alignment);
    }

    static void readLayout() {
        hs = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
        compact = vmOption("UseCompactObjectHeaders", "false").equals("true");
        ccp = vmOption("UseCompressedClassPointers", "false").equals("true");
        coops = vmOption("UseCompressedOops", "false").equals("true");
        alignment = Integer.parseInt(vmOption("ObjectAlignmentInBytes", "8"));
        feature = Runtime.version().feature();
    }

    // ---------------------------------------------------------------- allocations

    static long ownBytes;
    static int ownLine;

    static void makeObjects() {
        for (int i = 0; i < OBJECTS; i++) {
            sink = new AllocExact(i); ownLine = line();
            ownBytes += instanceSize(4);
        }
    }

    // Per isArray code 4..11: count, bytes, and the allocation line.
    static final int FIRST = 4;
    static int[] counts;
    static long[] bytes;
    static int[] lines;
    static int objArrays, strArrays;
    static long objArrayBytes, strArrayBytes;
    static int objArrayLine, strArrayLine;

    static void record(int code, long elemBytes, int length, int line) {
        counts[code - FIRST]++;
        bytes[code - FIRST] += arraySize(elemBytes, length);
        lines[code - FIRST] = line;
    }

    static void makeArrays() {
        long ref = coops ? 4 : 8;
        for (int r = 0; r < ROUNDS; r++) {
            int n = 3 + 5 * r;
            sink = new boolean[n]; record(4, 1, n, line());
            sink = new char[n + 1]; record(5, 2, n + 1, line());
            sink = new float[n + 2]; record(6, 4, n + 2, line());
            sink = new double[n + 3]; record(7, 8, n + 3, line());
            sink = new byte[n + 4]; record(8, 1, n + 4, line());
            sink = new short[n + 5]; record(9, 2, n + 5, line());
            sink = new int[10 + r]; record(10, 4, 10 + r, line());
            sink = new long[n + 7]; record(11, 8, n + 7, line());
            keep = new Object[7 + r]; objArrayLine = line();
            objArrays++;
            objArrayBytes += arraySize(ref, 7 + r);
            keep = new String[3 + r]; strArrayLine = line();
            strArrays++;
            strArrayBytes += arraySize(ref, 3 + r);
        }
    }

    static int thrownLine;

    static void throwOne() {
        try {
            throw new IllegalStateException(); // not a real failure
        } catch (IllegalStateException e) {
            sink = e;
        }
    }

    public static void main(String[] args) {
        readLayout();
        // The three bookkeeping arrays are traced allocations too.
        counts = new int[8]; bytes = new long[8]; lines = new int[8]; int bookLine = line();
        makeObjects();
        makeArrays();
        throwOne();

        System.out.println("EXPECT allocs AllocExact 0 " + OBJECTS);
        System.out.println("EXPECT alloc-size AllocExact 0 " + ownBytes);
        System.out.println("EXPECT alloc-lines AllocExact 0 " + ownLine);
        // int[] and long[]: the program's bookkeeping arrays plus the recorded ones.
        counts[10 - FIRST] += 2;
        bytes[10 - FIRST] += 2 * arraySize(4, 8);
        counts[11 - FIRST] += 1;
        bytes[11 - FIRST] += arraySize(8, 8);
        for (int code = 4; code <= 11; code++) {
            int i = code - FIRST;
            System.out.println("EXPECT allocs - " + code + " " + counts[i]);
            System.out.println("EXPECT alloc-size - " + code + " " + bytes[i]);
            // int[] and long[] have two sites: makeArrays and main's bookkeeping line (main
            // comes later in the file, so its line is the larger one).
            String sites = code == 10 || code == 11 ? lines[i] + "," + bookLine : "" + lines[i];
            System.out.println("EXPECT alloc-lines - " + code + " " + sites);
        }
        System.out.println("EXPECT allocs java.lang.Object 2 " + objArrays);
        System.out.println("EXPECT alloc-size java.lang.Object 2 " + objArrayBytes);
        System.out.println("EXPECT alloc-lines java.lang.Object 2 " + objArrayLine);
        System.out.println("EXPECT allocs java.lang.String 2 " + strArrays);
        System.out.println("EXPECT alloc-size java.lang.String 2 " + strArrayBytes);
        System.out.println("EXPECT alloc-lines java.lang.String 2 " + strArrayLine);
        System.out.println("EXPECT allocs java.lang.Throwable 0 " + throwables);
        // The exception allocated by traced code is the object its throw names.
        System.out.println("EXPECT allocs java.lang.IllegalStateException 0 1");
        System.out.println("EXPECT thrown java.lang.IllegalStateException 1");
        System.out.println("EXPECT throws AllocExact.throwOne 1");
        System.out.println("EXPECT catches AllocExact.throwOne 1");
        System.out.println("EXPECT calls AllocExact.-init- " + OBJECTS);
        System.out.println("EXPECT exit-code 0");
    }
}
