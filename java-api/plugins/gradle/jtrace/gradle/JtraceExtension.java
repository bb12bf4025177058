// The jtrace { } block of a build script: the agent's options and the gate's baseline.
package jtrace.gradle;

import java.io.File;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * What a build script sets in {@code jtrace { }}: whether the test JVMs run with the agent
 * ({@code enabled}), its options ({@code options = ['lines=on', 'alloc=exact']}, one
 * {@code KEY=VALUE} per item, docs/OPTIONS.md), and what the {@code jtrace*Gate} tasks judge the
 * traces against ({@code baseline}, {@code maxRise}, {@code failOnNew}, {@code failOnMissing}).
 * Read when the tasks run, so the block may come anywhere in the script.
 */
public class JtraceExtension {
    private boolean enabled = true;
    private List<String> options = new ArrayList<>(Collections.singletonList("lines=on"));
    private File baseline;
    private String maxRise;
    private boolean failOnNew;
    private boolean failOnMissing;
    private boolean skip;

    /** Whether the test JVMs run with the agent (and the report and gate run); true. */
    public boolean isEnabled() {
        return enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    /** The agent's options, one {@code KEY=VALUE} per item; {@code ['lines=on']}. */
    public List<String> getOptions() {
        return options;
    }

    public void setOptions(List<String> options) {
        this.options = options == null ? new ArrayList<>() : new ArrayList<>(options);
    }

    /** The committed baseline the gate judges against; {@code jtrace-baseline.json}. */
    public File getBaseline() {
        return baseline;
    }

    public void setBaseline(File baseline) {
        this.baseline = baseline;
    }

    /** Allowed rises ({@code calls=0%,alloc=1%}, or {@code off}; jtrace gate --max-rise). */
    public String getMaxRise() {
        return maxRise;
    }

    public void setMaxRise(String maxRise) {
        this.maxRise = maxRise;
    }

    /** A test the baseline does not know fails the gate. */
    public boolean isFailOnNew() {
        return failOnNew;
    }

    public void setFailOnNew(boolean failOnNew) {
        this.failOnNew = failOnNew;
    }

    /** A test of the baseline that did not run fails the gate. */
    public boolean isFailOnMissing() {
        return failOnMissing;
    }

    public void setFailOnMissing(boolean failOnMissing) {
        this.failOnMissing = failOnMissing;
    }

    /** {@code -Pjtrace.skip}: no agent, no report, no gate, whatever the script says. */
    void skip(boolean skip) {
        this.skip = skip;
    }

    /** Whether the agent, the report and the gate run. */
    boolean active() {
        return enabled && !skip;
    }
}
