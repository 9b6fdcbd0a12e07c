package io.echomq.structure;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A committed text file that records what a structure check found on the tree as it is: the check
 * fails on any difference, both ways, so the file stays exact and a fix shows as a shrinking file in
 * review. Lines starting with {@code #} are comments; blank lines are ignored. With the system
 * property {@value #UPDATE_PROPERTY}{@code =true} the check rewrites the file instead.
 */
final class Baseline {

    /** The system property that makes a structure check rewrite its baseline instead of comparing. */
    static final String UPDATE_PROPERTY = "emq.structure.update";

    /** The one command that rewrites every structure baseline of echomq-core. */
    static final String UPDATE_COMMAND = "mvn -B -o verify -pl echomq-core -am -Dtest=SourceStructureTest"
            + " -Dsurefire.failIfNoSpecifiedTests=false -D" + UPDATE_PROPERTY + "=true";

    private Baseline() {
    }

    /** @return whether this run rewrites the baselines */
    static boolean updating() {
        return Boolean.getBoolean(UPDATE_PROPERTY);
    }

    /**
     * @param file the baseline
     * @return its lines but comments and blank ones, trimmed; none when the file does not exist
     * @throws UncheckedIOException if it exists and cannot be read
     */
    static List<String> read(Path file) {
        if (!Files.exists(file)) {
            return List.of();
        }
        try {
            List<String> lines = new ArrayList<>();
            for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
                if (!line.isBlank() && !line.startsWith("#")) {
                    lines.add(line.trim());
                }
            }
            return lines;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file, e);
        }
    }

    /**
     * Writes the baseline: the header, each line of it after {@code "# "}, then the entries.
     *
     * @throws UncheckedIOException if it cannot be written
     */
    static void write(Path file, List<String> header, List<String> entries) {
        List<String> lines = new ArrayList<>();
        header.forEach(h -> lines.add("# " + h));
        lines.addAll(entries);
        try {
            Files.createDirectories(file.getParent());
            Files.write(file, lines, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file, e);
        }
    }
}
