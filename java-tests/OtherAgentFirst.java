// Another agent retransforms a traced class mid-run (Mockito's inline mock maker,
// JaCoCo, APM agents, a debugger's hot swap): a java.lang.instrument agent, given on the
// command line before jtrace, changes the constant OtherAgentTarget.v() returns between
// two rounds of 10 calls, keeping the rest of the bytes it is given. The program sees
// the new value, and the trace has one classDef of the class, under its loader, with
// all 20 calls on one method.
// jtrace-javaagent: OtherAgentFirst$Agent first
// jtrace-compare-modes: no

import java.lang.instrument.ClassFileTransformer;
import java.lang.instrument.Instrumentation;
import java.security.ProtectionDomain;

public class OtherAgentFirst {
    /** The other agent: patches one CONSTANT_Integer of the class it is asked to. */
    public static class Agent implements ClassFileTransformer {
        static Instrumentation inst;
        static volatile String target;

        public static void premain(String args, Instrumentation i) {
            inst = i;
            i.addTransformer(new Agent(), true);
        }

        @Override
        public byte[] transform(
                ClassLoader loader,
                String name,
                Class<?> redefined,
                ProtectionDomain pd,
                byte[] bytes) {
            if (redefined == null || !name.equals(target)) {
                return null;
            }
            return patchInt(bytes, OtherAgentTarget.BEFORE, OtherAgentTarget.AFTER);
        }

        /** The class file with CONSTANT_Integer `from` replaced by `to` (walks the pool). */
        static byte[] patchInt(byte[] b, int from, int to) {
            byte[] out = b.clone();
            int count = ((b[8] & 0xff) << 8) | (b[9] & 0xff);
            int p = 10;
            for (int i = 1; i < count; i++) {
                int tag = b[p] & 0xff;
                switch (tag) {
                    case 1 -> p += 3 + (((b[p + 1] & 0xff) << 8) | (b[p + 2] & 0xff));
                    case 3 -> {
                        int v = ((b[p + 1] & 0xff) << 24) | ((b[p + 2] & 0xff) << 16)
                                | ((b[p + 3] & 0xff) << 8) | (b[p + 4] & 0xff);
                        if (v == from) {
                            out[p + 1] = (byte) (to >>> 24);
                            out[p + 2] = (byte) (to >>> 16);
                            out[p + 3] = (byte) (to >>> 8);
                            out[p + 4] = (byte) to;
                        }
                        p += 5;
                    }
                    case 4, 9, 10, 11, 12, 17, 18 -> p += 5;
                    case 5, 6 -> {
                        p += 9;
                        i++;
                    }
                    case 7, 8, 16, 19, 20 -> p += 3;
                    case 15 -> p += 4;
                    default -> throw new IllegalStateException("constant tag " + tag);
                }
            }
            return out;
        }
    }

    static void run(String caseName) throws Exception {
        if (Agent.inst == null) {
            throw new AssertionError("the other agent is not loaded");
        }
        long s = 0;
        for (int i = 0; i < 10; i++) {
            s += OtherAgentTarget.v();
        }
        Agent.target = "OtherAgentTarget";
        Agent.inst.retransformClasses(OtherAgentTarget.class);
        for (int i = 0; i < 10; i++) {
            s += OtherAgentTarget.v();
        }
        long want = 10L * OtherAgentTarget.BEFORE + 10L * OtherAgentTarget.AFTER;
        if (s != want) {
            throw new AssertionError(caseName + ": the retransformation did not take: " + s);
        }
        System.out.println("EXPECT classdefs OtherAgentTarget 1");
        System.out.println("EXPECT class-calls OtherAgentTarget v 20");
        System.out.println("EXPECT calls OtherAgentTarget.v 20");
        System.out.println("EXPECT exits OtherAgentTarget.v 20");
        System.out.println(
                "EXPECT class-loader OtherAgentTarget jdk.internal.loader.ClassLoaders$AppClassLoader");
        System.out.println("EXPECT exit-code 0");
    }

    public static void main(String[] args) throws Exception {
        run("OtherAgentFirst");
    }
}

class OtherAgentTarget {
    static final int BEFORE = 1_000_001;
    static final int AFTER = 2_000_002;

    static int v() {
        return ident(1_000_001);
    }

    static int ident(int x) {
        return x;
    }
}
