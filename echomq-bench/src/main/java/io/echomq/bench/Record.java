package io.echomq.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * Every figure of one bench run as {@code name<TAB>value} lines, appended to the file named by
 * {@code --record} (run-all.sh takes the medians across runs from them). Missing figures are
 * left out.
 */
final class Record {
    private final Map<String, Double> figures = new LinkedHashMap<>();

    /** Notes {@code value} under {@code name}, unless it is NaN. */
    void put(String name, double value) {
        if (!Double.isNaN(value)) {
            figures.put(name, value);
        }
    }

    /**
     * Appends the figures to {@code file}; does nothing when it is null.
     *
     * @throws UncheckedIOException if the file cannot be written
     */
    void writeTo(Path file) {
        if (file == null) {
            return;
        }
        StringBuilder b = new StringBuilder();
        figures.forEach((k, v) -> b.append(k).append('\t').append(String.format(Locale.ROOT, "%.3f", v)).append('\n'));
        try {
            Files.writeString(file, b, StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file, e);
        }
    }
}
