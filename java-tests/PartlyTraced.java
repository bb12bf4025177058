// PartlyTraced (lines=on): a method near the JVM's 64 KiB of code. Big.big, 8,000 one-statement
// lines (24 KB of bytecode, written here as a class file, so no compiler runs), would pass
// 64 KiB with a line probe per line: in bci mode it keeps its entry and exit probes and loses
// its line probes, which the agent says on stderr and in traceEnd (partlyInstrumentedMethods,
// partlyInstrumentedMethod), while Big.small, in the same class, keeps its lines. Its calls are
// all traced in both modes; jvmti mode, which rewrites nothing, keeps every line.
// jtrace-options: lines=on
// jtrace-compare-modes: no

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.lang.reflect.Method;

public class PartlyTraced {
    static final int LINES = 8000;
    static final int CALLS = 2;
    // Big.big's statements are on lines 3 .. 3 + LINES - 1, its return on the next line,
    // Big.small on the one after.
    static final int FIRST_LINE = 3;
    static final int SMALL_LINE = FIRST_LINE + LINES + 1;

    /** Defines the one class it is given. */
    static final class Loader extends ClassLoader {
        Class<?> define(String name, byte[] bytes) {
            return defineClass(name, bytes, 0, bytes.length);
        }
    }

    public static void main(String[] args) throws Exception {
        Class<?> big = new Loader().define("Big", bigClass());
        Method m = big.getMethod("big", int.class);
        Method s = big.getMethod("small", int.class);
        long sum = 0;
        for (int k = 0; k < CALLS; k++) {
            sum += (Integer) m.invoke(null, k) + (Integer) s.invoke(null, k);
        }
        // Each call of big adds 3 per line to its argument, small adds 1: over k = 0, 1.
        long want = 2L * 3 * LINES + (0 + 0 + 1) + (1 + 1 + 1);
        if (sum != want) {
            throw new IllegalStateException("Big computed " + sum + ", not " + want);
        }
        System.out.println("EXPECT calls Big.big " + CALLS);
        System.out.println("EXPECT calls Big.small " + CALLS);
        System.out.println("EXPECT lines Big.small " + SMALL_LINE);
        System.out.println("EXPECT end-count uninstrumentedClasses 0");
        System.out.println("EXPECT-BCI end-count partlyInstrumentedMethods 1");
        System.out.println("EXPECT-BCI end-note partlyInstrumentedMethod Big.big(I)I: ");
        System.out.println("EXPECT-BCI lines Big.big -");
    }

    /**
     * The class file of
     * <pre>
     * public class Big {
     *     public static int big(int x) { x += 3; ... (LINES times) return x; }
     *     public static int small(int x) { return x + 1; }
     * }
     * </pre>
     * with a line per statement; version 50 (Java 6), which straight-line code verifies
     * without a StackMapTable.
     */
    static byte[] bigClass() throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        DataOutputStream out = new DataOutputStream(bytes);
        out.writeInt(0xCAFEBABE);
        out.writeShort(0);
        out.writeShort(50);
        // The constant pool: 1 "Big", 2 class Big, 3 "java/lang/Object", 4 class Object,
        // 5 "big", 6 "(I)I", 7 "Code", 8 "LineNumberTable", 9 "small", 10 "SourceFile",
        // 11 "Big.java".
        String[] utf8 = {"Big", null, "java/lang/Object", null, "big", "(I)I", "Code",
            "LineNumberTable", "small", "SourceFile", "Big.java"};
        out.writeShort(utf8.length + 1);
        for (int i = 0; i < utf8.length; i++) {
            if (utf8[i] == null) {
                out.writeByte(7); // CONSTANT_Class naming the entry before it
                out.writeShort(i);
            } else {
                out.writeByte(1);
                out.writeUTF(utf8[i]);
            }
        }
        out.writeShort(0x0021); // public super
        out.writeShort(2);
        out.writeShort(4);
        out.writeShort(0); // interfaces
        out.writeShort(0); // fields
        out.writeShort(2); // methods
        // big: iinc 0 3 per line, then iload_0, ireturn.
        ByteArrayOutputStream code = new ByteArrayOutputStream();
        int[][] lines = new int[LINES + 1][];
        for (int i = 0; i < LINES; i++) {
            lines[i] = new int[] {code.size(), FIRST_LINE + i};
            code.write(new byte[] {(byte) 0x84, 0, 3});
        }
        lines[LINES] = new int[] {code.size(), FIRST_LINE + LINES};
        code.write(new byte[] {0x1a, (byte) 0xac});
        method(out, 5, code.toByteArray(), lines);
        // small: iload_0, iconst_1, iadd, ireturn.
        method(out, 9, new byte[] {0x1a, 0x04, 0x60, (byte) 0xac},
            new int[][] {{0, SMALL_LINE}});
        out.writeShort(1); // attributes: SourceFile
        out.writeShort(10);
        out.writeInt(2);
        out.writeShort(11);
        out.flush();
        return bytes.toByteArray();
    }

    /** A public static (I)I method named by constant NAME, with its Code and LineNumberTable. */
    static void method(DataOutputStream out, int name, byte[] code, int[][] lines)
            throws IOException {
        out.writeShort(0x0009);
        out.writeShort(name);
        out.writeShort(6);
        out.writeShort(1);
        out.writeShort(7);
        int table = 2 + 4 * lines.length;
        out.writeInt(2 + 2 + 4 + code.length + 2 + 2 + 2 + 4 + table);
        out.writeShort(2); // max_stack
        out.writeShort(1); // max_locals
        out.writeInt(code.length);
        out.write(code);
        out.writeShort(0); // exception table
        out.writeShort(1); // attributes: LineNumberTable
        out.writeShort(8);
        out.writeInt(table);
        out.writeShort(lines.length);
        for (int[] line : lines) {
            out.writeShort(line[0]);
            out.writeShort(line[1]);
        }
    }
}
