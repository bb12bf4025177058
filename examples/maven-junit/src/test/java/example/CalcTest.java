// JUnit 5 tests of the example project: each prints its own ground truth (TRUTH lines)
// for the jtrace test suite to compare with the trace, `jtrace tests` and `jtrace coverage`.
package example;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class CalcTest {
    private Calc calc;

    @BeforeEach
    void setUp() {
        calc = new Calc();
    }

    /** Calls of fib(n), computed without Calc. */
    static int fibCalls(int n) {
        return n < 2 ? 1 : 1 + fibCalls(n - 1) + fibCalls(n - 2);
    }

    /**
     * TRUTH|method|display name|outcome|calls of Calc.fib|calls of Calc.classify|
     * classify-test|classify-even|classify-odd|classify-return|never
     */
    static void truth(TestInfo t, String outcome, int fib, int even, int odd) {
        int classify = even + odd;
        System.out.println("TRUTH|" + t.getTestMethod().get().getName() + "|" + t.getDisplayName()
                + "|" + outcome + "|" + fib + "|" + classify + "|" + classify + "|" + even
                + "|" + odd + "|" + classify + "|0");
    }

    @Test
    void fibonacci(TestInfo t) {
        assertEquals(55, calc.fib(10));
        truth(t, "SUCCESSFUL", fibCalls(10), 0, 0);
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3})
    void classifies(int n, TestInfo t) {
        int even = 0;
        int odd = 0;
        for (int i = 0; i < n * 5; i++) {
            if (calc.classify(i)) {
                even++;
            } else {
                odd++;
            }
        }
        assertEquals(even, calc.evens());
        truth(t, "SUCCESSFUL", 0, even, odd);
    }

    @Test
    void fails(TestInfo t) {
        int f = calc.fib(4);
        truth(t, "FAILED", fibCalls(4), 0, 0);
        assertEquals(4, f, "fib(4) is 3: this test fails on purpose");
    }

    @Test
    void threads(TestInfo t) throws InterruptedException {
        List<Thread> threads = new ArrayList<>();
        for (int k = 0; k < 2; k++) {
            final int base = k;
            Thread th = new Thread(() -> {
                for (int i = 0; i < 10; i++) {
                    calc.classify(base * 10 + i);
                }
            }, "worker-" + k);
            threads.add(th);
            th.start();
        }
        for (Thread th : threads) {
            th.join();
        }
        assertEquals(10, calc.evens());
        truth(t, "SUCCESSFUL", 0, 10, 10);
    }
}
