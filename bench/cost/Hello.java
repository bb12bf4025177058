package cost;

/** Start-to-exit cell: a JVM that prints one line and exits (what the agent adds to every short JVM). */
public final class Hello {
    public static void main(final String[] args) {
        System.out.println("hello");
    }
}
