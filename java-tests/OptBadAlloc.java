// Bad agent option: a malformed alloc value. The JVM must not start the program, must exit non-zero
// with the agent's message on stderr, and no trace may be written.
// jtrace-options: alloc=bogus
// jtrace-expect-exit: nonzero
// jtrace-expect-stderr: jtrace
// jtrace-expect-stderr: bad value "bogus" for option "alloc"
// jtrace-trace: none
// The JVM (not the agent) reports the failed load on stdout:
// jtrace-stdout: Error occurred during initialization of VM
// jtrace-stdout: agent library failed *

public class OptBadAlloc {
    public static void main(String[] args) {
        System.out.println("the program ran although the agent options are bad");
    }
}
