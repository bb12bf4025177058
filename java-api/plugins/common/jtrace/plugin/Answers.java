// What a build-tool plugin makes of a build's traces: the report and the gate, by the carried jtrace command.
package jtrace.plugin;

import java.io.File;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;

/**
 * The answers the Maven and Gradle plugins give on the traces of a build's test JVMs, one
 * {@code jtrace} command each, so that both plugins give the same files:
 * {@link #report} writes the per-test summary ({@code tests.txt}, {@code tests.md},
 * {@code tests.json}), coverage ({@code coverage.info} for lcov, {@code jacoco.xml}) and one
 * HTML report per trace ({@code NAME.html}) beside the traces; {@link #gate} judges them
 * against a committed baseline ({@code jtrace gate}).
 */
public final class Answers {
    /** What {@link #gate} returns when there is nothing to judge. */
    public static final int NO_TRACES = -1;

    /** The files the report and the gate write beside the traces, but the HTML per trace. */
    static final String[] OUTPUTS = {
        "tests.txt", "tests.md", "tests.json", "coverage.info", "jacoco.xml", "gate.md", "gate.xml",
    };

    private final Carried carried;
    private final File dir;
    private final Consumer<String> log;

    /** Answers on the traces in {@code dir}, written there, progress to {@code log}. */
    public Answers(Carried carried, File dir, Consumer<String> log) {
        this.carried = carried;
        this.dir = dir;
        this.log = log;
    }

    /**
     * The report; {@code sourceRoots} are the main source directories coverage is reported
     * for. Throws when a command fails (its output is in the log).
     */
    public List<File> report(List<File> sourceRoots) throws IOException {
        List<String> traces = Carried.traces(dir);
        List<File> made = new ArrayList<>();
        if (traces.isEmpty()) {
            log.accept("jtrace: no traces under " + dir + " (did the tests run with the agent?)");
            return made;
        }
        made.add(run(traces, "tests.txt", "tests"));
        made.add(run(traces, "tests.md", "tests", "--markdown"));
        made.add(run(traces, "tests.json", "tests", "--json"));
        List<String> roots = new ArrayList<>();
        for (File r : sourceRoots) {
            if (r.isDirectory()) {
                roots.add("--source-root");
                roots.add(r.getPath());
            }
        }
        if (!roots.isEmpty()) {
            for (String out : new String[] {"coverage.info", "jacoco.xml"}) {
                List<String> args = new ArrayList<>(Arrays.asList("coverage", "-o", out));
                args.addAll(roots);
                args.addAll(traces);
                made.add(jtrace(args, out));
            }
        }
        for (String t : traces) {
            String name = new File(t).getName();
            String html = name.substring(0, name.length() - ".jtr".length()) + ".html";
            made.add(jtrace(Arrays.asList("report", "--html", "-o", html, t), html));
        }
        return made;
    }

    /**
     * {@code jtrace gate --baseline BASELINE} on the traces, with {@code gate.md} and
     * {@code gate.xml} (JUnit XML) beside them; {@code update} learns or refreshes the
     * baseline instead ({@code jtrace baseline}, or {@code gate --update}). Returns the
     * command's exit code: 0 passed, 1 a count rose, 2 an error; {@link #NO_TRACES} when there
     * are no traces (tests skipped), said in the log.
     */
    public int gate(File baseline, List<String> options, boolean update) throws IOException {
        List<String> traces = Carried.traces(dir);
        if (traces.isEmpty()) {
            log.accept("jtrace: no traces under " + dir + " to gate (tests skipped, or no "
                    + "test JVM ran with the agent): the gate is skipped");
            return NO_TRACES;
        }
        List<String> args = new ArrayList<>();
        if (update && !baseline.exists()) {
            args.addAll(Arrays.asList("baseline", "-o", baseline.getPath()));
        } else {
            args.addAll(Arrays.asList("gate", "--baseline", baseline.getPath(),
                    "--markdown", "gate.md", "--junit-xml", "gate.xml"));
            args.addAll(options);
            if (update) {
                args.add("--update");
            }
        }
        args.addAll(traces);
        return carried.run(args, dir, log);
    }

    /** {@code jtrace ARGS TRACES > OUT}: the command's stdout into {@code OUT}. */
    private File run(List<String> traces, String out, String... args) throws IOException {
        List<String> a = new ArrayList<>(Arrays.asList(args));
        a.add("-o");
        a.add(out);
        a.addAll(traces);
        return jtrace(a, out);
    }

    private File jtrace(List<String> args, String out) throws IOException {
        int code = carried.run(args, dir, log);
        if (code != 0) {
            throw new IOException("jtrace " + args.get(0) + " exited with " + code
                    + " (its words are above)");
        }
        return new File(dir, out);
    }
}
