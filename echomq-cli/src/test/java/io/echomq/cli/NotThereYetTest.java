package io.echomq.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * Every list of what is "not there yet" or "not built yet" in a page names only what does not
 * exist: a named feature whose class or {@code emq} command exists fails here, so a page cannot
 * keep telling newcomers that a shipped feature is missing.
 */
class NotThereYetTest {

    /** A feature as such lists name it, and what proves it exists: a main type, or an emq command path. */
    private record Feature(Pattern words, String type, String command) {
    }

    private static final List<Feature> FEATURES = List.of(
            feature("@Locked", "Locked", null),
            feature("repeatable jobs|job schedulers|recurring schedules|\\bschedules\\b", "Schedules", "schedule add"),
            feature("pause and resume|\\bpause\\b", null, "queue pause"),
            feature("listing jobs|jobs by state|\\blisting\\b", null, "queue list"),
            feature("rate limits?", "RateLimit", "queue limit"),
            feature("concurrency cap|global concurrency", null, "queue cap"),
            feature("per-group concurrency", "FairGroups", "queue groups"),
            feature("job events|events over a stream", "QueueEvents", "queue events"),
            feature("job results|results returned", "JobResult", "queue wait"),
            feature("\\ba dashboard\\b", "Dashboard", "dashboard"),
            feature("sharded queues?", "ShardedQueue", null),
            feature("job timeouts?|per-job timeouts?", "JobTimeoutException", "queue timeout"));

    private static Feature feature(String regex, String type, String command) {
        return new Feature(Pattern.compile(regex, Pattern.CASE_INSENSITIVE), type, command);
    }

    /** A paragraph opened by "Not there yet" or "Not yet", or a section headed "Not built yet". */
    private static final Pattern LIST = Pattern.compile(
            "(?is)(?:\\*\\*not (?:there |built )?yet\\.?\\*\\*.*?(?:\\n\\s*\\n|\\z))|(?:^#+ not built yet\\n.*?(?=^#|\\z))",
            Pattern.MULTILINE);

    private static final Pattern CODE = Pattern.compile("`@?([A-Z][A-Za-z0-9]+)`");

    @Test
    void noNotThereYetListNamesAnExistingFeature() {
        List<String> shipped = new ArrayList<>();
        List<String> commands = EmqCommands.paths();
        int lists = 0;
        for (Path page : RepoPages.pages()) {
            Matcher m = LIST.matcher(RepoPages.read(page));
            while (m.find()) {
                lists++;
                String list = m.group();
                for (Feature f : FEATURES) {
                    if (!f.words().matcher(list).find()) {
                        continue;
                    }
                    if (f.type() != null && RepoPages.typeExists(f.type())) {
                        shipped.add(page.getFileName() + ": '" + f.words() + "' is listed, but " + f.type() + " exists");
                    } else if (f.command() != null && commands.contains(f.command())) {
                        shipped.add(page.getFileName() + ": '" + f.words() + "' is listed, but emq " + f.command()
                                + " exists");
                    }
                }
                Matcher code = CODE.matcher(list);
                while (code.find()) {
                    if (RepoPages.typeExists(code.group(1))) {
                        shipped.add(page.getFileName() + ": `" + code.group(1) + "` is listed, but it exists");
                    }
                }
            }
        }
        assertThat(lists).as("the not-there-yet lists found in the pages").isGreaterThanOrEqualTo(2);
        assertThat(shipped).as("features that a 'not there yet' list names although they exist").isEmpty();
    }

    /** The paths of every emq subcommand, such as {@code queue pause}, read from the command tree. */
    static final class EmqCommands {

        private EmqCommands() {
        }

        static List<String> paths() {
            List<String> paths = new ArrayList<>();
            walk(Emq.commandLine(Map.of()), "", paths);
            return paths;
        }

        private static void walk(CommandLine command, String prefix, List<String> paths) {
            for (Map.Entry<String, CommandLine> sub : command.getSubcommands().entrySet()) {
                if (!sub.getValue().getCommandName().equals(sub.getKey())) {
                    continue;                      // an alias of a command listed under its own name
                }
                String path = prefix.isEmpty() ? sub.getKey() : prefix + " " + sub.getKey();
                paths.add(path);
                walk(sub.getValue(), path, paths);
            }
        }
    }
}
