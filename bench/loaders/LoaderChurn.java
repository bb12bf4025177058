// Loader churn for `cargo xtask bench-loaders`: N short-lived URLClassLoaders each load
// LoaderChurnFoo, every other one links it and calls it once (a script engine, a test
// runner, a redeploying server). Prints the process's resident memory after a warm-up
// and after the churn (each after collections), so the harness can compare the growth
// with and without the agent.

import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.IntUnaryOperator;

public class LoaderChurn {
    static long rssKb() throws Exception {
        for (String l : Files.readAllLines(Path.of("/proc/self/status"))) {
            if (l.startsWith("VmRSS:")) {
                return Long.parseLong(l.replaceAll("[^0-9]", ""));
            }
        }
        return -1;
    }

    static long churn(URL dir, int n) throws Exception {
        ClassLoader parent = ClassLoader.getPlatformClassLoader();
        long s = 0;
        for (int i = 0; i < n; i++) {
            URLClassLoader l = new URLClassLoader(new URL[] {dir}, parent);
            Class<?> c = Class.forName("LoaderChurnFoo", i % 2 == 0, l);
            if (i % 2 == 0) {
                java.lang.reflect.Constructor<?> k = c.getDeclaredConstructor();
                k.setAccessible(true);
                s += ((IntUnaryOperator) k.newInstance()).applyAsInt(i);
            }
            l.close();
            if (i % 5_000 == 4_999) {
                System.gc();
            }
        }
        return s;
    }

    static void settle() throws Exception {
        for (int i = 0; i < 5; i++) {
            System.gc();
            Thread.sleep(50);
        }
    }

    public static void main(String[] args) throws Exception {
        int n = Integer.parseInt(args[0]);
        URL dir = LoaderChurn.class.getProtectionDomain().getCodeSource().getLocation();
        long s = churn(dir, 10_000);
        settle();
        long before = rssKb();
        s += churn(dir, n);
        settle();
        long after = rssKb();
        System.out.println("loaders " + n + " rss-before-kb " + before + " rss-after-kb " + after
                + " sum " + s);
    }
}

class LoaderChurnFoo implements IntUnaryOperator {
    @Override
    public int applyAsInt(int x) {
        return x + 1;
    }
}
