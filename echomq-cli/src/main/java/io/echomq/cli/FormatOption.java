package io.echomq.cli;

import java.io.PrintWriter;
import java.util.List;
import picocli.CommandLine.Option;

/**
 * {@code --format text|json|csv} of the listing commands, and the writer of their rows.
 *
 * <ul>
 *   <li>text: the command's own tab-separated lines, shortened for a terminal where it says so.</li>
 *   <li>json: one JSON object per line (JSON Lines), the command's columns as its names, every
 *       value whole: a stack trace keeps its lines, escaped as JSON escapes them.</li>
 *   <li>csv: RFC 4180, a header line of the column names, then one record per row; a value with
 *       a comma, a quote or a line break is quoted, so a whole stack trace is one field.</li>
 * </ul>
 */
final class FormatOption {
    /** The forms a listing prints. */
    enum Format { TEXT, JSON, CSV }

    @Option(names = "--format", paramLabel = "<format>", defaultValue = "text",
            converter = FormatConverter.class,
            description = "text, json (one object per line) or csv (with a header line); json and csv print "
                + "every value whole, errors included. Default: ${DEFAULT-VALUE}.")
    Format format = Format.TEXT;

    /** Reads {@code text}, {@code json} or {@code csv}, in any case. */
    static final class FormatConverter implements picocli.CommandLine.ITypeConverter<Format> {
        @Override
        public Format convert(String value) {
            try {
                return Format.valueOf(value.toUpperCase(java.util.Locale.ROOT));
            } catch (IllegalArgumentException e) {
                throw new picocli.CommandLine.TypeConversionException("'" + value + "' is not text, json or csv");
            }
        }
    }

    /** @return whether the rows are printed as the command's own text lines */
    boolean text() {
        return format == Format.TEXT;
    }

    /** @return a writer of rows of {@code columns} to {@code out} in the chosen machine form (json or csv) */
    Rows rows(PrintWriter out, List<String> columns) {
        return new Rows(out, columns, format);
    }
}
