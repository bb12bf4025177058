package p;

import java.util.ArrayList;
import java.util.List;
import java.util.function.IntUnaryOperator;

/** Sums the first n Fibonacci numbers through a lambda, a list and an inner class. */
public class C3 {
    static final class Acc {
        long total;

        void add(long v) {
            total += v;
        }
    }

    public static long fib(int n) {
        return n < 2 ? n : fib(n - 1) + fib(n - 2);
    }

    public static long sum(int n) {
        List<Long> values = new ArrayList<>();
        IntUnaryOperator id = x -> x;
        for (int i = 1; i <= n; i++) {
            values.add(fib(id.applyAsInt(i)));
        }
        Acc acc = new Acc();
        values.forEach(acc::add);
        return acc.total;
    }

    public static void main(String[] args) {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 10;
        System.out.println("fib " + n + " = " + fib(n));
        System.out.println("sum of fib 1.." + n + " = " + sum(n));
    }
}
