// Class unloading: ClassUnloadVictim (a traced class: default package) is loaded by a
// throwaway URLClassLoader whose parent is the boot loader, so the application loader never
// loads it; it is used once, every reference is dropped, and System.gc() runs until a weak
// reference shows the loader collected (class and loader die in the same collection). A few
// more collections, with short pauses, give an agent that learns of the unload after the GC
// (JVMTI ObjectFree is posted by the service thread) a bracket to report it in.
// jtrace-compare-modes: no

import java.lang.ref.WeakReference;
import java.lang.reflect.Constructor;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.function.IntUnaryOperator;

public class ClassUnload {
    static int result;

    static WeakReference<ClassLoader> useAndDrop(URL dir) throws Exception {
        URLClassLoader loader = new URLClassLoader(new URL[] {dir}, null);
        Class<?> c = Class.forName("ClassUnloadVictim", true, loader);
        // The victim is package-private in another runtime package (other loader).
        Constructor<?> make = c.getDeclaredConstructor();
        make.setAccessible(true);
        IntUnaryOperator op = (IntUnaryOperator) make.newInstance();
        result = op.applyAsInt(20);
        loader.close();
        return new WeakReference<>(loader);
    }

    public static void main(String[] args) throws Exception {
        URL dir = ClassUnload.class.getProtectionDomain().getCodeSource().getLocation();
        WeakReference<ClassLoader> ref = useAndDrop(dir);
        int gcs = 0;
        while (ref.get() != null && gcs < 100) {
            System.gc();
            gcs++;
        }
        if (ref.get() != null) {
            throw new AssertionError("the class loader was not collected after " + gcs + " GCs");
        }
        for (int i = 0; i < 3; i++) {
            Thread.sleep(20);
            System.gc();
            gcs++;
        }
        System.out.println("EXPECT unloaded ClassUnloadVictim");
        System.out.println("EXPECT gc-at-least " + gcs);
        System.out.println("EXPECT calls ClassUnloadVictim.-init- 1");
        System.out.println("EXPECT calls ClassUnloadVictim.applyAsInt " + (result == 42 ? 1 : 0));
        System.out.println("EXPECT exit-code 0");
    }
}

class ClassUnloadVictim implements IntUnaryOperator {
    @Override
    public int applyAsInt(int x) {
        return 2 * x + 2;
    }
}
