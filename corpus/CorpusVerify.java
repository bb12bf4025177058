import java.io.IOException;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;

/**
 * Puts classes before the JVM's verifier (run it with -Xverify:all) for cargo xtask corpus.
 *
 * <p>Each class is loaded without initialisation and then linked through
 * getDeclaredMethods() (HotSpot links, hence verifies, the class there). Nothing runs.
 *
 * <p>{@code CorpusVerify jars LIST}: LIST has class names, one per line, each group after a
 * line "@DIR1:DIR2:..." that starts a fresh loader (parent: the platform loader) defining
 * classes from those directories, first one first, plus a stub jtrace.Tracker.
 *
 * <p>{@code CorpusVerify jdk LIST}: LIST has lines "module\tclass.Name"; each class is
 * loaded from its module of the boot layer (run with --add-modules ALL-SYSTEM).
 *
 * <p>Output: "FAIL name\tThrowable: message" for a VerifyError or ClassFormatError (of the
 * class or of one the verifier loaded for it), "OTHER name\tThrowable: message" for any other
 * error (a missing dependency, say), then "DONE linked=N fail=N other=N".
 */
public final class CorpusVerify {
    static final class DirLoader extends ClassLoader {
        private final Path[] dirs;
        private final byte[] tracker;

        DirLoader(Path[] dirs, byte[] tracker) {
            super("corpus", ClassLoader.getPlatformClassLoader());
            this.dirs = dirs;
            this.tracker = tracker;
        }

        @Override
        protected Class<?> findClass(String name) throws ClassNotFoundException {
            if (name.equals("jtrace.Tracker")) {
                return defineClass(name, tracker, 0, tracker.length);
            }
            String rel = name.replace('.', '/') + ".class";
            for (Path d : dirs) {
                Path p = d.resolve(rel);
                if (Files.isRegularFile(p)) {
                    byte[] b;
                    try {
                        b = Files.readAllBytes(p);
                    } catch (IOException e) {
                        throw new ClassNotFoundException(name, e);
                    }
                    return defineClass(name, b, 0, b.length);
                }
            }
            throw new ClassNotFoundException(name);
        }
    }

    private static int linked, fail, other;

    private static String oneLine(Throwable t) {
        String s = t.toString();
        Throwable c = t.getCause();
        if (c != null && c != t) {
            s += " (cause: " + c + ")";
        }
        return s.replace('\n', ' ').replace('\r', ' ');
    }

    private static void check(String name, Class<?> cls) {
        try {
            Method[] ms = cls.getDeclaredMethods();
            if (ms == null) {
                throw new AssertionError("no methods array");
            }
            linked++;
        } catch (VerifyError | ClassFormatError e) {
            fail++;
            System.out.println("FAIL " + name + "\t" + oneLine(e));
        } catch (Throwable t) {
            other++;
            System.out.println("OTHER " + name + "\t" + oneLine(t));
        }
    }

    private static void failed(String name, Throwable t) {
        if (t instanceof VerifyError || t instanceof ClassFormatError) {
            fail++;
            System.out.println("FAIL " + name + "\t" + oneLine(t));
        } else {
            other++;
            System.out.println("OTHER " + name + "\t" + oneLine(t));
        }
    }

    public static void main(String[] args) throws IOException {
        List<String> lines = Files.readAllLines(Paths.get(args[1]));
        if (args[0].equals("jars")) {
            byte[] tracker;
            try (var in = CorpusVerify.class.getResourceAsStream("/jtrace/Tracker.class")) {
                tracker = in.readAllBytes();
            }
            DirLoader loader = null;
            for (String line : lines) {
                if (line.startsWith("@")) {
                    String[] parts = line.substring(1).split(":");
                    Path[] ps = new Path[parts.length];
                    for (int i = 0; i < parts.length; i++) {
                        ps[i] = Paths.get(parts[i]);
                    }
                    loader = new DirLoader(ps, tracker);
                    continue;
                }
                String name = line;
                Class<?> cls;
                try {
                    cls = Class.forName(name, false, loader);
                } catch (Throwable t) {
                    failed(name, t);
                    continue;
                }
                check(name, cls);
            }
        } else {
            for (String line : lines) {
                int tab = line.indexOf('\t');
                String module = line.substring(0, tab);
                String name = line.substring(tab + 1);
                Class<?> cls;
                try {
                    Module m = ModuleLayer.boot().findModule(module).orElse(null);
                    if (m == null) {
                        other++;
                        System.out.println("OTHER " + name + "\tmodule " + module + " not in the boot layer");
                        continue;
                    }
                    cls = Class.forName(m, name);
                    if (cls == null) {
                        other++;
                        System.out.println("OTHER " + name + "\tnot found in module " + module);
                        continue;
                    }
                } catch (Throwable t) {
                    failed(name, t);
                    continue;
                }
                check(name, cls);
            }
        }
        System.out.println("DONE linked=" + linked + " fail=" + fail + " other=" + other);
    }
}
