// PartlyTraced (lines=on): a method near the JVM's 64 KiB of code. Big.big, compiled at run
// time from 8,000 one-statement lines (24 KB of bytecode), would pass 64 KiB with a line probe
// per line: in bci mode it keeps its entry and exit probes and loses its line probes, which
// the agent says on stderr and in traceEnd (partlyInstrumentedMethods,
// partlyInstrumentedMethod), while Big.small, in the same class, keeps its lines. Its calls
// are all traced in both modes; jvmti mode, which rewrites nothing, keeps every line.
// jtrace-options: lines=on
// jtrace-compare-modes: no
// jtrace-timeout: 120

import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;

public class PartlyTraced {
    static final int LINES = 8000;
    static final int CALLS = 3;

    public static void main(String[] args) throws Exception {
        Path dir = Files.createTempDirectory("partly-traced");
        StringBuilder src = new StringBuilder("public class Big {\n");
        src.append("    public static int big(int x) {\n");
        for (int i = 0; i < LINES; i++) {
            src.append("        x += ").append(i % 7 + 1).append(";\n");
        }
        src.append("        return x;\n    }\n");
        // Its line: the header lines, the statements, `return` and `}`, then this one.
        int smallLine = 2 + LINES + 2 + 1;
        src.append("    public static int small(int x) { return x + 1; }\n}\n");
        Path file = dir.resolve("Big.java");
        Files.writeString(file, src);
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        int rc = javac.run(null, null, null, "-g", "-d", dir.toString(), file.toString());
        if (rc != 0) {
            throw new IllegalStateException("javac exited " + rc);
        }
        long sum = 0;
        try (URLClassLoader loader = new URLClassLoader(new URL[] {dir.toUri().toURL()})) {
            Class<?> big = loader.loadClass("Big");
            Method m = big.getMethod("big", int.class);
            Method s = big.getMethod("small", int.class);
            for (int k = 0; k < CALLS; k++) {
                sum += (Integer) m.invoke(null, k) + (Integer) s.invoke(null, k);
            }
        }
        // Each call of big adds the same 8,000 increments to its argument.
        long perCall = 0;
        for (int i = 0; i < LINES; i++) {
            perCall += i % 7 + 1;
        }
        long want = 0;
        for (int k = 0; k < CALLS; k++) {
            want += perCall + k + k + 1;
        }
        if (sum != want) {
            throw new IllegalStateException("Big computed " + sum + ", not " + want);
        }
        System.out.println("EXPECT calls Big.big " + CALLS);
        System.out.println("EXPECT calls Big.small " + CALLS);
        System.out.println("EXPECT lines Big.small " + smallLine);
        System.out.println("EXPECT end-count uninstrumentedClasses 0");
        System.out.println("EXPECT-BCI end-count partlyInstrumentedMethods 1");
        System.out.println("EXPECT-BCI end-note partlyInstrumentedMethod Big.big(I)I: ");
        System.out.println("EXPECT-BCI lines Big.big -");
    }
}
