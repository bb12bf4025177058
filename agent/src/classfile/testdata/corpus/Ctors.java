import java.util.*;

/** Constructors: this(...), super(expr), try blocks, inner classes, records, enums. */
class Base {
    final String tag;
    Base(String tag) {
        if (tag == null) throw new NullPointerException("tag");
        this.tag = tag;
    }
    Base(int n, List<String> l) {
        this(n > 0 ? l.get(n - 1) : new String("none"));
    }
}

class Derived extends Base {
    int x = initX();
    final Object o;
    {
        try {
            if (x < 0) throw new IllegalStateException("neg");
        } catch (IllegalStateException e) {
            x = 0;
        }
    }

    static int initX() { return Ctors.seed++; }

    Derived(String s) {
        super(s.length() > 3 ? s.substring(0, 3) : s + "!");
        Object tmp;
        try {
            tmp = Integer.parseInt(s);
        } catch (NumberFormatException e) {
            tmp = s;
        } finally {
            x++;
        }
        o = tmp;
    }

    Derived() {
        this(new StringBuilder("ab").append(new Object() { public String toString() { return "c"; } }).toString());
    }

    Derived(int fail) {
        super(Ctors.failIf(fail));
        o = null;
    }

    class Inner {
        final int v;
        Inner(int v) {
            super();
            this.v = v + x;
        }
        int get() { return v; }
    }

    @Override
    public String toString() { return tag + "/" + x + "/" + o; }
}

/** The super call itself throws: the frame leaves without an unwind probe. */
class Derived2 extends Base {
    Derived2(String s) {
        super(s);
    }
}

record Point(int x, int y) {
    Point {
        if (x < 0) throw new IllegalArgumentException("x<0");
    }
    Point(int both) { this(both, both); }
}

enum Op {
    ADD("+") { int apply(int a, int b) { return a + b; } },
    MUL("*") { int apply(int a, int b) { return a * b; } };
    final String sym;
    Op(String sym) { this.sym = sym; }
    abstract int apply(int a, int b);
}

abstract class Shape2 {
    abstract double area();
    native void nothing();
}

public class Ctors {
    static int seed = 1;

    static String failIf(int f) {
        if (f != 0) throw new IllegalArgumentException("fail " + f);
        return "ok";
    }

    static void run() {
        System.out.println("ctor " + new Derived("12345"));
        System.out.println("ctor " + new Derived("42"));
        System.out.println("ctor " + new Derived());
        try { new Derived(3); } catch (IllegalArgumentException e) { System.out.println("ctor threw " + e.getMessage()); }
        try { new Base(null); } catch (NullPointerException e) { System.out.println("base threw " + e.getMessage()); }
        System.out.println("base " + new Base(2, List.of("p", "q")).tag + new Base(0, List.of()).tag);
        try { new Derived2(null); } catch (NullPointerException e) { System.out.println("derived2 threw " + e.getMessage()); }
        System.out.println("derived2 " + new Derived2("d2").tag);
        Derived d = new Derived("xy");
        Derived.Inner in = d.new Inner(5);
        System.out.println("inner " + in.get());
        System.out.println("rec " + new Point(3) + " " + new Point(1, 2).equals(new Point(1, 2)));
        try { new Point(-1, 0); } catch (IllegalArgumentException e) { System.out.println("rec threw"); }
        for (Op op : Op.values()) System.out.println("op " + op.sym + op.apply(6, 7));
    }
}
