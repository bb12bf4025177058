package demo.api;

/** Exported helper that other bundles call directly. */
public final class Calc {
    private Calc() {}

    public static long fib(int n) {
        return n < 2 ? n : fib(n - 1) + fib(n - 2);
    }

    public static int checkedDivide(int a, int b) {
        if (b == 0) {
            throw new IllegalArgumentException("divide by zero");
        }
        return a / b;
    }
}
