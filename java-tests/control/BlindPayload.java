// Loaded by Blind's loader, which sees java.lang.* only: sums 0..n-1.
public class BlindPayload {
    public static int run(int n) {
        int s = 0;
        for (int i = 0; i < n; i++) {
            s += step(i);
        }
        return s;
    }

    static int step(int i) {
        return i;
    }
}
