// `help`: the agent prints its option table on stderr and the JVM exits cleanly,
// without running the program or writing a trace.
// jtrace-options: help
// jtrace-expect-exit: 0
// jtrace-expect-stderr: jtrace options
// jtrace-expect-stderr: alloc
// jtrace-expect-stderr: exclude
// jtrace-expect-stderr: mode
// jtrace-trace: none

public class OptHelp {
    public static void main(String[] args) {
        System.out.println("the program ran although help was asked for");
    }
}
