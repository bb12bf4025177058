package shop;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Orders and their lines in an embedded database (H2). */
public final class Orders {
    /** The planted regression "n-plus-one": one query per order instead of one join. */
    static final boolean N_PLUS_ONE = false; // gate: n-plus-one

    private final Connection db;

    public Orders(Connection db) {
        this.db = db;
    }

    public void create(int orders, int linesPerOrder) throws SQLException {
        try (var s = db.createStatement()) {
            s.execute("CREATE TABLE orders(id INT PRIMARY KEY)");
            s.execute("CREATE TABLE lines(order_id INT, qty INT)");
        }
        try (var o = db.prepareStatement("INSERT INTO orders VALUES (?)");
                var l = db.prepareStatement("INSERT INTO lines VALUES (?, ?)")) {
            for (int i = 0; i < orders; i++) {
                o.setInt(1, i);
                o.executeUpdate();
                for (int j = 0; j < linesPerOrder; j++) {
                    l.setInt(1, i);
                    l.setInt(2, j + 1);
                    l.executeUpdate();
                }
            }
        }
    }

    /** Per order id, the quantities of its lines. */
    public Map<Integer, List<Integer>> load() throws SQLException {
        Map<Integer, List<Integer>> out = new LinkedHashMap<>();
        if (N_PLUS_ONE) {
            for (int id : ids(query("SELECT id FROM orders ORDER BY id", -1))) {
                out.put(id, ids(query("SELECT qty FROM lines WHERE order_id = ? ORDER BY qty", id)));
            }
            return out;
        }
        try (ResultSet r = query(
                "SELECT o.id, l.qty FROM orders o JOIN lines l ON l.order_id = o.id ORDER BY o.id, l.qty",
                -1)) {
            while (r.next()) {
                out.computeIfAbsent(r.getInt(1), k -> new ArrayList<>()).add(r.getInt(2));
            }
        }
        return out;
    }

    /** Runs one query (`arg` >= 0 binds the first parameter). */
    ResultSet query(String sql, int arg) throws SQLException {
        PreparedStatement p = db.prepareStatement(sql);
        if (arg >= 0) {
            p.setInt(1, arg);
        }
        p.closeOnCompletion();
        return p.executeQuery();
    }

    private static List<Integer> ids(ResultSet r) throws SQLException {
        List<Integer> out = new ArrayList<>();
        try (r) {
            while (r.next()) {
                out.add(r.getInt(1));
            }
        }
        return out;
    }
}
