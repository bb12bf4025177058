package shop;

import java.util.HashMap;
import java.util.Map;
import java.util.NoSuchElementException;

/** Prices by SKU; an unknown SKU costs 0. */
public final class Catalog {
    /** The planted regression "exceptions": an exception per unknown SKU, caught by the caller. */
    static final boolean EXCEPTIONS = false; // gate: exceptions

    private final Map<String, Long> prices = new HashMap<>();

    public void put(String sku, long cents) {
        prices.put(sku, cents);
    }

    public long priceOf(String sku) {
        if (EXCEPTIONS) {
            try {
                return find(sku);
            } catch (NoSuchElementException e) {
                return 0;
            }
        }
        Long p = prices.get(sku);
        return p == null ? 0 : p;
    }

    long find(String sku) {
        Long p = prices.get(sku);
        if (p == null) {
            throw new NoSuchElementException(sku);
        }
        return p;
    }
}
