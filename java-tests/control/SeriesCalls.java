// A program for `cargo xtask test` step control, case series: calls a() (which calls
// b()) as many times as its argument says, in rounds with a monitor wait between, and
// prints what it did: the truth the series of files (max-size=) is compared with.
public class SeriesCalls {
    static int sink;
    static long as, bs;

    static void a(int i) {
        as++;
        sink += i;
        b(i);
    }

    static void b(int i) {
        bs++;
        sink ^= i;
    }

    public static void main(String[] args) throws Exception {
        int n = Integer.parseInt(args[0]);
        for (int i = 0; i < n; i++) {
            a(i);
            if (i % 10_000 == 0) {
                synchronized (SeriesCalls.class) {
                    SeriesCalls.class.wait(1);
                }
            }
        }
        System.out.println("CALLS " + as + " " + bs);
    }
}
