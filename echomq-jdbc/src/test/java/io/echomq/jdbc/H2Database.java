package io.echomq.jdbc;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;

/** A fresh in-memory H2 database per test: connections to it, plain SQL, and a read of one row. */
final class H2Database implements AutoCloseable {
    private final String url = "jdbc:h2:mem:emq-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1";

    String url() {
        return url;
    }

    void insertOrder(Connection c, String id) throws SQLException {
        try (java.sql.PreparedStatement ps = c.prepareStatement("INSERT INTO orders (id) VALUES (?)")) {
            ps.setString(1, id);
            ps.executeUpdate();
        }
    }

    Connection connect() throws SQLException {
        return DriverManager.getConnection(url);
    }

    void exec(String sql) throws SQLException {
        try (Connection c = connect(); Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }

    /** @return "body@fence" of the row, or null when it is absent */
    String row(String table, String key) throws SQLException {
        try (Connection c = connect(); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT body, fence FROM " + table + " WHERE id = '" + key + "'")) {
            return rs.next() ? rs.getString(1) + "@" + rs.getLong(2) : null;
        }
    }

    long count(String table) throws SQLException {
        try (Connection c = connect(); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM " + table)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    @Override
    public void close() throws SQLException {
        exec("SHUTDOWN");
    }
}
