// 1,000 class loaders, each defining StressLoadersVictim (a traced class; the
// application loader never loads it since each loader's parent is the boot loader),
// calling it once and dropping it, with a collection after every 100. Then collections
// until every loader is gone and a few more so that the agent (which learns of
// unloads after the GC) can report them. Each definition is a class of its own:
// 1,000 classDefs, each with its own method counted once, 1,000 classUnloads, and no id
// reused while its class is live (tracecheck's id rule).
// jtrace-compare-modes: no
// jtrace-stdout: FIGURE *
// jtrace-timeout: 300

import java.lang.ref.WeakReference;
import java.lang.reflect.Constructor;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntUnaryOperator;

public class StressLoaders {
    static final int LOADERS = 1000;
    static int ok;

    static WeakReference<ClassLoader> useAndDrop(URL dir, int i) throws Exception {
        URLClassLoader loader = new URLClassLoader(new URL[] {dir}, null);
        Class<?> c = Class.forName("StressLoadersVictim", true, loader);
        Constructor<?> make = c.getDeclaredConstructor();
        make.setAccessible(true);
        IntUnaryOperator op = (IntUnaryOperator) make.newInstance();
        if (op.applyAsInt(i) == 2 * i + 2) {
            ok++;
        }
        loader.close();
        return new WeakReference<>(loader);
    }

    static int live(List<WeakReference<ClassLoader>> refs) {
        int n = 0;
        for (WeakReference<ClassLoader> r : refs) {
            if (r.get() != null) {
                n++;
            }
        }
        return n;
    }

    public static void main(String[] args) throws Exception {
        URL dir = StressLoaders.class.getProtectionDomain().getCodeSource().getLocation();
        List<WeakReference<ClassLoader>> refs = new ArrayList<>();
        int gcs = 0;
        long t0 = System.nanoTime();
        for (int i = 0; i < LOADERS; i++) {
            refs.add(useAndDrop(dir, i));
            if (i % 100 == 99) {
                System.gc();
                gcs++;
            }
        }
        while (live(refs) > 0 && gcs < 200) {
            System.gc();
            gcs++;
        }
        if (live(refs) > 0) {
            throw new AssertionError(live(refs) + " loaders still alive after " + gcs + " GCs");
        }
        for (int i = 0; i < 3; i++) {
            Thread.sleep(50);
            System.gc();
            gcs++;
        }
        System.out.println("EXPECT classdefs StressLoadersVictim " + LOADERS);
        System.out.println("EXPECT unloaded-count StressLoadersVictim " + LOADERS);
        System.out.println("EXPECT per-def-calls StressLoadersVictim.applyAsInt " + LOADERS + " 1");
        System.out.println("EXPECT calls StressLoadersVictim.applyAsInt " + ok);
        System.out.println("EXPECT calls StressLoadersVictim.-init- " + LOADERS);
        System.out.println("EXPECT gc-at-least " + gcs);
        System.out.println("EXPECT exit-code 0");
        System.out.println("FIGURE loaders=" + LOADERS + " gcs=" + gcs
                + " ms=" + (System.nanoTime() - t0) / 1_000_000);
    }
}

class StressLoadersVictim implements IntUnaryOperator {
    @Override
    public int applyAsInt(int x) {
        return 2 * x + 2;
    }
}
