// Inserts calls to java.jtrace.TestMarks at the start of JUnit's TestResult and RunNotifier test methods.
package jtrace.record;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.lang.instrument.ClassFileTransformer;
import java.nio.charset.StandardCharsets;
import java.security.ProtectionDomain;

/**
 * A {@link ClassFileTransformer} for two classes (in any class loader): in JUnit 3's
 * {@code junit/framework/TestResult}, the first instructions of {@code startTest(Test)},
 * {@code endTest(Test)}, {@code addError(Test, Throwable)} and
 * {@code addFailure(Test, AssertionFailedError)}, and in JUnit 4's
 * {@code org/junit/runner/notification/RunNotifier} those of {@code fireTestStarted},
 * {@code fireTestFinished}, {@code fireTestFailure}, {@code fireTestAssumptionFailed} and
 * {@code fireTestIgnored} become a static call to {@code java.jtrace.TestMarks} with the
 * method's arguments, then the original code, unchanged.
 *
 * <p>Inserting a block of a multiple of four bytes, which never branches, before the
 * code keeps every relative branch offset and the padding of every {@code tableswitch} and
 * {@code lookupswitch}; the absolute offsets of the exception table, {@code LineNumberTable},
 * {@code LocalVariableTable}, {@code LocalVariableTypeTable} and of the first
 * {@code StackMapTable} frame move by the block's size; {@code max_stack} grows to at least
 * 2. A method with any other code attribute, a class the parser does not understand or a
 * method that would outgrow 65535 bytes makes the transformer return null: the class is
 * loaded untouched and its tests are traced without marks.
 */
final class JUnitPatch implements ClassFileTransformer {
    static final String TEST_RESULT = "junit/framework/TestResult";
    static final String RUN_NOTIFIER = "org/junit/runner/notification/RunNotifier";
    static final String MARKS = "java/jtrace/TestMarks";

    private static final String ONE = "(Ljava/lang/Object;)V";
    private static final String TWO = "(Ljava/lang/Object;Ljava/lang/Object;)V";

    /** TestMarks' methods (name, descriptor) the patched code calls. */
    private static final String[][] MARKERS = {
        {"start", ONE}, {"end", ONE}, {"failed", TWO}, {"failure", ONE}, {"ignored", ONE},
    };

    /** The hooked methods: name, descriptor, index in MARKERS. */
    private static final Object[][] TEST_RESULT_HOOKS = {
        {"startTest", "(Ljunit/framework/Test;)V", 0},
        {"endTest", "(Ljunit/framework/Test;)V", 1},
        {"addError", "(Ljunit/framework/Test;Ljava/lang/Throwable;)V", 2},
        {"addFailure", "(Ljunit/framework/Test;Ljunit/framework/AssertionFailedError;)V", 2},
    };

    private static final Object[][] RUN_NOTIFIER_HOOKS = {
        {"fireTestStarted", "(Lorg/junit/runner/Description;)V", 0},
        {"fireTestFinished", "(Lorg/junit/runner/Description;)V", 1},
        {"fireTestFailure", "(Lorg/junit/runner/notification/Failure;)V", 3},
        {"fireTestAssumptionFailed", "(Lorg/junit/runner/notification/Failure;)V", 3},
        {"fireTestIgnored", "(Lorg/junit/runner/Description;)V", 4},
    };

    @Override
    public byte[] transform(
            ClassLoader loader, String name, Class<?> redefined, ProtectionDomain pd, byte[] bytes) {
        if (redefined != null) {
            return null;
        }
        Object[][] hooks = TEST_RESULT.equals(name) ? TEST_RESULT_HOOKS
                : RUN_NOTIFIER.equals(name) ? RUN_NOTIFIER_HOOKS : null;
        if (hooks == null) {
            return null;
        }
        try {
            return patch(bytes, hooks);
        } catch (RuntimeException | IOException e) {
            return null;
        }
    }

    /** The patched class, or null if it has none of the methods or cannot be patched. */
    static byte[] patch(byte[] c, Object[][] hooks) throws IOException {
        In in = new In(c);
        if (in.u4() != 0xCAFEBABE) {
            return null;
        }
        in.u2();
        in.u2();
        int count = in.u2();
        String[] utf8 = new String[count];
        for (int i = 1; i < count; i++) {
            int tag = in.u1();
            switch (tag) {
                case 1:
                    int len = in.u2();
                    utf8[i] = new String(c, in.at, len, StandardCharsets.ISO_8859_1);
                    in.at += len;
                    break;
                case 7: case 8: case 16: case 19: case 20:
                    in.at += 2;
                    break;
                case 15:
                    in.at += 3;
                    break;
                case 3: case 4: case 9: case 10: case 11: case 12: case 17: case 18:
                    in.at += 4;
                    break;
                case 5: case 6:
                    in.at += 8;
                    i++;
                    break;
                default:
                    return null;
            }
        }
        int poolEnd = in.at;
        // New pool entries, from index `count`: Utf8 MARKS, its Class, then per marker
        // a Utf8 name, a Utf8 descriptor, a NameAndType and a Methodref (4 entries).
        ByteArrayOutputStream poolAdd = new ByteArrayOutputStream();
        DataOutputStream p = new DataOutputStream(poolAdd);
        p.writeByte(1);
        p.writeUTF(MARKS);
        p.writeByte(7);
        p.writeShort(count);
        for (int k = 0; k < MARKERS.length; k++) {
            int at = count + 2 + 4 * k;
            p.writeByte(1);
            p.writeUTF(MARKERS[k][0]);
            p.writeByte(1);
            p.writeUTF(MARKERS[k][1]);
            p.writeByte(12);
            p.writeShort(at);
            p.writeShort(at + 1);
            p.writeByte(10);
            p.writeShort(count + 1);
            p.writeShort(at + 2);
        }
        int added = 2 + 4 * MARKERS.length;
        if (count + added > 0xFFFF) {
            return null;
        }

        ByteArrayOutputStream out = new ByteArrayOutputStream(c.length + 256);
        DataOutputStream o = new DataOutputStream(out);
        o.write(c, 0, 8);
        o.writeShort(count + added);
        o.write(c, 10, poolEnd - 10);
        poolAdd.writeTo(o);

        in.at += 6; // access, this, super
        int interfaces = in.u2();
        in.at += 2 * interfaces;
        int fields = in.u2();
        for (int f = 0; f < fields; f++) {
            in.at += 6;
            skipAttributes(in);
        }
        o.write(c, poolEnd, in.at - poolEnd);
        int methods = in.u2();
        o.writeShort(methods);
        int patched = 0;
        for (int m = 0; m < methods; m++) {
            int start = in.at;
            int access = in.u2();
            String mname = utf8[in.u2()];
            String mdesc = utf8[in.u2()];
            int hook = -1;
            for (Object[] h : hooks) {
                if (h[0].equals(mname) && h[1].equals(mdesc)) {
                    hook = (Integer) h[2];
                }
            }
            if (hook < 0 || (access & 0x0508) != 0) { // static, native, abstract
                skipAttributes(in);
                o.write(c, start, in.at - start);
                continue;
            }
            o.write(c, start, 6);
            int attrs = in.u2();
            o.writeShort(attrs);
            for (int a = 0; a < attrs; a++) {
                int aname = in.u2();
                int alen = in.u4();
                int body = in.at;
                in.at += alen;
                if (!"Code".equals(utf8[aname])) {
                    o.write(c, body - 6, alen + 6);
                    continue;
                }
                int ref = count + 2 + 4 * hook + 3;
                byte[] prefix = MARKERS[hook][1].equals(ONE)
                        ? new byte[] {0x2b, (byte) 0xb8, (byte) (ref >> 8), (byte) ref}
                        : new byte[] {0x2b, 0x2c, (byte) 0xb8, (byte) (ref >> 8), (byte) ref, 0, 0, 0};
                byte[] code = code(c, body, alen, prefix, utf8);
                if (code == null) {
                    return null;
                }
                o.writeShort(aname);
                o.writeInt(code.length);
                o.write(code);
                patched++;
            }
        }
        if (patched == 0) {
            return null;
        }
        o.write(c, in.at, c.length - in.at); // class attributes
        return out.toByteArray();
    }

    /** A Code attribute's body with `prefix` before the code, or null. */
    private static byte[] code(byte[] c, int body, int len, byte[] prefix, String[] utf8)
            throws IOException {
        int shift = prefix.length;
        In in = new In(c);
        in.at = body;
        int maxStack = in.u2();
        int maxLocals = in.u2();
        int codeLen = in.u4();
        if (codeLen + shift > 0xFFFF) {
            return null;
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream(len + 16);
        DataOutputStream o = new DataOutputStream(out);
        o.writeShort(Math.max(maxStack, 2));
        o.writeShort(maxLocals);
        o.writeInt(codeLen + shift);
        o.write(prefix);
        o.write(c, in.at, codeLen);
        in.at += codeLen;
        int handlers = in.u2();
        o.writeShort(handlers);
        for (int h = 0; h < handlers; h++) {
            o.writeShort(in.u2() + shift);
            o.writeShort(in.u2() + shift);
            o.writeShort(in.u2() + shift);
            o.writeShort(in.u2());
        }
        int attrs = in.u2();
        o.writeShort(attrs);
        for (int a = 0; a < attrs; a++) {
            int aname = in.u2();
            int alen = in.u4();
            int at = in.at;
            in.at += alen;
            String n = utf8[aname];
            o.writeShort(aname);
            if ("LineNumberTable".equals(n)) {
                o.writeInt(alen);
                int k = u2(c, at);
                o.writeShort(k);
                for (int i = 0; i < k; i++) {
                    o.writeShort(u2(c, at + 2 + 4 * i) + shift);
                    o.writeShort(u2(c, at + 4 + 4 * i));
                }
            } else if ("LocalVariableTable".equals(n) || "LocalVariableTypeTable".equals(n)) {
                o.writeInt(alen);
                int k = u2(c, at);
                o.writeShort(k);
                for (int i = 0; i < k; i++) {
                    int e = at + 2 + 10 * i;
                    o.writeShort(u2(c, e) + shift);
                    o.write(c, e + 2, 8);
                }
            } else if ("StackMapTable".equals(n)) {
                byte[] frames = frames(c, at, alen, shift);
                if (frames == null) {
                    return null;
                }
                o.writeInt(frames.length);
                o.write(frames);
            } else {
                return null;
            }
        }
        return out.toByteArray();
    }

    /** A StackMapTable whose first frame is `shift` bytes later, or null. */
    private static byte[] frames(byte[] c, int at, int len, int shift) throws IOException {
        int k = u2(c, at);
        if (k == 0) {
            return java.util.Arrays.copyOfRange(c, at, at + len);
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream(len + 2);
        DataOutputStream o = new DataOutputStream(out);
        o.writeShort(k);
        int type = c[at + 2] & 0xFF;
        int rest; // where the first frame's remaining bytes start
        if (type < 64 || (type >= 64 && type < 128)) {
            boolean item = type >= 64;
            int delta = (item ? type - 64 : type) + shift;
            if (delta < 64) {
                o.writeByte((item ? 64 : 0) + delta);
            } else {
                o.writeByte(item ? 247 : 251);
                o.writeShort(delta);
            }
            rest = at + 3;
        } else if (type >= 247) {
            o.writeByte(type);
            o.writeShort(u2(c, at + 3) + shift);
            rest = at + 5;
        } else {
            return null;
        }
        o.write(c, rest, at + len - rest);
        return out.toByteArray();
    }

    private static void skipAttributes(In in) {
        int n = in.u2();
        for (int i = 0; i < n; i++) {
            in.at += 2;
            int len = in.u4();
            in.at += len;
        }
    }

    private static int u2(byte[] c, int at) {
        return ((c[at] & 0xFF) << 8) | (c[at + 1] & 0xFF);
    }

    /** A cursor over the class bytes (an index out of range ends the patch). */
    private static final class In {
        final byte[] c;
        int at;

        In(byte[] c) {
            this.c = c;
        }

        int u1() {
            return c[at++] & 0xFF;
        }

        int u2() {
            int v = JUnitPatch.u2(c, at);
            at += 2;
            return v;
        }

        int u4() {
            int v = (u2() << 16) | u2();
            return v;
        }
    }
}
