package io.echomq.queue;

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
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Counts how often the queue's parts name a facade ({@link #FACADES}) in their code: every main
 * source file of {@code io.echomq.queue} (its role folders included) that is not a facade, nested
 * classes with their file,
 * comments, javadoc and string literals left out. A part is given what it needs (a
 * {@code QueueContext}, a logger, a rule's owner) instead of reaching back up into the facade it
 * serves, so the total must stay at {@link #CEILING}: none. The table printed on each run names
 * every file and facade found, entry points included.
 *
 * <p>The package's public tools ({@link #ENTRY_POINTS}) are left out of the total, by design: they
 * are entry points a user calls with a {@code QueueClient} or a {@code QueueOperations}, so their
 * signatures name one. Adding one is a decision made in that list, in review, never by raising the
 * ceiling; no part below a facade names one.
 */
class FacadeReferencesTest {
    /** The public entry types of the package; everything else in it is a part. */
    static final Set<String> FACADES = Set.of("Queue", "QueueClient", "ShardedQueue", "Worker", "QueueOperations",
            "QueueFacade");
    /** The public tools whose signatures take a facade: listed, not counted. */
    static final Set<String> ENTRY_POINTS = Set.of("JobLock", "JobTimeline", "QueueDirectory", "WorkerDirectory",
            "ThroughputHistory", "QueueEventSettings", "ErrorGroups", "JobErrors");
    /** The highest total accepted from the parts: none. */
    static final int CEILING = 0;
    private static final Path PACKAGE = Path.of("src", "main", "java", "io", "echomq", "queue");
    private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_$][A-Za-z0-9_$]*");

    @Test
    void partsNameTheirFacadesNoMoreThanTheCeiling() {
        Map<String, Map<String, Integer>> byFile = count(PACKAGE);
        assertThat(byFile).as("no parts found under %s", PACKAGE.toAbsolutePath()).isNotEmpty();
        for (String tool : ENTRY_POINTS) {
            assertThat(PACKAGE.resolve(tool + ".java")).as("entry point %s is a file of the package", tool).exists();
        }
        int total = byFile.entrySet().stream()
                .filter(e -> !ENTRY_POINTS.contains(e.getKey().substring(0, e.getKey().length() - ".java".length())))
                .flatMap(e -> e.getValue().values().stream()).mapToInt(Integer::intValue).sum();
        System.out.println(table(byFile, total));
        assertThat(total).as("facade references from parts (ceiling %d):%n%s", CEILING, table(byFile, total))
                .isLessThanOrEqualTo(CEILING);
    }

    @Test
    void commentsStringsAndLookalikeNamesAreNotCounted() {
        String source = """
                /** {@link Queue#MAX_CLAIM} and QueueClient in javadoc */
                final class Part { // Worker in a line comment
                    /* ShardedQueue in a block comment */
                    String s = "Queue.MIN_LEASE \\" QueueClient";
                    char c = '"';
                    QueueClientish notAFacade; QueueLimits limits; Queue.Claimed claimed;
                    Logger log = LoggerFactory.getLogger(Worker.class);
                    Part(QueueClient client, QueueOperations q) { }
                    String block = \"""
                        Queue in a text block
                        \""";
                }
                """;
        assertThat(references(strip(source))).containsExactlyInAnyOrderEntriesOf(
                Map.of("Queue", 1, "Worker", 1, "QueueClient", 1, "QueueOperations", 1));
    }

    /** @return per part file under {@code dir}, the facades it names and how often */
    static Map<String, Map<String, Integer>> count(Path dir) {
        Map<String, Map<String, Integer>> byFile = new TreeMap<>();
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path p : (Iterable<Path>) files::iterator) {
                String file = p.getFileName().toString();
                if (!file.endsWith(".java") || FACADES.contains(file.substring(0, file.length() - 5))) {
                    continue;
                }
                Map<String, Integer> refs = references(strip(Files.readString(p, StandardCharsets.UTF_8)));
                if (!refs.isEmpty()) {
                    byFile.put(file, refs);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return byFile;
    }

    /** @return each facade named as an identifier in {@code code}, and how often */
    static Map<String, Integer> references(String code) {
        Map<String, Integer> refs = new TreeMap<>();
        Matcher m = IDENTIFIER.matcher(code);
        while (m.find()) {
            boolean member = m.start() > 0 && code.charAt(m.start() - 1) == '.'
                    && !FACADES.contains(m.group());
            if (!member && FACADES.contains(m.group())) {
                refs.merge(m.group(), 1, Integer::sum);
            }
        }
        return refs;
    }

    /** @return {@code source} with comments, text blocks, string and char literals blanked out */
    static String strip(String source) {
        StringBuilder out = new StringBuilder(source.length());
        int i = 0;
        int n = source.length();
        while (i < n) {
            char c = source.charAt(i);
            if (source.startsWith("//", i)) {
                int end = source.indexOf('\n', i);
                i = end < 0 ? n : end;
            } else if (source.startsWith("/*", i)) {
                int end = source.indexOf("*/", i + 2);
                i = end < 0 ? n : end + 2;
                out.append(' ');
            } else if (source.startsWith("\"\"\"", i)) {
                int j = i + 3;
                while (j < n && !source.startsWith("\"\"\"", j)) {
                    j += source.charAt(j) == '\\' ? 2 : 1;
                }
                i = Math.min(n, j + 3);
                out.append("\"\"");
            } else if (c == '"' || c == '\'') {
                int j = i + 1;
                while (j < n && source.charAt(j) != c) {
                    j += source.charAt(j) == '\\' ? 2 : 1;
                }
                i = Math.min(n, j + 1);
                out.append(c).append(c);
            } else {
                out.append(c);
                i++;
            }
        }
        return out.toString();
    }

    private static String table(Map<String, Map<String, Integer>> byFile, int total) {
        StringBuilder t = new StringBuilder("facade references from io.echomq.queue parts\n");
        List<String> rows = new ArrayList<>();
        byFile.forEach((file, refs) -> rows.add(String.format("  %-28s %4d  %s",
                file, refs.values().stream().mapToInt(Integer::intValue).sum(), refs)));
        rows.forEach(r -> t.append(r).append('\n'));
        return t.append(String.format("  %-28s %4d%n", "total", total)).toString();
    }
}
