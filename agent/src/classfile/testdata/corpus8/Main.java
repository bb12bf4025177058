import java.util.*;

/** Java 8 corpus (class-file major 52 via --release 8). */
public class Main {
    static int n;
    final int v;

    Main(int v) {
        this(v, v > 0 ? "pos" : "neg");
    }

    Main(int v, String tag) {
        super();
        int t;
        try {
            t = Integer.parseInt(tag);
        } catch (NumberFormatException e) {
            t = tag.length();
        }
        this.v = v + t;
    }

    static int loop(int k) {
        while (true) {
            if (k-- <= 0) return n;
            n += k;
        }
    }

    static String sw(int x, String s) {
        String r;
        switch (x) {
            case 1: r = "one"; break;
            case 2: r = "two"; break;
            case 100: r = "hundred"; break;
            default: r = "many";
        }
        switch (s) {
            case "a": return r + "A";
            default: return r + s;
        }
    }

    static int tryFinally(int x) {
        try {
            if (x == 0) throw new IllegalStateException();
            return 10 / x;
        } catch (IllegalStateException e) {
            return -1;
        } finally {
            n++;
        }
    }

    static synchronized int sync(List<Integer> l) {
        int s = 0;
        for (int i : l) s += i;
        Runnable r = () -> n++;
        r.run();
        return s;
    }

    static int div(int a, int b) {
        return a / b;
    }

    public static void main(String[] args) {
        System.out.println("loop " + loop(5));
        for (int x : new int[] {1, 2, 3, 100}) System.out.println(sw(x, x == 1 ? "a" : "b"));
        System.out.println("tf " + tryFinally(0) + tryFinally(5));
        try { tryFinally(-0); } catch (ArithmeticException e) { System.out.println("div"); }
        try { System.out.println(div(10, tryFinally(3) - 3)); } catch (ArithmeticException e) { System.out.println("div0"); }
        System.out.println("ctor " + new Main(3).v + " " + new Main(-2).v);
        System.out.println("sync " + sync(Arrays.asList(1, 2, 3)) + " " + n);
        Big.run();
    }
}
