// The code under test of the example project. Lines marked `// L:name` are the ones the
// tests count (their counts are the ground truth the coverage reports must show).
package example;

public class Calc {
    private int evens;
    private int odds;

    public int fib(int n) {
        if (n < 2) {
            return n;
        }
        return fib(n - 1) + fib(n - 2);
    }

    public synchronized boolean classify(int x) {
        boolean even = x % 2 == 0;         // L:classify-test
        if (even) {
            evens++;                       // L:classify-even
        } else {
            odds++;                        // L:classify-odd
        }
        return even;                       // L:classify-return
    }

    public int evens() {
        return evens;
    }

    public int odds() {
        return odds;
    }

    public int neverCalled() {
        return 42;                         // L:never
    }
}
