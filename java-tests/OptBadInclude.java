// Bad agent option: an include pattern with a '*' in the middle. The JVM must not start the program, must exit non-zero
// with the agent's message on stderr, and no trace may be written.
// jtrace-options: include=a*b
// jtrace-expect-exit: nonzero
// jtrace-expect-stderr: jtrace
// jtrace-expect-stderr: bad pattern "a*b"
// jtrace-trace: none
// The JVM (not the agent) reports the failed load on stdout:
// jtrace-stdout: Error occurred during initialization of VM
// jtrace-stdout: agent library failed *

public class OptBadInclude {
    public static void main(String[] args) {
        System.out.println("the program ran although the agent options are bad");
    }
}
