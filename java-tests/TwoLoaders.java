// One class name, two loaders (two web applications bundling one library, two OSGi
// bundles): loader A loads TwoLoadersFoo without linking it, its sibling B loads, links and
// runs its own TwoLoadersFoo, then A's runs. Each class keeps its own ids: every call is
// counted on the class that made it, and each classDef names its own loader.

import java.net.URL;
import java.net.URLClassLoader;
import java.util.function.IntUnaryOperator;

public class TwoLoaders {
    static int calls(ClassLoader loader, Class<?> c, int times) throws Exception {
        java.lang.reflect.Constructor<?> k = c.getDeclaredConstructor();
        k.setAccessible(true);
        IntUnaryOperator op = (IntUnaryOperator) k.newInstance();
        int s = 0;
        for (int i = 0; i < times; i++) {
            s += op.applyAsInt(i);
        }
        return s;
    }

    public static void main(String[] args) throws Exception {
        URL dir = TwoLoaders.class.getProtectionDomain().getCodeSource().getLocation();
        ClassLoader parent = ClassLoader.getPlatformClassLoader();
        URLClassLoader a = new URLClassLoader(new URL[] {dir}, parent);
        URLClassLoader b = new URLClassLoader(new URL[] {dir}, parent);
        Class<?> fooA = Class.forName("TwoLoadersFoo", false, a); // loaded, not linked
        Class<?> fooB = Class.forName("TwoLoadersFoo", true, b);
        if (fooA == fooB || fooA.getClassLoader() != a || fooB.getClassLoader() != b) {
            throw new AssertionError("expected two classes named TwoLoadersFoo");
        }
        int s = calls(b, fooB, 5) + calls(a, fooA, 3);
        System.err.println("sum " + s);
        System.out.println("EXPECT classdefs TwoLoadersFoo 2");
        System.out.println("EXPECT class-calls TwoLoadersFoo applyAsInt 3,5");
        System.out.println("EXPECT class-calls TwoLoadersFoo -init- 1,1");
        System.out.println("EXPECT class-loader TwoLoadersFoo java.net.URLClassLoader");
        System.out.println("EXPECT calls TwoLoadersFoo.applyAsInt 8");
        System.out.println("EXPECT exit-code 0");
    }
}

class TwoLoadersFoo implements IntUnaryOperator {
    @Override
    public int applyAsInt(int x) {
        return 2 * x;
    }
}
