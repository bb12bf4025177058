import java.util.*;
import java.util.function.*;
import java.util.stream.*;

/** Tricky-bytecode corpus: every method prints what it computes. */
public class Main {
    static int counter;
    static final StringBuilder LOG = new StringBuilder();

    static int loopToZero(int n) {
        while (true) {
            if (n <= 0) return 7;
            n--;
            counter++;
        }
    }

    static int doLoopToZero(int n) {
        int s = 0;
        do {
            s += n;
        } while (--n > 0);
        return s;
    }

    static String nested(int k) {
        StringBuilder sb = new StringBuilder();
        try {
            try {
                if (k == 0) throw new IllegalStateException("zero");
                if (k == 1) return "early" + sb;
                sb.append("a");
            } catch (IllegalStateException e) {
                sb.append("ise");
                if (k == 0) throw new RuntimeException("wrapped", e);
            } finally {
                sb.append("f1");
                if (k == 2) return "finally-return";
            }
            sb.append("b");
        } catch (RuntimeException e) {
            sb.append("re:").append(e.getMessage());
        } finally {
            sb.append("f2");
        }
        return sb.toString();
    }

    static int tableSwitch(int x) {
        switch (x) {
            case 0: return 10;
            case 1: return 11;
            case 2:
            case 3: return 13;
            case 4: x += 100; break;
            default: return -1;
        }
        return x;
    }

    static int lookupSwitch(int x) {
        switch (x) {
            case -1000: return 1;
            case 7: return 2;
            case 1 << 20: return 3;
            case Integer.MAX_VALUE: return 4;
            default: return 0;
        }
    }

    static int stringSwitch(String s) {
        switch (s) {
            case "alpha": return 1;
            case "beta": return 2;
            case "Aa": return 3;
            case "BB": return 4;
            default: return 0;
        }
    }

    enum Color { RED, GREEN, BLUE }

    static String enumSwitch(Color c) {
        return switch (c) {
            case RED -> "r";
            case GREEN -> {
                String g = "g";
                for (int i = 0; i < 3; i++) g += i;
                yield g;
            }
            default -> "other";
        };
    }

    static final Object MON = new Object();

    static int syncBlock(int n) {
        int r = 0;
        synchronized (MON) {
            for (int i = 0; i < n; i++) {
                r += i;
                if (r > 1000) throw new ArithmeticException("too big");
            }
        }
        return r;
    }

    static synchronized long syncMethod(long a, double b) {
        if (b < 0) throw new IllegalArgumentException("neg");
        return a + (long) b;
    }

    static int thrower(int depth) {
        if (depth == 0) throw new UnsupportedOperationException("deep");
        return thrower(depth - 1) + 1;
    }

    static int catchDeep() {
        try {
            return thrower(5);
        } catch (UnsupportedOperationException e) {
            return -5;
        }
    }

    static long longsAndDoubles(long a, double d, int i, float f) {
        long r = a;
        for (int k = 0; k < i; k++) {
            r = r * 31 + (long) (d * k) + (long) f;
            d = d / 2 + 1;
        }
        return r;
    }

    static int ternaries(int a, int b) {
        return a > b ? (a > 2 * b ? a : b) : (b > 2 * a ? b - a : a + b);
    }

    static int lambdas(List<Integer> xs) {
        Function<Integer, Integer> sq = x -> x * x;
        IntBinaryOperator add = Integer::sum;
        Supplier<String> sup = () -> { try { return "s" + xs.size(); } catch (RuntimeException e) { return "x"; } };
        int s = xs.stream().map(sq).filter(x -> x % 2 == 1).reduce(0, (p, q) -> add.applyAsInt(p, q));
        return s + sup.get().length();
    }

    static int arrays() {
        int[][] m = new int[4][5];
        for (int i = 0; i < 4; i++) for (int j = 0; j < 5; j++) m[i][j] = i * j;
        long[] l = {1, 2, 3};
        String[] ss = new String[] {"a", null};
        int n = 0;
        for (int[] row : m) for (int v : row) n += v;
        return n + (int) l[2] + (ss[1] == null ? 1 : 0);
    }

    static String instanceOfs(Object o) {
        if (o instanceof String s && s.length() > 2) return "str:" + s;
        if (o instanceof Integer i) return "int:" + (i + 1);
        return "obj";
    }

    static int labeled(int n) {
        int c = 0;
        outer:
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < n; j++) {
                if (j == i) continue outer;
                if (i + j > 7) break outer;
                c++;
            }
        }
        return c;
    }

    static void voidReturnInLoop(int n) {
        for (int i = 0; ; i++) {
            if (i == n) return;
            counter += i;
        }
    }

    static int tryInLoop(int n) {
        int ok = 0;
        for (int i = 0; i < n; i++) {
            try {
                if (i % 3 == 0) throw new Exception("e" + i);
                ok++;
            } catch (Exception e) {
                ok += 10;
                continue;
            } finally {
                ok += 100;
            }
        }
        return ok;
    }

    static int tryWithResources() throws Exception {
        class R implements AutoCloseable {
            final String n;
            R(String n) { this.n = n; }
            public void close() throws Exception {
                LOG.append("close ").append(n).append(';');
                if (n.equals("bad")) throw new Exception("close failed");
            }
        }
        int r = 0;
        try (R a = new R("a"); R b = new R("b")) {
            r += a.n.length() + b.n.length();
        }
        try (R c = new R("bad")) {
            r += 5;
            throw new IllegalStateException("body");
        } catch (IllegalStateException e) {
            r += e.getSuppressed().length * 100;
        }
        return r;
    }

    static int uncaughtFromStaticInit() {
        try {
            return BadInit.VALUE;
        } catch (ExceptionInInitializerError e) {
            return -1;
        } catch (NoClassDefFoundError e) {
            return -2;
        }
    }

    static String iface() {
        Shape s = new Square(3);
        Shape t = () -> 2.5;
        return s.describe() + "|" + t.describe() + "|" + Shape.unit().area();
    }

    static int threads() throws InterruptedException {
        int[] box = new int[1];
        Thread t = new Thread(() -> {
            for (int i = 0; i < 100; i++) synchronized (box) { box[0] += i; }
            try { thrower(2); } catch (RuntimeException e) { synchronized (box) { box[0] += 1; } }
        });
        t.start();
        t.join();
        return box[0];
    }

    public static void main(String[] args) throws Exception {
        System.out.println("loopToZero " + loopToZero(5) + " " + counter);
        System.out.println("doLoop " + doLoopToZero(4));
        for (int k = 0; k < 4; k++) System.out.println("nested " + k + " " + nested(k));
        for (int x = -1; x < 7; x++) System.out.println("table " + x + " " + tableSwitch(x));
        for (int x : new int[] {-1000, 7, 1 << 20, Integer.MAX_VALUE, 3}) System.out.println("lookup " + lookupSwitch(x));
        for (String s : new String[] {"alpha", "beta", "Aa", "BB", "zz"}) System.out.println("sswitch " + stringSwitch(s));
        for (Color c : Color.values()) System.out.println("enum " + enumSwitch(c));
        System.out.println("sync " + syncBlock(10));
        try { syncBlock(100); } catch (ArithmeticException e) { System.out.println("sync threw " + e.getMessage()); }
        System.out.println("syncM " + syncMethod(3, 4.5));
        try { syncMethod(1, -1); } catch (IllegalArgumentException e) { System.out.println("syncM threw"); }
        System.out.println("deep " + catchDeep());
        System.out.println("ld " + longsAndDoubles(3, 2.5, 5, 1.5f));
        System.out.println("tern " + ternaries(1, 5) + " " + ternaries(9, 2) + " " + ternaries(3, 2));
        System.out.println("lambdas " + lambdas(List.of(1, 2, 3, 4, 5)));
        System.out.println("arrays " + arrays());
        System.out.println("iof " + instanceOfs("hello") + instanceOfs(4) + instanceOfs(2.0));
        System.out.println("labeled " + labeled(6));
        voidReturnInLoop(5);
        System.out.println("counter " + counter);
        System.out.println("tryInLoop " + tryInLoop(7));
        System.out.println("twr " + tryWithResources() + " " + LOG);
        System.out.println("badinit " + uncaughtFromStaticInit() + " " + uncaughtFromStaticInit());
        System.out.println("iface " + iface());
        System.out.println("threads " + threads());
        Ctors.run();
        Big.run();
        System.out.println("done");
    }
}

class BadInit {
    static final int VALUE;
    static {
        if (Main.counter >= 0) throw new IllegalStateException("bad init");
        VALUE = 1;
    }
}

interface Shape {
    double area();
    default String describe() {
        try {
            return getClass().getSimpleName().isEmpty() ? "lambda:" + area() : "shape:" + area();
        } finally {
            Main.counter++;
        }
    }
    static Shape unit() { return () -> 1.0; }
}

class Square implements Shape {
    final double side;
    Square(double side) { this.side = side; }
    public double area() { return side * side; }
}
