/** Runs the corpus main, then prints the tracker's report to stderr. */
public class Harness {
    public static void main(String[] args) throws Throwable {
        try {
            Main.main(args);
        } finally {
            jtrace.Tracker.report();
        }
    }
}
