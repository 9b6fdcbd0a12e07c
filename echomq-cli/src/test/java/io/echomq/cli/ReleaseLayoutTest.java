package io.echomq.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The release's layout holds together: the BOM is at the parent's version and names exactly the
 * published modules (those whose pom does not set {@code echomq.unpublished}), every published
 * module has its API listing, and the test counts docs/reliability.md states are true floors.
 */
class ReleaseLayoutTest {

    private static final Pattern MODULE = Pattern.compile("<module>([^<]+)</module>");
    private static final Pattern ARTIFACT = Pattern.compile("<artifactId>(echomq-[^<]+)</artifactId>");

    @Test
    void theBomHoldsEveryPublishedModuleAtTheParentsVersion() {
        Path root = RepoPages.root();
        String parent = RepoPages.read(root.resolve("pom.xml"));
        String bom = RepoPages.read(root.resolve("echomq-bom/pom.xml"));
        assertThat(version(bom)).as("the BOM's version").isEqualTo(version(parent));

        TreeSet<String> published = new TreeSet<>();
        Matcher m = MODULE.matcher(parent);
        while (m.find()) {
            String pom = RepoPages.read(root.resolve(m.group(1)).resolve("pom.xml"));
            if (!pom.contains("<echomq.unpublished>true</echomq.unpublished>") && !m.group(1).equals("echomq-bom")) {
                published.add(artifactId(pom));
            }
        }
        TreeSet<String> managed = new TreeSet<>();
        Matcher a = ARTIFACT.matcher(bom.substring(bom.indexOf("<dependencyManagement>")));
        while (a.find()) {
            managed.add(a.group(1));
        }
        assertThat(managed).as("the BOM's modules").isEqualTo(published);
        for (String module : published) {
            assertThat(root.resolve("api").resolve(module + ".txt")).as("the API listing of " + module).exists();
        }
    }

    @Test
    void theReliabilityPagesTestCountsAreTrueFloors() throws IOException {
        String page = RepoPages.read(RepoPages.root().resolve("docs/reliability.md")).replaceAll("\\s+", " ");
        Matcher m = Pattern.compile("more than ([0-9,]+) test methods \\(`@Test`\\) and more than ([0-9,]+)"
                + " parameterized ones \\(`@ParameterizedTest`\\)").matcher(page);
        assertThat(m.find()).as("the test counts in docs/reliability.md").isTrue();
        int[] counts = countTestMethods();
        int[] floors = {Integer.parseInt(m.group(1).replace(",", "")), Integer.parseInt(m.group(2).replace(",", ""))};
        for (int i = 0; i < 2; i++) {
            assertThat(counts[i]).as("a stated floor is below the count").isGreaterThan(floors[i]);
            assertThat(floors[i]).as("a stated floor is within a quarter of the count " + counts[i])
                    .isGreaterThanOrEqualTo(counts[i] * 3 / 4);
        }
    }

    /** @return the {@code @Test} and the {@code @ParameterizedTest} methods in every module's test sources */
    private static int[] countTestMethods() throws IOException {
        int[] counts = new int[2];
        List<Path> sources = new ArrayList<>();
        try (Stream<Path> files = Files.walk(RepoPages.root())) {
            files.filter(p -> p.toString().endsWith(".java"))
                    .filter(p -> p.toString().replace('\\', '/').contains("/src/test/java/"))
                    .forEach(sources::add);
        }
        for (Path source : sources) {
            for (String line : Files.readAllLines(source)) {
                String t = line.strip();
                if (t.equals("@Test") || t.startsWith("@Test ") || t.startsWith("@Test(")) {
                    counts[0]++;
                } else if (t.startsWith("@ParameterizedTest")) {
                    counts[1]++;
                }
            }
        }
        return counts;
    }

    private static String version(String pom) {
        String head = pom.contains("<parent>") ? pom.substring(pom.indexOf("</parent>")) : pom;
        Matcher m = Pattern.compile("<version>([^<]+)</version>").matcher(head);
        assertThat(m.find()).isTrue();
        return m.group(1);
    }

    private static String artifactId(String pom) {
        String head = pom.contains("<parent>") ? pom.substring(pom.indexOf("</parent>")) : pom;
        Matcher m = Pattern.compile("<artifactId>([^<]+)</artifactId>").matcher(head);
        assertThat(m.find()).isTrue();
        return m.group(1);
    }
}
