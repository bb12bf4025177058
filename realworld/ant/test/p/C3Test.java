package p;

import static org.junit.Assert.assertEquals;

import java.util.Arrays;
import java.util.Collection;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.junit.runners.Parameterized;

/** JUnit 4 run in Ant's JVM: a parameterized runner (reflection, annotations, proxies). */
@RunWith(Parameterized.class)
public class C3Test {
    @Parameterized.Parameters
    public static Collection<Object[]> data() {
        return Arrays.asList(new Object[][] {{1, 1L}, {2, 2L}, {5, 12L}, {10, 143L}});
    }

    private final int n;
    private final long sum;

    public C3Test(int n, long sum) {
        this.n = n;
        this.sum = sum;
    }

    @Test
    public void sums() {
        assertEquals(sum, C3.sum(n));
    }

    @Test
    public void fib() {
        assertEquals(55L, C3.fib(10));
    }
}
