// jtrace:report: what jtrace makes of this build's test traces, under target/jtrace/.
package jtrace.maven;

import java.io.File;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import jtrace.plugin.Answers;
import jtrace.plugin.Carried;
import org.apache.maven.plugin.AbstractMojo;
import org.apache.maven.plugin.MojoExecutionException;
import org.apache.maven.plugins.annotations.LifecyclePhase;
import org.apache.maven.plugins.annotations.Mojo;
import org.apache.maven.plugins.annotations.Parameter;
import org.apache.maven.project.MavenProject;

/**
 * Beside the traces {@code prepare-agent}'s test JVMs wrote: the per-test summary
 * ({@code tests.txt}, {@code tests.md}, {@code tests.json}), coverage of the main sources
 * with exact counts ({@code coverage.info} for lcov and {@code jacoco.xml}) and an HTML
 * report per trace, made by the jtrace command the plugin carries.
 */
@Mojo(name = "report", defaultPhase = LifecyclePhase.VERIFY, threadSafe = true)
public class ReportMojo extends AbstractMojo {
    @Parameter(defaultValue = "${project}", readonly = true, required = true)
    private MavenProject project;

    /** Where the traces are, and where the report goes. */
    @Parameter(property = "jtrace.directory", defaultValue = "${project.build.directory}/jtrace")
    private File directory;

    /** No report. */
    @Parameter(property = "jtrace.skip", defaultValue = "false")
    private boolean skip;

    @Override
    public void execute() throws MojoExecutionException {
        if (skip) {
            getLog().info("jtrace: skipped (jtrace.skip)");
            return;
        }
        List<File> roots = new ArrayList<>();
        for (String r : project.getCompileSourceRoots()) {
            roots.add(new File(r));
        }
        try {
            List<File> made = new Answers(new Carried(), directory, getLog()::info).report(roots);
            for (File f : made) {
                getLog().info("jtrace: wrote " + f);
            }
        } catch (IOException e) {
            throw new MojoExecutionException("jtrace: " + e.getMessage(), e);
        }
    }
}
