package io.echomq.jdbc;

import java.util.regex.Pattern;

/**
 * Checks the table and column names that {@link FencedUpdate} and {@link OnceByJobId} splice into SQL.
 *
 * <p>Duties: refuse any name that is not a plain unquoted identifier, before a statement is built. Why: names
 * cannot be bound as {@code PreparedStatement} parameters, so a strict pattern is the only thing between a
 * caller's string and the SQL text. Values are never spliced; they are always parameters.
 */
final class SqlIdentifiers {
    /** Letters, digits and underscores, not starting with a digit, at most 63 characters (PostgreSQL's limit). */
    private static final String PART = "[A-Za-z_][A-Za-z0-9_]{0,62}";
    private static final Pattern COLUMN = Pattern.compile(PART);
    /** A table may be qualified by one schema: {@code schema.table}. */
    private static final Pattern TABLE = Pattern.compile(PART + "(\\." + PART + ")?");

    private SqlIdentifiers() {
    }

    /**
     * @return {@code name}, unchanged
     * @throws IllegalArgumentException if {@code name} is null or not {@code [schema.]table} of plain identifiers
     */
    static String table(String name) {
        return check(TABLE, "table", name);
    }

    /**
     * @param what what the column is for, named in the message
     * @return {@code name}, unchanged
     * @throws IllegalArgumentException if {@code name} is null or not a plain identifier
     */
    static String column(String what, String name) {
        return check(COLUMN, what, name);
    }

    private static String check(Pattern pattern, String what, String name) {
        if (name == null || !pattern.matcher(name).matches()) {
            throw new IllegalArgumentException(what + " name " + (name == null ? "null" : "'" + name + "'")
                    + " is not a plain SQL identifier ([A-Za-z_][A-Za-z0-9_]*, at most 63 characters"
                    + (pattern == TABLE ? ", optionally schema-qualified" : "") + ")");
        }
        return name;
    }
}
