package io.echomq.cli;

import java.io.PrintWriter;
import java.util.List;

/**
 * Writes the rows of a listing in json or csv ({@link FormatOption}): a value is a String, a
 * Number, a Boolean or null (json null, an empty csv field). The csv header is written before the
 * first row, or by {@link #end()} when there was none.
 */
final class Rows {
    private final PrintWriter out;
    private final List<String> columns;
    private final FormatOption.Format format;
    private boolean headed;

    Rows(PrintWriter out, List<String> columns, FormatOption.Format format) {
        this.out = out;
        this.columns = columns;
        this.format = format;
    }

    /**
     * @param values one per column, in the columns' order
     * @throws IllegalArgumentException if there are not as many values as columns
     */
    void row(Object... values) {
        if (values.length != columns.size()) {
            throw new IllegalArgumentException(values.length + " values for " + columns.size() + " columns");
        }
        if (format == FormatOption.Format.CSV) {
            header();
            StringBuilder b = new StringBuilder();
            for (int i = 0; i < values.length; i++) {
                b.append(i == 0 ? "" : ",").append(csv(values[i]));
            }
            out.print(b.append("\r\n"));
        } else {
            StringBuilder b = new StringBuilder("{");
            for (int i = 0; i < values.length; i++) {
                b.append(i == 0 ? "" : ",").append(json(columns.get(i))).append(':').append(json(values[i]));
            }
            out.println(b.append('}'));
        }
    }

    /** Ends the output: a csv without rows still gets its header. */
    void end() {
        if (format == FormatOption.Format.CSV) {
            header();
        }
        out.flush();
    }

    private void header() {
        if (!headed) {
            headed = true;
            out.print(String.join(",", columns.stream().map(Rows::csv).toList()) + "\r\n");
        }
    }

    /** @return the value as one csv field: quoted, quotes doubled, when it holds a comma, quote or line break */
    static String csv(Object value) {
        if (value == null) {
            return "";
        }
        String s = value.toString();
        if (s.indexOf(',') < 0 && s.indexOf('"') < 0 && s.indexOf('\n') < 0 && s.indexOf('\r') < 0) {
            return s;
        }
        return '"' + s.replace("\"", "\"\"") + '"';
    }

    /** @return the value as JSON: null, a number, a boolean, or a string with every control character escaped */
    static String json(Object value) {
        if (value == null) {
            return "null";
        }
        if (value instanceof Number || value instanceof Boolean) {
            return value.toString();
        }
        String s = value.toString();
        StringBuilder b = new StringBuilder(s.length() + 2).append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                case '\n' -> b.append("\\n");
                case '\r' -> b.append("\\r");
                case '\t' -> b.append("\\t");
                default -> {
                    if (c < 0x20 || c == '\u2028' || c == '\u2029') {
                        b.append(String.format("\\u%04x", (int) c));
                    } else {
                        b.append(c);
                    }
                }
            }
        }
        return b.append('"').toString();
    }
}
