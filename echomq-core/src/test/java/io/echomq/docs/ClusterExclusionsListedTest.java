package io.echomq.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every test tagged {@code standalone-only} in {@code echomq-core} (left out of the cluster passes) is listed in
 * docs/scaling.md's table of exclusions, by class and, for a tagged method, by method: the page may not claim more
 * cluster coverage than the build gives.
 */
class ClusterExclusionsListedTest {
    private static final Pattern TAG = Pattern.compile("Tag\\(\"standalone-only\"\\)");
    private static final Pattern NEXT = Pattern.compile("\\bvoid (\\w+)\\(|\\bclass (\\w+)");

    @Test
    void everyStandaloneOnlyTestIsInTheTable() throws IOException {
        Path root = DocSnippets.root();
        List<String> table = Files.readAllLines(root.resolve("docs/scaling.md")).stream()
                .filter(l -> l.startsWith("| `")).toList();
        List<String> missing = new ArrayList<>();
        int tagged = 0;
        try (Stream<Path> files = Files.walk(root.resolve("echomq-core/src/test/java"))) {
            for (Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
                String src = Files.readString(f);
                String cls = f.getFileName().toString().replace(".java", "");
                Matcher tag = TAG.matcher(src);
                while (tag.find()) {
                    if (f.getFileName().toString().equals("ClusterExclusionsListedTest.java")) {
                        continue;
                    }
                    tagged++;
                    Matcher next = NEXT.matcher(src);
                    String method = next.find(tag.end()) ? next.group(1) : null;
                    boolean listed = table.stream().anyMatch(l -> l.contains("`" + cls)
                            && (method == null || l.contains(method)));
                    if (!listed) {
                        missing.add(cls + (method == null ? "" : "." + method));
                    }
                }
            }
        }
        assertThat(tagged).as("tagged tests found").isGreaterThan(20);
        assertThat(missing).as("standalone-only tests missing from docs/scaling.md").isEmpty();
    }
}
