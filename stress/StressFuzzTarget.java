// The short program every fuzzed option string runs: a few traced calls, one line out.
// jtrace-stdout: fuzz *

public class StressFuzzTarget {
    static int f(int x) {
        return x + 1;
    }

    public static void main(String[] args) {
        int s = 0;
        for (int i = 0; i < 100; i++) {
            s = f(s);
        }
        System.out.println("fuzz " + s);
    }
}
