// jtrace:gate: fail the build when a test's exact counts rose beyond the committed baseline.
package jtrace.maven;

import java.io.File;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import jtrace.plugin.Answers;
import jtrace.plugin.Carried;
import org.apache.maven.plugin.AbstractMojo;
import org.apache.maven.plugin.MojoExecutionException;
import org.apache.maven.plugin.MojoFailureException;
import org.apache.maven.plugins.annotations.LifecyclePhase;
import org.apache.maven.plugins.annotations.Mojo;
import org.apache.maven.plugins.annotations.Parameter;

/**
 * {@code jtrace gate} on this build's test traces: the build fails when a test's calls,
 * allocations, exceptions or lines rose above the baseline's highest value plus
 * {@code maxRise}, naming the methods and call paths that added them ({@code gate.md},
 * {@code gate.xml} beside the traces). {@code -Djtrace.gate.update} learns the baseline
 * when there is none, and refreshes this run's tests in it otherwise.
 */
@Mojo(name = "gate", defaultPhase = LifecyclePhase.VERIFY, threadSafe = true)
public class GateMojo extends AbstractMojo {
    /** Where the traces are. */
    @Parameter(property = "jtrace.directory", defaultValue = "${project.build.directory}/jtrace")
    private File directory;

    /** The committed baseline. */
    @Parameter(property = "jtrace.baseline", defaultValue = "${project.basedir}/jtrace-baseline.json")
    private File baseline;

    /** Allowed rises ({@code calls=0%,alloc=1%}, or {@code off}; jtrace gate --max-rise). */
    @Parameter(property = "jtrace.gate.maxRise")
    private String maxRise;

    /** A test the baseline does not know fails the build. */
    @Parameter(property = "jtrace.gate.failOnNew", defaultValue = "false")
    private boolean failOnNew;

    /** A test of the baseline that did not run fails the build. */
    @Parameter(property = "jtrace.gate.failOnMissing", defaultValue = "false")
    private boolean failOnMissing;

    /** Learn the baseline (when it is missing) or refresh this run's tests in it. */
    @Parameter(property = "jtrace.gate.update", defaultValue = "false")
    private boolean update;

    /** No gate. */
    @Parameter(property = "jtrace.skip", defaultValue = "false")
    private boolean skip;

    @Override
    public void execute() throws MojoExecutionException, MojoFailureException {
        if (skip) {
            getLog().info("jtrace: skipped (jtrace.skip)");
            return;
        }
        if (!update && !baseline.isFile()) {
            throw new MojoExecutionException("jtrace: no baseline at " + baseline
                    + "; learn one with -Djtrace.gate.update=true and commit it");
        }
        List<String> options = new ArrayList<>();
        if (maxRise != null && !maxRise.isEmpty()) {
            options.add("--max-rise");
            options.add(maxRise);
        }
        if (failOnNew) {
            options.add("--fail-on-new");
        }
        if (failOnMissing) {
            options.add("--fail-on-missing");
        }
        int code;
        try {
            code = new Answers(new Carried(), directory, getLog()::info)
                    .gate(baseline.getAbsoluteFile(), options, update);
        } catch (IOException e) {
            throw new MojoExecutionException("jtrace: " + e.getMessage(), e);
        }
        if (code == Answers.NO_TRACES) {
            return;
        }
        if (code == 1) {
            throw new MojoFailureException("jtrace gate: counts rose beyond " + baseline
                    + " (see above and " + new File(directory, "gate.md") + ")");
        }
        if (code != 0) {
            throw new MojoExecutionException("jtrace gate exited with " + code + " (see above)");
        }
    }
}
