// JUnit 4 tests of examples/maven-junit's Calc for Ant's <junit> and JUnit's vintage engine:
// each prints its own ground truth (TRUTH lines, as examples/maven-junit's CalcTest does).
package example;

import static org.junit.Assert.assertEquals;

import java.util.ArrayList;
import java.util.List;
import org.junit.Before;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TestName;

public class CalcTest {
    @Rule
    public TestName test = new TestName();

    private Calc calc;

    @Before
    public void setUp() {
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
    void truth(String outcome, int fib, int even, int odd) {
        int classify = even + odd;
        String m = test.getMethodName();
        System.out.println("TRUTH|" + m + "|" + m + "|" + outcome + "|" + fib + "|" + classify
                + "|" + classify + "|" + even + "|" + odd + "|" + classify + "|0");
    }

    @Test
    public void fibonacci() {
        assertEquals(55, calc.fib(10));
        truth("SUCCESSFUL", fibCalls(10), 0, 0);
    }

    void classifies(int n) {
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
        truth("SUCCESSFUL", 0, even, odd);
    }

    @Test
    public void classifiesFive() {
        classifies(1);
    }

    @Test
    public void classifiesTen() {
        classifies(2);
    }

    @Test
    public void classifiesFifteen() {
        classifies(3);
    }

    @Test
    public void fails() {
        int f = calc.fib(4);
        truth("FAILED", fibCalls(4), 0, 0);
        assertEquals("fib(4) is 3: this test fails on purpose", 4, f);
    }

    @Test
    public void threads() throws InterruptedException {
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
        truth("SUCCESSFUL", 0, 10, 10);
    }
}
