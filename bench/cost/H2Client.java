package cost;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;

/**
 * H2 cell's client: over JDBC to an H2 TCP server (the traced JVM), creates a table,
 * inserts ROWS rows, then runs QUERIES queries that scan the table (no index on V)
 * and times them.
 *
 * Usage: java -cp h2.jar:. cost.H2Client jdbc:h2:tcp://localhost:PORT/mem:bench ROWS QUERIES
 * Prints insert_ns=..., query_ns=..., queries=..., check=...
 */
public final class H2Client {
    public static void main(final String[] args) throws Exception {
        final String url = args[0];
        final int rows = Integer.parseInt(args[1]);
        final int queries = Integer.parseInt(args[2]);
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
            final long t2 = System.nanoTime();
            System.out.println("insert_ns=" + (t1 - t0));
            System.out.println("query_ns=" + (t2 - t1));
            System.out.println("queries=" + queries);
            System.out.println("check=" + check);
        }
    }
}
