package demo;

/** Code under test of the Gradle case. */
public final class Calc {
    private Calc() {}

    public static long fib(int n) {
        return n < 2 ? n : fib(n - 1) + fib(n - 2);
    }
}
