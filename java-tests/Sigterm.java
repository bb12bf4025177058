// The harness sends SIGTERM once this prints READY; the JVM runs its shutdown and the
// trace must be complete. 143 = 128 + SIGTERM.
// jtrace-signal: TERM
// jtrace-expect-exit: 143

public class Sigterm {
    static int sleepCalls;

    static void sleepForever() throws InterruptedException {
        sleepCalls++;
        System.out.println("EXPECT calls Sigterm.sleepForever " + sleepCalls);
        System.out.println("EXPECT exits Sigterm.sleepForever 0");
        System.out.println("EXPECT exit-code 143");
        System.out.println("READY");
        System.out.flush();
        while (true) {
            Thread.sleep(1000);
        }
    }

    public static void main(String[] args) throws InterruptedException {
        sleepForever();
    }
}
