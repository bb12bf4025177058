package demo;

import static org.junit.Assert.assertEquals;

import org.junit.Test;

public class CalcTest {
    @Test
    public void fib() {
        assertEquals(6765L, Calc.fib(20));
    }
}
