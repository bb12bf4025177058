// The program `cargo xtask test` traces to test time windows read through the `.jtr`
// index on a trace with line records (xtask/src/steps/cli_tests.rs, `CliLineWindows`): the
// work of CliWindows (threads recursing, throwing and catching, waiting and contending,
// in many record chunks) with lines=on, so that windows start inside frames that have
// run lines (the index's end states give each one's last line).
// Prints EXPECT lines (exact call counts per method, CliWindows').
// jtrace-options: waits=off,lines=on
// jtrace-stdout: EXPECT *
// jtrace-compare-modes: no
// jtrace-timeout: 120
public class CliLineWindows {
    public static void main(String[] args) throws Exception {
        CliWindows.main(args);
    }
}
