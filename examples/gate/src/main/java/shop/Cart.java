package shop;

import java.util.List;

/** A cart's total. */
public final class Cart {
    /** The planted regression "extra-call": one more call per item. */
    static final boolean EXTRA_CALL = false; // gate: extra-call

    private final List<Item> items;

    public Cart(List<Item> items) {
        this.items = items;
    }

    public long total() {
        long sum = 0;
        for (Item i : items) {
            sum += price(i);
            if (EXTRA_CALL) {
                sum += discount(i);
            }
        }
        return sum;
    }

    static long price(Item i) {
        return i.cents() * i.qty();
    }

    static long discount(Item i) {
        return 0;
    }
}
