package jtrace;

/**
 * Stand-in for the agent's tracker when rewritten classes are verified without the agent:
 * the same static methods as the real one, with empty bodies instead of natives.
 * CorpusVerify defines it (from this class's bytes) in every loader it creates.
 */
public final class Tracker {
    private Tracker() {}

    public static void enter(int method) {}

    public static void exit(int method) {}

    public static void unwind(Throwable t, int method) {}

    public static void caught(Throwable t, int method) {}

    public static void line(int method, int line) {}
}
