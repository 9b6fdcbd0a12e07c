package io.echomq.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Nothing a user reads points outside the repository: no page and no main source (its javadoc
 * and its messages) names a path beside the clone ({@code ../shared}) or a section of a design
 * document that is not shipped ({@code DESIGN §}); the rule itself is written where it applies.
 */
class DocsStayInRepoTest {

    private static final Pattern OUTSIDE = Pattern.compile("\\.\\./shared\\b|DESIGN(?:\\.md)? §|STYLE\\.md");

    @Test
    void noPageOrSourcePointsOutsideTheRepository() {
        List<Path> files = new ArrayList<>(RepoPages.pages());
        files.addAll(RepoPages.mainSources());
        List<String> outside = new ArrayList<>();
        for (Path file : files) {
            String[] lines = RepoPages.read(file).split("\n", -1);
            for (int i = 0; i < lines.length; i++) {
                if (OUTSIDE.matcher(lines[i]).find()) {
                    outside.add(RepoPages.root().relativize(file) + ":" + (i + 1) + ": " + lines[i].strip());
                }
            }
        }
        assertThat(files).as("pages and sources read").hasSizeGreaterThan(100);
        assertThat(outside).as("lines that send a reader outside the repository").isEmpty();
    }

    @Test
    void theReadmeSaysWhatEchoMqIsBeforeItsCommands() {
        String readme = RepoPages.read(RepoPages.root().resolve("README.md"));
        int sentence = readme.indexOf("EchoMQ is ");
        assertThat(sentence).as("the README's sentence on what EchoMQ is").isPositive();
        assertThat(sentence).as("it comes before the first command").isLessThan(readme.indexOf("```"));
    }
}
