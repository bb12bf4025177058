package moobench;

/** The monitored class of a MooBench-style run: a method that recurses to a given depth with a trivial body. */
public final class MonitoredClass {
    /**
     * Calls itself until {@code recDepth} reaches 1, like MooBench's
     * {@code monitoredMethod(methodTime, recDepth)} with a zero method time: one call per
     * level, each one traced when the agent is on.
     */
    public long monitoredMethod(final long methodTime, final int recDepth) {
        if (recDepth > 1) {
            return this.monitoredMethod(methodTime, recDepth - 1) + 1;
        }
        return methodTime;
    }
}
