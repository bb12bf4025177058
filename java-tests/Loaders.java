// Probes reach classes of every kind of class loader: a loader that delegates only
// java.* and has a null parent (Ant's AntClassLoader, OSGi bundle loaders), a child-first
// loader over the application loader (web applications), a URLClassLoader with a null
// parent, a class defined through Lookup.defineClass, a hidden class and a lambda (run
// untouched: their bytes never pass the load hook), and a JDK proxy whose handler is
// traced. Every traced class must run exactly as without the agent, and every call of a
// traced method is counted, whichever loader defined its class.
// In bci mode the isolating loaders are also asked once for java.jtrace.Tracker (the
// probes name it), a traced call of their loadClass that jvmti mode has no reason to make.
// jtrace-compare-modes: no

import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.lang.invoke.MethodHandles;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.function.IntUnaryOperator;

public class Loaders {
    static byte[] bytes(String name) {
        try (InputStream in =
                ClassLoader.getSystemResourceAsStream(name.replace('.', '/') + ".class")) {
            if (in == null) {
                return null;
            }
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            in.transferTo(out);
            return out.toByteArray();
        } catch (Exception e) {
            return null;
        }
    }

    /** Delegates java.* only (to the boot loader: the parent is null); defines the rest. */
    static class Isolating extends ClassLoader {
        Isolating() {
            super(null);
        }

        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            synchronized (getClassLoadingLock(name)) {
                Class<?> c = findLoadedClass(name);
                if (c == null) {
                    if (name.startsWith("java.")) {
                        return super.loadClass(name, resolve);
                    }
                    byte[] b = bytes(name);
                    if (b == null) {
                        throw new ClassNotFoundException(name);
                    }
                    c = defineClass(name, b, 0, b.length);
                }
                if (resolve) {
                    resolveClass(c);
                }
                return c;
            }
        }
    }

    /** Child first: its own copy of every class it can find, the parent's only otherwise. */
    static class ChildFirst extends ClassLoader {
        ChildFirst(ClassLoader parent) {
            super(parent);
        }

        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            synchronized (getClassLoadingLock(name)) {
                Class<?> c = findLoadedClass(name);
                if (c == null) {
                    byte[] b = name.startsWith("java.") ? null : bytes(name);
                    c = b != null ? defineClass(name, b, 0, b.length) : getParent().loadClass(name);
                }
                if (resolve) {
                    resolveClass(c);
                }
                return c;
            }
        }
    }

    static int run(ClassLoader loader, int times) throws Exception {
        Class<?> c = Class.forName("LoadersWork", true, loader);
        if (c.getClassLoader() != loader) {
            throw new AssertionError("LoadersWork came from " + c.getClassLoader());
        }
        // Another runtime package (another loader): the constructor is package-private.
        java.lang.reflect.Constructor<?> make = c.getDeclaredConstructor();
        make.setAccessible(true);
        IntUnaryOperator op = (IntUnaryOperator) make.newInstance();
        int s = 0;
        for (int i = 0; i < times; i++) {
            s += op.applyAsInt(i);
        }
        return s;
    }

    static int work;
    static int helper;

    public static void main(String[] args) throws Exception {
        URL dir = Loaders.class.getProtectionDomain().getCodeSource().getLocation();
        int sum = 0;
        sum += run(new Isolating(), 3);
        sum += run(new ChildFirst(Loaders.class.getClassLoader()), 4);
        sum += run(new URLClassLoader(new URL[] {dir}, null), 5);
        work += 3 + 4 + 5;
        helper += 3 + 4 + 5;

        // Lookup.defineClass: a class of this loader and package, from bytes.
        byte[] b = bytes("LoadersDefined");
        Class<?> defined = MethodHandles.lookup().defineClass(b);
        IntUnaryOperator d = (IntUnaryOperator) defined.getDeclaredConstructor().newInstance();
        sum += d.applyAsInt(7) + d.applyAsInt(8);
        int definedCalls = 2;

        // A hidden class: never traced, runs untouched; it calls a traced class.
        byte[] h = bytes("LoadersHidden");
        Class<?> hidden = MethodHandles.lookup().defineHiddenClass(h, true).lookupClass();
        IntUnaryOperator hop = (IntUnaryOperator) hidden.getDeclaredConstructor().newInstance();
        sum += hop.applyAsInt(1);
        helper += 1;

        // A lambda (its class is hidden) whose body is a traced method of this class.
        IntUnaryOperator lambda = x -> LoadersHelper.step(x) + 1;
        sum += lambda.applyAsInt(2) + lambda.applyAsInt(3);
        helper += 2;

        // A JDK proxy: its class is the JDK's, its handler ours.
        InvocationHandler handler = new LoadersHandler();
        IntUnaryOperator p =
                (IntUnaryOperator)
                        Proxy.newProxyInstance(
                                Loaders.class.getClassLoader(),
                                new Class<?>[] {IntUnaryOperator.class},
                                handler);
        for (int i = 0; i < 6; i++) {
            sum += p.applyAsInt(i);
        }
        helper += 6;

        System.err.println("sum " + sum);
        System.out.println("EXPECT calls LoadersWork.applyAsInt " + work);
        System.out.println("EXPECT calls LoadersHelper.step " + helper);
        System.out.println("EXPECT calls LoadersDefined.applyAsInt " + definedCalls);
        System.out.println("EXPECT calls LoadersHandler.invoke 6");
        System.out.println("EXPECT exit-code 0");
    }
}

class LoadersWork implements IntUnaryOperator {
    @Override
    public int applyAsInt(int x) {
        return LoadersHelper.step(x) * 2;
    }
}

class LoadersHelper {
    static int step(int x) {
        return x + 1;
    }
}

class LoadersDefined implements IntUnaryOperator {
    @Override
    public int applyAsInt(int x) {
        return x - 1;
    }
}

class LoadersHidden implements IntUnaryOperator {
    @Override
    public int applyAsInt(int x) {
        return LoadersHelper.step(x);
    }
}

class LoadersHandler implements InvocationHandler {
    @Override
    public Object invoke(Object proxy, Method m, Object[] args) {
        return LoadersHelper.step((Integer) args[0]);
    }
}
