package io.echomq.structure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The design rules of echomq-core's main sources that the build measures (docs/architecture.md,
 * "Rules"):
 *
 * <ul>
 *   <li>No cycle between files: the file-level dependency graph ({@link SourceGraph}) has no
 *       strongly connected component of more than one file. There is no baseline to record one in:
 *       a part that needs what is above it is given it (a value, a callback, a type parameter).
 *   <li>A size alarm on code: no file has more than {@value #MAX_CODE_LINES} lines of code
 *       (blank, comment and javadoc lines do not count), so documenting a contract never costs a
 *       design change. The alarm asks for a look at the file's roles, not for moving lines.
 * </ul>
 */
class SourceStructureTest {

    static final int MAX_CODE_LINES = 350;
    private static final Path MAIN = Path.of("src", "main", "java");
    @Test
    void noCycleBetweenFiles() {
        Map<String, String> sources = SourceGraph.read(MAIN);
        assertThat(sources).as("no sources found under %s", MAIN.toAbsolutePath()).isNotEmpty();
        List<Set<String>> now = SourceGraph.of(sources).cycles().stream().map(c -> classNames(c, sources))
                .toList();
        assertThat(cycleProblems(now))
                .as("echomq-core's main files form a cycle. Break it: give the part what it needs (a value, a "
                        + "callback, a type parameter) instead of letting it name what is above it.")
                .isEmpty();
    }

    @Test
    void noFileHasMoreCodeLinesThanTheAlarm() {
        Map<String, Integer> counts = new TreeMap<>();
        SourceGraph.read(MAIN).forEach((file, text) -> counts.put(file, SourceGraph.codeLines(text)));
        assertThat(counts).as("no sources found under %s", MAIN.toAbsolutePath()).isNotEmpty();
        System.out.println("largest main files of echomq-core by code lines: " + largest(counts, 10));
        assertThat(sizeProblems(counts, MAX_CODE_LINES)).isEmpty();
    }

    // the checks fail on planted violations

    @Test
    void aCycleThroughASamePackageUseIsFoundAndCommentsStringsAndImportsAreNot() {
        Map<String, String> sources = new LinkedHashMap<>();
        sources.put("a/A.java", "package a;\nclass A { B b; }\n");
        sources.put("a/B.java", "package a;\nimport b.C;\nclass B { C c; }\n");
        sources.put("b/C.java", "package b;\nimport a.*;\npublic class C { static final Object X = A.class; }\n");
        // D names A only in a comment, a javadoc, a string, a char and a text block, and imports E for javadoc
        sources.put("a/D.java", "package a;\nimport b.E;\n/** {@link A} {@link E} */\nclass D {\n"
                + "  // A\n  /* A */ String s = \"A\"; char c = 'A'; String t = \"\"\"\n    A \"quoted\" A\n    \"\"\";\n}\n");
        sources.put("b/E.java", "package b;\npublic class E { a.D d; }\n");
        // F's nested type G is used by H; H is used by F: a cycle through a nested type
        sources.put("a/F.java", "package a;\nclass F { static class G {} H h; }\n");
        sources.put("a/H.java", "package a;\nimport static a.F.G;\nclass H { Object g = new F.G(); }\n");
        // a sealed interface names its implementations only to close the set: no use, no cycle
        sources.put("s/Op.java", "package s;\npublic sealed interface Op permits One, s.Two {\n  Op next();\n}\n");
        sources.put("s/One.java", "package s;\npublic final class One implements Op { public Op next() { return this; } }\n");
        sources.put("s/Two.java", "package s;\npublic final class Two implements Op { public Op next() { return new One(); } }\n");
        SourceGraph graph = SourceGraph.of(sources);

        assertThat(graph.dependencies("s/Op.java")).isEmpty();
        assertThat(graph.dependencies("s/Two.java")).containsExactlyInAnyOrder("s/Op.java", "s/One.java");
        assertThat(graph.dependencies("a/D.java")).isEmpty();
        assertThat(graph.dependencies("b/E.java")).containsExactly("a/D.java");
        assertThat(graph.cycles()).containsExactly(
                Set.of("a/A.java", "a/B.java", "b/C.java"),
                Set.of("a/F.java", "a/H.java"));
    }

    @Test
    void everyCycleFailsTheCheckNamingItsFiles() {
        Set<String> abc = new TreeSet<>(Set.of("p.A", "p.B", "p.C"));
        Set<String> de = new TreeSet<>(Set.of("p.D", "p.E"));
        assertThat(cycleProblems(List.of())).isEmpty();
        assertThat(cycleProblems(List.of(abc, de)))
                .containsExactly("cycle of 3 files: p.A p.B p.C", "cycle of 2 files: p.D p.E");
    }

    @Test
    void theSizeAlarmCountsCodeNotDocumentation() {
        String documented = "package a;\n\n/**\n * A contract\n * over lines.\n */\nclass A {\n"
                + "    // a comment\n    int x; /* trailing */\n    /* a block\n       comment */\n"
                + "    String s = \"\"\"\n        text // kept\n        \"\"\";\n}\n";
        assertThat(SourceGraph.codeLines(documented)).isEqualTo(7);
        assertThat(sizeProblems(Map.of("a/Big.java", 351, "a/Fine.java", 350), 350))
                .containsExactly("a/Big.java has 351 code lines (alarm at 350): look at its roles");
    }

    /** @return one line per cycle: its size and its files */
    static List<String> cycleProblems(List<Set<String>> cycles) {
        return cycles.stream().map(c -> "cycle of " + c.size() + " files: " + String.join(" ", c)).toList();
    }

    /** @return one line per file over the alarm */
    static List<String> sizeProblems(Map<String, Integer> counts, int limit) {
        List<String> problems = new ArrayList<>();
        new TreeMap<>(counts).forEach((file, lines) -> {
            if (lines > limit) {
                problems.add(file + " has " + lines + " code lines (alarm at " + limit + "): look at its roles");
            }
        });
        return problems;
    }

    private static String largest(Map<String, Integer> counts, int n) {
        return counts.entrySet().stream()
                .sorted(Map.Entry.<String, Integer>comparingByValue(Comparator.reverseOrder()))
                .limit(n)
                .map(e -> e.getKey() + "=" + e.getValue())
                .collect(Collectors.joining(", "));
    }

    /** @return the files' class names, each as {@link SourceGraph#className} gives it */
    private static Set<String> classNames(Set<String> files, Map<String, String> sources) {
        Set<String> names = new TreeSet<>();
        files.forEach(f -> names.add(SourceGraph.className(f, sources.get(f))));
        return names;
    }
}
