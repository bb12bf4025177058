// Bad agent option: an output path in a directory that does not exist. The JVM must not start the program, must exit non-zero
// with the agent's message on stderr, and no trace may be written.
// jtrace-options: out=/nonexistent/dir/t.xml
// jtrace-expect-exit: nonzero
// jtrace-expect-stderr: jtrace
// jtrace-expect-stderr: /nonexistent/dir/t.xml
// jtrace-trace: none
// The JVM (not the agent) reports the failed load on stdout:
// jtrace-stdout: Error occurred during initialization of VM
// jtrace-stdout: agent library failed *

public class OptUnwritableOut {
    public static void main(String[] args) {
        System.out.println("the program ran although the agent options are bad");
    }
}
