// The Gradle plugin io.jtrace: every Test task's JVMs run with the jtrace agent, then a report.
package jtrace.gradle;

import java.io.File;
import java.util.Collections;
import java.util.Set;
import java.util.concurrent.Callable;
import org.gradle.api.Plugin;
import org.gradle.api.Project;
import org.gradle.api.plugins.JavaPlugin;
import org.gradle.api.plugins.JavaPluginConvention;
import org.gradle.api.tasks.SourceSet;
import org.gradle.api.tasks.SourceSetContainer;
import org.gradle.api.tasks.testing.Test;

/**
 * {@code apply plugin: 'io.jtrace'}: the extension {@code jtrace { }} ({@link JtraceExtension})
 * and, for every {@code Test} task (the java plugin's {@code test}, and any a script adds):
 * <ul>
 * <li>the test JVMs run with the agent the plugin carries, each writing one trace under
 * {@code build/jtrace/TASK/}, the traces of an earlier run removed first ({@link JtraceAgent});
 * <li>{@code jtraceTASKReport} ({@link JtraceReport}), which finalizes the test task: the
 * per-test summary, coverage of the main sources and HTML reports beside the traces;
 * <li>{@code jtraceTASKGate} ({@link JtraceGate}), run only when asked for: the build fails
 * when a test's counts rose beyond the committed baseline.
 * </ul>
 * {@code -Pjtrace.skip} runs the tests without the agent and skips both tasks;
 * {@code -Pjtrace.gate.update} learns or refreshes the baseline. Written against Gradle's
 * public API as of 4.4; it needs nothing on the machine but the JDK (the agent jar and the
 * jtrace command are inside the plugin's jar).
 */
public class JtracePlugin implements Plugin<Project> {
    /** The name of the extension. */
    public static final String EXTENSION = "jtrace";

    @Override
    public void apply(Project project) {
        JtraceExtension extension = project.getExtensions().create(EXTENSION, JtraceExtension.class);
        extension.setBaseline(project.file("jtrace-baseline.json"));
        extension.skip(flag(project, "jtrace.skip"));
        boolean update = flag(project, "jtrace.gate.update");
        project.getTasks().withType(Test.class, test -> configure(project, extension, update, test));
        project.getPlugins().withType(JavaPlugin.class, java ->
                project.getTasks().withType(JtraceReport.class, report -> {
                    if (report.getSourceRoots() == null) {
                        report.setSourceRoots(project.files(
                                (Callable<Set<File>>) () -> mainJavaSources(project)));
                    }
                }));
    }

    private static void configure(Project project, JtraceExtension extension, boolean update,
            Test test) {
        String name = test.getName();
        String cap = Character.toUpperCase(name.charAt(0)) + name.substring(1);
        Callable<File> dir = () -> traceDir(test);
        test.getInputs().property("jtrace.agent", (Callable<String>) () -> extension.active()
                ? String.join(",", JtraceAgent.options(extension)) : "off");
        test.doFirst(new JtraceAgent(extension));

        JtraceReport report = project.getTasks().create("jtrace" + cap + "Report",
                JtraceReport.class, r -> {
                    r.setGroup("verification");
                    r.setDescription("Reports on the jtrace traces of " + test.getPath()
                            + " (build/jtrace/" + name + "/).");
                    r.setDirectory(dir);
                    r.onlyIf(t -> extension.active());
                });
        test.finalizedBy(report);

        project.getTasks().create("jtrace" + cap + "Gate", JtraceGate.class, g -> {
            g.setGroup("verification");
            g.setDescription("Fails when a test of " + test.getPath()
                    + " counts more than the jtrace baseline allows (-Pjtrace.gate.update=true"
                    + " learns it).");
            g.setDirectory(dir);
            g.setExtension(extension);
            g.setUpdate(update);
            g.dependsOn(test);
            g.mustRunAfter(report);
            g.onlyIf(t -> extension.active());
        });
    }

    /** Where the test JVMs of {@code test} write their traces: {@code build/jtrace/TASK/}. */
    public static File traceDir(Test test) {
        return new File(new File(test.getProject().getBuildDir(), "jtrace"), test.getName());
    }

    /** The Java source directories of the main source set. */
    static Set<File> mainJavaSources(Project project) {
        // Gradle 7.1 and later keep sourceSets as an extension; before, on the java plugin's
        // convention (gone in Gradle 9), only reached when there is no such extension.
        SourceSetContainer sets = project.getExtensions().findByType(SourceSetContainer.class);
        if (sets == null) {
            sets = conventionSourceSets(project);
        }
        SourceSet main = sets == null ? null : sets.findByName(SourceSet.MAIN_SOURCE_SET_NAME);
        return main == null ? Collections.<File>emptySet() : main.getJava().getSrcDirs();
    }

    @SuppressWarnings("deprecation")
    private static SourceSetContainer conventionSourceSets(Project project) {
        JavaPluginConvention java = project.getConvention().findPlugin(JavaPluginConvention.class);
        return java == null ? null : java.getSourceSets();
    }

    /** A project property ({@code -PNAME}, {@code -PNAME=true}, gradle.properties) that is set. */
    private static boolean flag(Project project, String name) {
        Object v = project.hasProperty(name) ? project.property(name) : null;
        if (v == null) {
            return false;
        }
        String s = String.valueOf(v).trim();
        return s.isEmpty() || Boolean.parseBoolean(s);
    }
}
