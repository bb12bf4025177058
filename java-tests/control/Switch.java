// The in-application switch around a known block, for `cargo xtask test` step control.
// fib(n) makes 2*F(n+1)-1 calls: fib(10) before the trace (177), fib(15) inside it
// (1973), fib(5) after it (15). Prints whether start and stop took effect.
public class Switch {
    static int fib(int n) {
        return n < 2 ? n : fib(n - 1) + fib(n - 2);
    }

    public static void main(String[] args) {
        int before = fib(10);
        boolean started = jtrace.Trace.start(args.length > 0 ? "out=" + args[0] : "");
        int inside = fib(15);
        boolean stopped = jtrace.Trace.stop();
        int after = fib(5);
        System.out.println(started + " " + stopped + " " + (before + inside + after));
    }
}
