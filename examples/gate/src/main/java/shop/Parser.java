package shop;

import java.util.ArrayList;
import java.util.List;

/** Items from `sku;cents;qty` lines. */
public final class Parser {
    /** The planted regression "extra-alloc": one more allocation per line. */
    static final boolean EXTRA_ALLOC = false; // gate: extra-alloc

    public static List<Item> parse(List<String> lines) {
        List<Item> out = new ArrayList<>(lines.size());
        for (String l : lines) {
            String[] f = l.split(";");
            long cents = Long.parseLong(f[1]);
            if (EXTRA_ALLOC) {
                long[] boxed = new long[] {cents};
                cents = boxed[0];
            }
            out.add(new Item(f[0], cents, Integer.parseInt(f[2])));
        }
        return out;
    }
}
