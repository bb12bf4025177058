package demo.util;

import java.util.stream.Collectors;
import java.util.stream.IntStream;

/** Exported utilities, a bundle without an activator. */
public final class Strings {
    private Strings() {}

    public static String reverse(String s) {
        return new StringBuilder(s).reverse().toString();
    }

    public static String squares(int n) {
        return IntStream.rangeClosed(1, n).map(i -> i * i).mapToObj(Integer::toString)
                .collect(Collectors.joining(","));
    }
}
