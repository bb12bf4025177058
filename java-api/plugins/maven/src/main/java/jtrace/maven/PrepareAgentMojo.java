// jtrace:prepare-agent: the test JVMs of this build run with the jtrace agent.
package jtrace.maven;

import java.io.File;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import jtrace.plugin.Carried;
import org.apache.maven.plugin.AbstractMojo;
import org.apache.maven.plugin.MojoExecutionException;
import org.apache.maven.plugins.annotations.LifecyclePhase;
import org.apache.maven.plugins.annotations.Mojo;
import org.apache.maven.plugins.annotations.Parameter;
import org.apache.maven.project.MavenProject;

/**
 * Sets the property surefire and failsafe read their JVM arguments from ({@code argLine}, as
 * JaCoCo's {@code prepare-agent} does) to {@code -javaagent:jtrace-agent.jar=out=DIR/jtrace-%p.jtr,OPTIONS}
 * followed by what the property held before, so that every test JVM writes one trace under
 * {@code target/jtrace/} with its tests marked. Traces an earlier build left there are removed.
 * A project that sets surefire's {@code <argLine>} itself keeps the agent with
 * {@code <argLine>@{argLine} ...</argLine>}.
 */
@Mojo(name = "prepare-agent", defaultPhase = LifecyclePhase.INITIALIZE, threadSafe = true)
public class PrepareAgentMojo extends AbstractMojo {
    @Parameter(defaultValue = "${project}", readonly = true, required = true)
    private MavenProject project;

    /** Where the traces go, one per test JVM. */
    @Parameter(property = "jtrace.directory", defaultValue = "${project.build.directory}/jtrace")
    private File directory;

    /**
     * Agent options, one {@code KEY=VALUE} per item ({@code lines=on}, {@code alloc=exact},
     * {@code include=com.example.*}; docs/OPTIONS.md). Line coverage needs {@code lines=on}.
     */
    @Parameter(property = "jtrace.options", defaultValue = "lines=on")
    private List<String> options;

    /** The property to set. */
    @Parameter(property = "jtrace.propertyName", defaultValue = "argLine")
    private String propertyName;

    /** Run the tests without the agent. */
    @Parameter(property = "jtrace.skip", defaultValue = "false")
    private boolean skip;

    @Override
    public void execute() throws MojoExecutionException {
        if (skip) {
            getLog().info("jtrace: skipped (jtrace.skip)");
            return;
        }
        File dir = directory.getAbsoluteFile();
        for (File shared : new File[] {new File(project.getBuild().getDirectory()), project.getBasedir()}) {
            if (shared != null && dir.equals(shared.getAbsoluteFile())) {
                throw new MojoExecutionException("jtrace: jtrace.directory " + dir + " is the project's "
                        + "own; give jtrace a directory of its own (the default is target/jtrace): it "
                        + "removes the traces and answers of earlier builds there");
            }
        }
        try {
            if (!directory.isDirectory() && !directory.mkdirs()) {
                throw new IOException("cannot create " + directory);
            }
            int old = Carried.clear(directory);
            if (old > 0) {
                getLog().info("jtrace: removed " + old + " trace(s) of an earlier build from " + directory);
            }
            File out = new File(directory.getAbsoluteFile(), "jtrace-%p.jtr");
            List<String> items = options == null ? new ArrayList<>() : options;
            String arg = Carried.word(Carried.javaagent(new Carried().agentJar(),
                    Carried.options(out.toPath(), items)));
            Properties props = project.getProperties();
            String before = props.getProperty(propertyName, "").trim();
            String value = before.isEmpty() ? arg : arg + " " + before;
            props.setProperty(propertyName, value);
            getLog().info("jtrace: " + propertyName + " set to " + value);
        } catch (IOException e) {
            throw new MojoExecutionException("jtrace: " + e.getMessage(), e);
        }
    }
}
