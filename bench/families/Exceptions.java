package families;

/**
 * Exception family: an exception thrown three frames down and caught by the caller,
 * n times.
 *
 * Usage: java families.Exceptions N
 * Prints: loop_ns=..., ops=... (exceptions thrown), check=...
 */
public final class Exceptions {
    static final class Oops extends RuntimeException {
        private static final long serialVersionUID = 1L;
        final int value;

        Oops(final int value) {
            super("oops");
            this.value = value;
        }
    }

    static int level3(final int i) {
        if (i >= 0) {
            throw new Oops(i);
        }
        return i;
    }

    static int level2(final int i) {
        return level3(i + 1) + 1;
    }

    static int level1(final int i) {
        return level2(i + 1) + 1;
    }

    static int attempt(final int i) {
        try {
            return level1(i);
        } catch (Oops e) {
            return e.value;
        }
    }

    public static void main(final String[] args) {
        final int n = Integer.parseInt(args[0]);
        long check = 0;
        final long t0 = System.nanoTime();
        for (int i = 0; i < n; i++) {
            check += attempt(i);
        }
        final long t1 = System.nanoTime();
        System.out.println("loop_ns=" + (t1 - t0));
        System.out.println("ops=" + n);
        System.out.println("check=" + check);
    }
}
