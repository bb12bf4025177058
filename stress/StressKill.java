// A busy program the stress runner kills with SIGKILL once its trace file is a few MB
// long: what remains must be a readable prefix ("cut short", not invalid).
// jtrace-stdout: FIGURE *
// jtrace-timeout: 120

public class StressKill {
    static long calls;

    static long f(long x) {
        calls++;
        return g(x) + 1;
    }

    static long g(long x) {
        return x * 31 + 7;
    }

    public static void main(String[] args) {
        long x = 0;
        long until = System.nanoTime() + 60_000_000_000L;
        boolean ready = false;
        while (System.nanoTime() < until) {
            x = f(x) % 1_000_003;
            if (!ready && calls == 100_000) {
                System.out.println("READY");
                System.out.flush();
                ready = true;
            }
        }
        System.out.println("FIGURE not killed " + x);
    }
}
