package cost;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;

/**
 * H2 cell's client: over JDBC to an H2 TCP server (the traced JVM), creates a table,
 * inserts ROWS rows, then runs QUERIES queries of one of two kinds and times them:
 * <ul>
 * <li>{@code range} (issue 18's workload): {@code SELECT ID, NAME, V FROM T WHERE ID
 *     BETWEEN ? AND ?} over 150 consecutive keys (the primary key's index), every row
 *     read; about 26,000 traced server calls per query over the whole run;</li>
 * <li>{@code scan}: {@code SELECT COUNT(*), SUM(ID) ... WHERE V = ?} (no index on V:
 *     the whole table is scanned); about 600,000 traced calls per query.</li>
 * </ul>
 *
 * Usage: java -cp h2.jar:. cost.H2Client jdbc:h2:tcp://localhost:PORT/mem:bench ROWS QUERIES range|scan
 * Prints insert_ns=..., query_ns=..., queries=..., check=...
 */
public final class H2Client {
    /** Keys per range query. */
    private static final int WIDTH = 150;

    public static void main(final String[] args) throws Exception {
        final String url = args[0];
        final int rows = Integer.parseInt(args[1]);
        final int queries = Integer.parseInt(args[2]);
        final boolean scan = args[3].equals("scan");
        if (!scan && !args[3].equals("range")) {
            throw new IllegalArgumentException("workload: range or scan, not " + args[3]);
        }
        long check = 0;
        try (Connection c = DriverManager.getConnection(url, "sa", "")) {
            try (Statement s = c.createStatement()) {
                s.execute("DROP TABLE IF EXISTS T");
                s.execute("CREATE TABLE T(ID INT PRIMARY KEY, NAME VARCHAR(64), V INT)");
            }
            final long t0 = System.nanoTime();
            try (PreparedStatement p = c.prepareStatement("INSERT INTO T VALUES(?, ?, ?)")) {
                for (int i = 0; i < rows; i++) {
                    p.setInt(1, i);
                    p.setString(2, "name-" + i);
                    p.setInt(3, i % 97);
                    p.executeUpdate();
                }
            }
            final long t1 = System.nanoTime();
            if (scan) {
                try (PreparedStatement p = c.prepareStatement(
                        "SELECT COUNT(*), SUM(ID) FROM T WHERE V = ? AND NAME LIKE 'name-%'")) {
                    for (int q = 0; q < queries; q++) {
                        p.setInt(1, q % 97);
                        try (ResultSet r = p.executeQuery()) {
                            r.next();
                            check += r.getLong(1) + r.getLong(2);
                        }
                    }
                }
            } else {
                try (PreparedStatement p = c.prepareStatement(
                        "SELECT ID, NAME, V FROM T WHERE ID BETWEEN ? AND ?")) {
                    final int span = Math.max(1, rows - WIDTH);
                    for (int q = 0; q < queries; q++) {
                        final int lo = (int) ((q * 7919L) % span);
                        p.setInt(1, lo);
                        p.setInt(2, lo + WIDTH - 1);
                        try (ResultSet r = p.executeQuery()) {
                            while (r.next()) {
                                check += r.getInt(1) + r.getString(2).length() + r.getInt(3);
                            }
                        }
                    }
                }
            }
            final long t2 = System.nanoTime();
            System.out.println("insert_ns=" + (t1 - t0));
            System.out.println("query_ns=" + (t2 - t1));
            System.out.println("queries=" + queries);
            System.out.println("check=" + check);
        }
    }
}
