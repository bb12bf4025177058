// Enough traced calls for tens of MB of trace, written into a 1 MB file system: the
// application must go on and exit normally with its own output; the agent must say on
// stderr that the trace is incomplete. (No EXPECT lines: the trace cannot hold them.)
// jtrace-stdout: disk *
// jtrace-timeout: 120

public class StressDisk {
    static long calls;

    static long f(long x) {
        calls++;
        return x * 7 + 3;
    }

    public static void main(String[] args) {
        long x = 0;
        for (int i = 0; i < 300_000; i++) {
            x = f(x) % 1_000_000_007L;
        }
        System.out.println("disk calls " + calls);
        System.out.println("disk result " + x);
    }
}
