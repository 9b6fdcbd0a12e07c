package io.echomq.cli;

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
 * What a user can call is described somewhere: every {@code emq} subcommand (read from the
 * command tree) and every exported top-level type (read from the committed listings
 * {@code api/<module>.txt}) is named on at least one page a user reads.
 */
class DocsCoverageTest {

    private static final Pattern TYPE_LINE = Pattern.compile("(?:class|interface|enum|record|@interface) ([\\w.$]+)");

    @Test
    void everyEmqSubcommandIsOnAPage() {
        String pages = RepoPages.allPages();
        List<String> commands = NotThereYetTest.EmqCommands.paths();
        assertThat(commands).as("the command tree").contains("queue pause", "schedule add", "worker");
        List<String> unmentioned = commands.stream()
                .filter(c -> !Pattern.compile("emq " + Pattern.quote(c) + "\\b").matcher(pages).find())
                .toList();
        assertThat(unmentioned).as("emq subcommands no page names as `emq <command>`").isEmpty();
    }

    @Test
    void everyExportedTypeIsOnAPage() throws IOException {
        String pages = RepoPages.allPages();
        List<String> unmentioned = new ArrayList<>();
        int types = 0;
        try (Stream<Path> listings = Files.list(RepoPages.root().resolve("api"))) {
            for (Path listing : listings.sorted().toList()) {
                for (String line : Files.readAllLines(listing)) {
                    Matcher m = TYPE_LINE.matcher(line);
                    if (line.startsWith(" ") || !m.find() || m.group(1).contains("$")) {
                        continue;                          // a member, or a nested type: its outer type is named
                    }
                    types++;
                    String simple = m.group(1).substring(m.group(1).lastIndexOf('.') + 1);
                    if (!Pattern.compile("\\b" + Pattern.quote(simple) + "\\b").matcher(pages).find()) {
                        unmentioned.add(listing.getFileName() + ": " + simple);
                    }
                }
            }
        }
        assertThat(types).as("exported top-level types in api/*.txt").isGreaterThan(50);
        assertThat(unmentioned).as("exported types no page names (docs/api.md lists the ones no topic page needs)")
                .isEmpty();
    }
}
