// What a build-tool plugin carries (the -javaagent jar, the jtrace command) and how it runs it.
package jtrace.plugin;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import jtrace.agent.Extract;

/**
 * The files a jtrace build-tool plugin (Maven's, Gradle's) carries inside its own jar, under
 * {@code jtrace/carried/}: {@code jtrace-agent.jar} (the {@code -javaagent} jar, which carries
 * libjtrace.so) and {@code PLATFORM/jtrace} (the command that reads traces), listed with their
 * SHA-256 in {@code jtrace/carried/SHA256SUMS}. Each is extracted once per content by
 * {@link Extract}, as the agent jar's own loader extracts its library (a private directory per
 * user, a temporary file renamed into place). The plugin needs nothing on the machine but the
 * JDK.
 */
public final class Carried {
    private static final String DIR = "/jtrace/carried/";

    private final Map<String, String> sums = new LinkedHashMap<>();

    /** Reads the list of what this jar carries. */
    public Carried() throws IOException {
        String list = text(DIR + "SHA256SUMS");
        if (list == null) {
            throw new IOException("this jtrace plugin jar carries no " + DIR + "SHA256SUMS");
        }
        for (String line : list.split("\n")) {
            String[] f = line.trim().split("\\s+", 2);
            if (f.length == 2) {
                sums.put(f[1], f[0]);
            }
        }
    }

    /** The {@code -javaagent} jar, extracted. */
    public Path agentJar() throws IOException {
        return extract("jtrace-agent.jar", false);
    }

    /** The jtrace command for this machine, extracted and executable. */
    public Path command() throws IOException {
        String p = Extract.platform();
        String name = p + "/jtrace";
        if (p == null || !sums.containsKey(name)) {
            throw new IOException("this plugin carries no jtrace command for "
                    + System.getProperty("os.name") + " " + System.getProperty("os.arch")
                    + " (it has " + platforms() + ")");
        }
        return extract(name, true);
    }

    private String platforms() {
        List<String> out = new ArrayList<>();
        for (String n : sums.keySet()) {
            if (n.endsWith("/jtrace")) {
                out.add(n.substring(0, n.length() - "/jtrace".length()));
            }
        }
        return String.join(", ", out);
    }

    /** The JVM argument that loads the agent: {@code -javaagent:JAR=OPTIONS}. */
    public static String javaagent(Path jar, String options) {
        return "-javaagent:" + jar + (options.isEmpty() ? "" : "=" + options);
    }

    /** {@code arg} quoted for a command line split at spaces (surefire's argLine) when it holds one. */
    public static String word(String arg) {
        return arg.indexOf(' ') >= 0 ? "\"" + arg + "\"" : arg;
    }

    /**
     * The agent options: {@code out=} (the trace per test JVM, {@code %p} its pid), then the
     * user's, one {@code KEY=VALUE} per item.
     */
    public static String options(Path out, List<String> items) throws IOException {
        StringBuilder b = new StringBuilder("out=").append(out);
        for (String item : items) {
            String i = item.trim();
            if (i.isEmpty()) {
                continue;
            }
            int eq = i.indexOf('=');
            if (eq <= 0 || i.indexOf(',') >= 0) {
                throw new IOException("agent option \"" + i + "\": one KEY=VALUE per item "
                        + "(lines=on, include=com.example.*, alloc=exact; see docs/OPTIONS.md)");
            }
            if (i.substring(0, eq).equals("out")) {
                throw new IOException("agent option \"" + i + "\": the plugin names the trace "
                        + "files itself (one per test JVM under its directory)");
            }
            b.append(',').append(i);
        }
        return b.toString();
    }

    /**
     * Runs {@code jtrace ARGS} in {@code dir}, each line it prints handed to {@code out}
     * (stdout and stderr together); its exit code.
     */
    public int run(List<String> args, File dir, Consumer<String> out) throws IOException {
        List<String> cmd = new ArrayList<>();
        cmd.add(command().toString());
        cmd.addAll(args);
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(dir).redirectErrorStream(true);
        Process p = pb.start();
        p.getOutputStream().close();
        try (BufferedReader r = new BufferedReader(
                new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = r.readLine()) != null) {
                out.accept(line);
            }
        }
        try {
            return p.waitFor();
        } catch (InterruptedException e) {
            p.destroy();
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while jtrace ran", e);
        }
    }

    /** The traces under {@code dir} (the newest build's: the plugin empties it first). */
    public static List<String> traces(File dir) {
        List<String> out = new ArrayList<>();
        String[] names = dir.list();
        if (names != null) {
            java.util.Arrays.sort(names);
            for (String n : names) {
                if (n.endsWith(".jtr")) {
                    out.add(new File(dir, n).getPath());
                }
            }
        }
        return out;
    }

    /**
     * Removes the traces an earlier build left under {@code dir}, and what was made of them
     * ({@link Answers#OUTPUTS}, {@code NAME.html} beside {@code NAME.jtr}): (how many traces).
     */
    public static int clear(File dir) throws IOException {
        int n = 0;
        for (String t : traces(dir)) {
            Files.delete(Paths.get(t));
            Files.deleteIfExists(Paths.get(t.substring(0, t.length() - ".jtr".length()) + ".html"));
            n++;
        }
        for (String out : Answers.OUTPUTS) {
            Files.deleteIfExists(new File(dir, out).toPath());
        }
        return n;
    }

    private Path extract(String name, boolean executable) throws IOException {
        String sum = sums.get(name);
        if (sum == null) {
            throw new IOException("this plugin jar carries no " + name);
        }
        return Extract.extract(Carried.class, DIR + name, sum, name.substring(name.lastIndexOf('/') + 1),
                executable);
    }

    private static String text(String resource) throws IOException {
        try (InputStream in = Carried.class.getResourceAsStream(resource)) {
            return in == null ? null : new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }
}
