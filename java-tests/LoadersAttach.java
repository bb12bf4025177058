// Attached while classes of an isolating loader (delegates only java.*, null parent,
// like Ant's AntClassLoader or an OSGi bundle loader) are running: the agent rewrites
// them, and every call after the attach must still work. A class that the same loader
// defines after the attach is traced exactly.
// jtrace-attach: yes
// jtrace-compare-modes: no
// jtrace-timeout: 60

import java.util.function.IntUnaryOperator;

public class LoadersAttach {
    static boolean agentIn() {
        try {
            Class.forName("java.jtrace.Tracker", false, null);
            return true;
        } catch (ClassNotFoundException e) {
            return false;
        }
    }

    static IntUnaryOperator make(ClassLoader loader, String name) throws Exception {
        Class<?> c = Class.forName(name, true, loader);
        if (c.getClassLoader() != loader) {
            throw new AssertionError(name + " came from " + c.getClassLoader());
        }
        java.lang.reflect.Constructor<?> k = c.getDeclaredConstructor();
        k.setAccessible(true);
        return (IntUnaryOperator) k.newInstance();
    }

    public static void main(String[] args) throws Exception {
        ClassLoader loader = new Loaders.Isolating();
        IntUnaryOperator before = make(loader, "LoadersWork");
        int s = 0;
        for (int i = 0; i < 1000; i++) {
            s += before.applyAsInt(i);
        }
        System.out.println("READY");
        System.out.flush();
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (!agentIn()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("the agent never attached");
            }
            // Keep the loader's classes running across the attach.
            s += before.applyAsInt(s & 7);
            Thread.sleep(1);
        }
        Thread.sleep(500);
        // Classes loaded before the attach keep working after their rewrite.
        for (int i = 0; i < 1000; i++) {
            s += before.applyAsInt(i);
        }
        // A class defined by the same loader after the attach: traced exactly.
        IntUnaryOperator after = make(loader, "LoadersDefined");
        for (int i = 0; i < 40; i++) {
            s += after.applyAsInt(i);
        }
        System.err.println("sum " + s);
        System.out.println("EXPECT calls LoadersDefined.applyAsInt 40");
        System.out.println("EXPECT calls LoadersDefined.-init- 1");
        System.out.println("EXPECT exit-code 0");
    }
}
