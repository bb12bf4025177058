// For `cargo xtask test` step control, case blind-loader: a class loader that delegates only
// java.lang.* names (by name, to the boot loader) and defines BlindPayload itself. It cannot
// see the tracker (java.jtrace.Tracker), so BlindPayload must run untouched: the program
// prints "result 4950" with or without the agent, and the agent says once which loader.
import java.io.InputStream;

public class Blind {
    static final class OnlyJavaLang extends ClassLoader {
        OnlyJavaLang() {
            super(null);
        }

        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            synchronized (getClassLoadingLock(name)) {
                Class<?> c = findLoadedClass(name);
                if (c != null) {
                    return c;
                }
                if (name.startsWith("java.lang.")) {
                    return super.loadClass(name, resolve);
                }
                if (name.equals("BlindPayload")) {
                    try (InputStream in = Blind.class.getResourceAsStream("/BlindPayload.class")) {
                        byte[] b = in.readAllBytes();
                        return defineClass(name, b, 0, b.length);
                    } catch (java.io.IOException e) {
                        throw new ClassNotFoundException(name, e);
                    }
                }
                throw new ClassNotFoundException(name);
            }
        }
    }

    public static void main(String[] args) throws Exception {
        Class<?> c = new OnlyJavaLang().loadClass("BlindPayload");
        Object r = c.getMethod("run", int.class).invoke(null, 100);
        System.out.println("result " + r);
    }
}
