// What a Test task does first under io.jtrace: its JVMs get the jtrace agent, old traces go.
package jtrace.gradle;

import java.io.File;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import jtrace.plugin.Carried;
import org.gradle.api.Action;
import org.gradle.api.GradleException;
import org.gradle.api.Task;
import org.gradle.api.tasks.testing.Test;

/**
 * The action each {@code Test} task runs first ({@code doFirst}; Gradle 4.4 has no
 * {@code jvmArgumentProviders}): it empties {@code build/jtrace/TASK/} of the traces an
 * earlier run left and appends
 * {@code -javaagent:jtrace-agent.jar=out=DIR/jtrace-%p.jtr,OPTIONS} to the task's JVM
 * arguments, after the build script's own, so that every test JVM (each fork, each of
 * {@code maxParallelForks}) writes one trace with its tests marked. The argument is one item
 * of Gradle's list, never split at spaces, so it is not quoted as surefire's argLine is.
 * Added when the task runs, it is not among the inputs Gradle compares; the plugin registers
 * the options as an input instead.
 */
public class JtraceAgent implements Action<Task> {
    private final JtraceExtension extension;

    /** The action, reading {@code extension} when the task runs. */
    public JtraceAgent(JtraceExtension extension) {
        this.extension = extension;
    }

    @Override
    public void execute(Task task) {
        Test test = (Test) task;
        if (!extension.active()) {
            test.getLogger().info("jtrace: {} runs without the agent ({})", test.getPath(),
                    extension.isEnabled() ? "-Pjtrace.skip" : "jtrace.enabled = false");
            return;
        }
        File dir = JtracePlugin.traceDir(test);
        try {
            if (!dir.isDirectory() && !dir.mkdirs()) {
                throw new IOException("cannot create " + dir);
            }
            int old = Carried.clear(dir);
            if (old > 0) {
                test.getLogger().info("jtrace: removed {} trace(s) of an earlier run from {}",
                        old, dir);
            }
            File out = new File(dir.getAbsoluteFile(), "jtrace-%p.jtr");
            String arg = Carried.javaagent(new Carried().agentJar(),
                    Carried.options(out.toPath(), options(extension)));
            test.jvmArgs(arg);
            test.getLogger().info("jtrace: {} runs with {}", test.getPath(), arg);
        } catch (IOException e) {
            throw new GradleException("jtrace: " + e.getMessage(), e);
        }
    }

    /** The extension's options as strings (a script's list may hold GStrings). */
    static List<String> options(JtraceExtension extension) {
        List<String> out = new ArrayList<>();
        List<?> items = extension.getOptions();
        if (items != null) {
            for (Object o : items) {
                if (o != null) {
                    out.add(String.valueOf(o));
                }
            }
        }
        return out;
    }
}
