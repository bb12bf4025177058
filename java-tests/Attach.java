// The agent is loaded into the running JVM with `jcmd PID JVMTI.agent_load` once this
// prints READY. Work done by a class loaded after the agent is in must be traced
// exactly; what ran before the attach is simply not in the trace.
// jtrace-attach: yes
// jtrace-compare-modes: no
// jtrace-timeout: 60

public class Attach {
    static int calls;

    static class Work {
        static int step(int i) {
            calls++;
            return i + 1;
        }
    }

    /** Loaded and run before the attach: rewritten by it, defined once, with its loader. */
    static class Early {
        static int f(int i) {
            return i * 3;
        }
    }

    static boolean agentIn() {
        try {
            Class.forName("java.jtrace.Tracker", false, null);
            return true;
        } catch (ClassNotFoundException e) {
            return false;
        }
    }

    public static void main(String[] args) throws Exception {
        int e = 0;
        for (int i = 0; i < 100; i++) {
            e += Early.f(i);
        }
        System.out.println("READY");
        System.out.flush();
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (!agentIn()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("the agent never attached");
            }
            Thread.sleep(10);
        }
        // The attach finishes in the JVM's attach thread; give it a moment to have
        // rewritten the classes already loaded before Work loads.
        Thread.sleep(500);
        int s = 0;
        for (int i = 0; i < 1000; i++) {
            s = Work.step(s);
        }
        for (int i = 0; i < 100; i++) {
            e += Early.f(i);
        }
        System.err.println("early " + e);
        System.out.println("EXPECT classdefs Attach$Early 1");
        System.out.println("EXPECT class-loader Attach$Early jdk.internal.loader.ClassLoaders$AppClassLoader");
        System.out.println("EXPECT class-loader Attach$Work jdk.internal.loader.ClassLoaders$AppClassLoader");
        System.out.println("EXPECT calls Attach$Work.step " + calls);
        System.out.println("EXPECT exits Attach$Work.step " + calls);
    }
}
