// Many short-lived loaders (a script engine compiling each script into a fresh loader, a
// test runner isolating each test class, a server redeploying an application): each of
// 20,000 loaders loads ManyLoadersFoo; every other one links it and calls it once. Every
// call is counted, every linked class is defined once under its own loader, and nothing
// is repaired. Collections run in between, so classes and loaders are unloaded as it goes.
// jtrace-compare-modes: no
// jtrace-timeout: 180

import java.net.URL;
import java.net.URLClassLoader;
import java.util.function.IntUnaryOperator;

public class ManyLoaders {
    public static void main(String[] args) throws Exception {
        URL dir = ManyLoaders.class.getProtectionDomain().getCodeSource().getLocation();
        ClassLoader parent = ClassLoader.getPlatformClassLoader();
        int loaders = 20_000;
        int called = 0;
        long s = 0;
        for (int i = 0; i < loaders; i++) {
            URLClassLoader l = new URLClassLoader(new URL[] {dir}, parent);
            boolean call = i % 2 == 0;
            Class<?> c = Class.forName("ManyLoadersFoo", call, l);
            if (call) {
                java.lang.reflect.Constructor<?> k = c.getDeclaredConstructor();
                k.setAccessible(true);
                s += ((IntUnaryOperator) k.newInstance()).applyAsInt(i);
                called++;
            }
            l.close();
            if (i % 5_000 == 4_999) {
                System.gc();
            }
        }
        System.err.println("sum " + s);
        System.out.println("EXPECT calls ManyLoadersFoo.applyAsInt " + called);
        System.out.println("EXPECT calls ManyLoadersFoo.-init- " + called);
        // Every loaded class is defined (at its load), linked or not.
        System.out.println("EXPECT classdefs ManyLoadersFoo " + loaders);
        System.out.println("EXPECT class-loader ManyLoadersFoo java.net.URLClassLoader");
        System.out.println("EXPECT exit-code 0");
    }
}

class ManyLoadersFoo implements IntUnaryOperator {
    @Override
    public int applyAsInt(int x) {
        return x + 1;
    }
}
