// Exceptions thrown through several traced frames and caught: every frame still exits,
// in unwinding order.

public class Exceptions {
    static final int ROUNDS = 25;
    static int aCalls, bCalls, cCalls, caught;
    static int bThrough, cThrough;

    static void c(int i) {
        cCalls++;
        if (i % 5 != 4) {
            throw new IllegalStateException("round " + i);
        }
    }

    static void b(int i) {
        bCalls++;
        c(i);
    }

    static void a(int i) {
        aCalls++;
        try {
            b(i);
        } catch (IllegalStateException e) {
            // The exception left c and b by unwinding.
            caught++;
            cThrough++;
            bThrough++;
        }
    }

    public static void main(String[] args) {
        for (int i = 0; i < ROUNDS; i++) {
            a(i);
        }
        System.out.println("EXPECT calls Exceptions.a " + aCalls);
        System.out.println("EXPECT exits Exceptions.a " + aCalls);
        System.out.println("EXPECT calls Exceptions.b " + bCalls);
        System.out.println("EXPECT exits Exceptions.b " + bCalls);
        System.out.println("EXPECT calls Exceptions.c " + cCalls);
        System.out.println("EXPECT exits Exceptions.c " + cCalls);
        System.out.println("EXPECT exception-exits Exceptions.c " + cThrough);
        System.out.println("EXPECT exception-exits Exceptions.b " + bThrough);
        System.out.println("EXPECT exception-exits Exceptions.a 0");
        // TPTP: a throw for every traced frame the exception passes through, including
        // the one that catches it; a catch for the catching frame.
        System.out.println("EXPECT throws Exceptions.c " + caught);
        System.out.println("EXPECT throws Exceptions.b " + caught);
        System.out.println("EXPECT throws Exceptions.a " + caught);
        System.out.println("EXPECT catches Exceptions.a " + caught);
        System.out.println("EXPECT catches Exceptions.b 0");
        System.out.println("EXPECT exit-code 0");
    }
}
