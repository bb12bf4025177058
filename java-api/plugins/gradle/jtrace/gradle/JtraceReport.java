// jtrace<Test>Report: what jtrace makes of a Test task's traces, under build/jtrace/<task>/.
package jtrace.gradle;

import java.io.File;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import jtrace.plugin.Answers;
import jtrace.plugin.Carried;
import org.gradle.api.DefaultTask;
import org.gradle.api.GradleException;
import org.gradle.api.file.FileCollection;
import org.gradle.api.tasks.Internal;
import org.gradle.api.tasks.TaskAction;

/**
 * Beside the traces a {@code Test} task's JVMs wrote: the per-test summary
 * ({@code tests.txt}, {@code tests.md}, {@code tests.json}), coverage of the main sources
 * with exact counts ({@code coverage.info} for lcov and {@code jacoco.xml}) and an HTML
 * report per trace, made by the jtrace command the plugin carries (as the Maven plugin's
 * {@code jtrace:report}). The plugin makes one per {@code Test} task and has the test task
 * finalized by it, so it runs after the tests whether they passed or not. It declares no
 * outputs, so it runs every time it is asked to.
 */
public class JtraceReport extends DefaultTask {
    private Object directory;
    private FileCollection sourceRoots;

    /** Where the traces are, and where the report goes. */
    @Internal
    public File getDirectory() {
        return getProject().file(directory);
    }

    /** Anything {@code project.file} takes; the plugin sets {@code build/jtrace/TASK}. */
    public void setDirectory(Object directory) {
        this.directory = directory;
    }

    /**
     * The source directories coverage is reported for; the plugin sets the {@code main}
     * source set's Java directories when the java plugin is applied.
     */
    @Internal
    public FileCollection getSourceRoots() {
        return sourceRoots;
    }

    public void setSourceRoots(FileCollection sourceRoots) {
        this.sourceRoots = sourceRoots;
    }

    @TaskAction
    public void report() {
        File dir = getDirectory();
        List<File> roots = new ArrayList<>();
        if (sourceRoots != null) {
            roots.addAll(sourceRoots.getFiles());
        }
        // What the commands say goes to --info, and in full when one fails.
        List<String> said = new ArrayList<>();
        try {
            List<File> made = new Answers(new Carried(), dir, line -> {
                said.add(line);
                getLogger().info(line);
            }).report(roots);
            if (made.isEmpty()) {
                if (!getLogger().isInfoEnabled()) {
                    for (String line : said) {
                        getLogger().lifecycle(line);
                    }
                }
                return;
            }
            List<String> names = new ArrayList<>();
            for (File f : made) {
                names.add(f.getName());
            }
            getLogger().lifecycle("jtrace: report of {} trace(s) in {}: {}",
                    Carried.traces(dir).size(), dir, String.join(", ", names));
            if (!names.contains("coverage.info")) {
                getLogger().lifecycle("jtrace: no coverage: no main source directory ({})",
                        roots.isEmpty() ? "is the java plugin applied?" : roots);
            }
        } catch (IOException e) {
            if (!getLogger().isInfoEnabled()) {
                for (String line : said) {
                    getLogger().error(line);
                }
            }
            throw new GradleException("jtrace: " + e.getMessage(), e);
        }
    }
}
