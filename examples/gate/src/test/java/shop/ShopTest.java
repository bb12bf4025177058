package shop;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.sql.Connection;
import java.sql.DriverManager;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The gate's example suite. Each test prints its own truth for the gate's check
 * (xtask/src/steps/gate_tests.rs): `TRUTH|test|regression|metric|item|extra`, the count the
 * planted regression of that name adds to that item's metric (a method's calls, a
 * class's allocations or exceptions) when it is switched on.
 */
class ShopTest {
    // H2 keeps recent values in a soft-referenced cache: whether a value is found there
    // depends on when the collector last ran, and with it a call or two inside H2 (a
    // cached value's getValueType). Off, the suite's counts are its own on every run,
    // as the gate judges them: exactly.
    static {
        System.setProperty("h2.objectCache", "false");
    }

    static final int ITEMS = 500;
    static final int ORDERS = 40;

    static void truth(String test, String regression, String metric, String item, long extra) {
        System.out.println("TRUTH|" + test + "|" + regression + "|" + metric + "|" + item + "|" + extra);
    }

    static List<String> lines(int n) {
        List<String> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            out.add("sku" + i + ";" + (100 + i % 7) + ";" + (1 + i % 3));
        }
        return out;
    }

    @Test
    void totals() {
        List<Item> items = new ArrayList<>(ITEMS);
        long expected = 0;
        for (int i = 0; i < ITEMS; i++) {
            items.add(new Item("sku" + i, 100 + i % 7, 1 + i % 3));
            expected += (100 + i % 7) * (1 + i % 3);
        }
        assertEquals(expected, new Cart(items).total());
        truth("totals", "extra-call", "calls", "shop.Cart.discount(Lshop/Item;)J", items.size());
    }

    @Test
    void parses() {
        List<Item> items = Parser.parse(lines(ITEMS));
        assertEquals(ITEMS, items.size());
        truth("parses", "extra-alloc", "alloc", "long[]", ITEMS);
    }

    @Test
    void prices() {
        Catalog c = new Catalog();
        for (int i = 0; i < 50; i++) {
            c.put("sku" + i, 100 + i);
        }
        long sum = 0;
        int unknown = 0;
        for (int i = 0; i < 200; i++) {
            long p = c.priceOf("sku" + i);
            if (p == 0) {
                unknown++;
            }
            sum += p;
        }
        assertEquals(50 * 100 + 49 * 50 / 2, sum);
        truth("prices", "exceptions", "exceptions", "java.util.NoSuchElementException", unknown);
    }

    @Test
    void loadsOrders() throws Exception {
        try (Connection db = DriverManager.getConnection("jdbc:h2:mem:shop")) {
            Orders o = new Orders(db);
            o.create(ORDERS, 3);
            Map<Integer, List<Integer>> all = o.load();
            assertEquals(ORDERS, all.size());
            assertEquals(List.of(1, 2, 3), all.get(7));
            truth("loadsOrders", "n-plus-one", "calls", "shop.Orders.query(Ljava/lang/String;I)Ljava/sql/ResultSet;", all.size());
        }
    }
}
