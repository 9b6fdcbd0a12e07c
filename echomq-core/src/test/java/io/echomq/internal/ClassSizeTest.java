package io.echomq.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * No source file of echomq-core's main tree is over {@value #MAX_LINES} lines: a class that long
 * holds more than one role and is split into single-role parts (the house rule; see
 * {@code docs/architecture.md} for the parts). The build checks it, not review.
 */
class ClassSizeTest {
    static final int MAX_LINES = 400;
    private static final Path MAIN = Path.of("src", "main", "java");

    /**
     * Files allowed over the limit, by path under {@code src/main/java}. An entry must name a file
     * that exists and is still over the limit, so the list cannot go stale. {@code Worker} and
     * {@code Job} are public facades whose contracts (the worker's builder options, the job's
     * lease and stop calls) are documented where a user reads them; their work is already in
     * single-role parts.
     */
    private static final Set<String> ALLOWED = Set.of("io/echomq/queue/Worker.java", "io/echomq/queue/Job.java");

    @Test
    void noMainSourceFileIsOverTheLimit() {
        Map<String, Integer> counts = lineCounts(MAIN);
        assertThat(counts).as("no sources found under %s", MAIN.toAbsolutePath()).isNotEmpty();
        assertThat(problems(counts, MAX_LINES, ALLOWED)).isEmpty();
    }

    @Test
    void theCheckNamesEachOffenderAndItsCountAndRefusesAStaleAllowance() {
        Map<String, Integer> counts = Map.of("a/Big.java", 401, "a/Fine.java", 400, "a/Allowed.java", 900,
                "a/Shrunk.java", 120);
        assertThat(problems(counts, 400, Set.of("a/Allowed.java", "a/Shrunk.java", "a/Gone.java")))
                .containsExactly(
                        "a/Big.java has 401 lines (limit 400)",
                        "a/Gone.java is allowed over the limit but does not exist: remove it from ALLOWED",
                        "a/Shrunk.java is allowed over the limit but has 120 lines: remove it from ALLOWED");
    }

    /** @return one line per file over {@code limit} and not allowed, and per allowance no longer needed */
    static List<String> problems(Map<String, Integer> counts, int limit, Set<String> allowed) {
        List<String> problems = new ArrayList<>();
        new TreeMap<>(counts).forEach((file, lines) -> {
            if (lines > limit && !allowed.contains(file)) {
                problems.add(file + " has " + lines + " lines (limit " + limit + ")");
            }
        });
        allowed.stream().sorted().forEach(file -> {
            Integer lines = counts.get(file);
            if (lines == null) {
                problems.add(file + " is allowed over the limit but does not exist: remove it from ALLOWED");
            } else if (lines <= limit) {
                problems.add(file + " is allowed over the limit but has " + lines + " lines: remove it from ALLOWED");
            }
        });
        return problems;
    }

    /** @return the line count of every {@code .java} file under {@code root}, by its path under root with {@code /} */
    private static Map<String, Integer> lineCounts(Path root) {
        Map<String, Integer> counts = new TreeMap<>();
        try (Stream<Path> files = Files.walk(root)) {
            files.filter(p -> p.toString().endsWith(".java")).forEach(p -> {
                try {
                    counts.put(root.relativize(p).toString().replace('\\', '/'),
                            Files.readAllLines(p, StandardCharsets.UTF_8).size());
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return counts;
    }
}
