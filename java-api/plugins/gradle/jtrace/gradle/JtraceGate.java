// jtrace<Test>Gate: fail the build when a test's exact counts rose beyond the committed baseline.
package jtrace.gradle;

import java.io.File;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import jtrace.plugin.Answers;
import jtrace.plugin.Carried;
import org.gradle.api.DefaultTask;
import org.gradle.api.GradleException;
import org.gradle.api.tasks.Internal;
import org.gradle.api.tasks.TaskAction;

/**
 * {@code jtrace gate} on a {@code Test} task's traces (as the Maven plugin's
 * {@code jtrace:gate}): the build fails when a test's calls, allocations, exceptions or
 * lines rose above the baseline's highest value plus {@code maxRise}, naming the methods and
 * call paths that added them ({@code gate.md}, {@code gate.xml} beside the traces).
 * {@code -Pjtrace.gate.update=true} learns the baseline when there is none, and refreshes
 * this run's tests in it otherwise. Not run unless asked for ({@code gradle jtraceTestGate},
 * or {@code check.dependsOn jtraceTestGate}); it depends on its test task.
 */
public class JtraceGate extends DefaultTask {
    private JtraceExtension extension;
    private Object directory;
    private Object baseline;
    private boolean update;

    /** Where the traces are. */
    @Internal
    public File getDirectory() {
        return getProject().file(directory);
    }

    /** Anything {@code project.file} takes; the plugin sets {@code build/jtrace/TASK}. */
    public void setDirectory(Object directory) {
        this.directory = directory;
    }

    /** The committed baseline: this task's when set, else {@code jtrace { baseline }}. */
    @Internal
    public File getBaseline() {
        if (baseline != null) {
            return getProject().file(baseline);
        }
        File b = extension == null ? null : extension.getBaseline();
        return b != null ? b : getProject().file("jtrace-baseline.json");
    }

    /** A baseline for this task alone (a second Test task's tests, say). */
    public void setBaseline(Object baseline) {
        this.baseline = baseline;
    }

    /** Learn the baseline (when it is missing) or refresh this run's tests in it. */
    @Internal
    public boolean isUpdate() {
        return update;
    }

    public void setUpdate(boolean update) {
        this.update = update;
    }

    /** Where {@code maxRise}, {@code failOnNew} and {@code failOnMissing} are read. */
    @Internal
    public JtraceExtension getExtension() {
        return extension;
    }

    public void setExtension(JtraceExtension extension) {
        this.extension = extension;
    }

    @TaskAction
    public void gate() {
        File dir = getDirectory();
        File base = getBaseline().getAbsoluteFile();
        if (!update && !base.isFile()) {
            throw new GradleException("jtrace: no baseline at " + base
                    + "; learn one with -Pjtrace.gate.update=true and commit it");
        }
        List<String> options = new ArrayList<>();
        if (extension != null) {
            String maxRise = extension.getMaxRise();
            if (maxRise != null && !maxRise.isEmpty()) {
                options.add("--max-rise");
                options.add(maxRise);
            }
            if (extension.isFailOnNew()) {
                options.add("--fail-on-new");
            }
            if (extension.isFailOnMissing()) {
                options.add("--fail-on-missing");
            }
        }
        int code;
        try {
            code = new Answers(new Carried(), dir, getLogger()::lifecycle)
                    .gate(base, options, update);
        } catch (IOException e) {
            throw new GradleException("jtrace: " + e.getMessage(), e);
        }
        if (code == Answers.NO_TRACES) {
            return;
        }
        if (code == 1) {
            throw new GradleException("jtrace gate: counts rose beyond " + base
                    + " (see above and " + new File(dir, "gate.md") + ")");
        }
        if (code != 0) {
            throw new GradleException("jtrace gate exited with " + code + " (see above)");
        }
    }
}
