package io.echomq.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.echomq.testkit.RedisExtension;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** {@code emq demo --html FILE}: the figures of the run, in one page that needs nothing else. */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class DemoHtmlTest {
    @RegisterExtension
    static final RedisExtension REDIS = new RedisExtension();

    @Test
    void thePageCarriesThisRunsFiguresAndNothingFromOutside(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("figures.html");

        EmqRun run = EmqRun.run(Map.of(), "demo", "--redis", REDIS.url(), "--html", file.toString());

        assertThat(run.err()).isEmpty();
        assertThat(run.code()).as(run.out()).isZero();
        assertThat(run.out()).contains("Figures of acts 1 to 6 written to " + file);
        String page = Files.readString(file);
        // The same winner as the text: the worker whose SET got OK is the one the verdicts name.
        Matcher ok = Pattern.compile("^  (w[1-4]) +SET emq:demo:race:lock .* → OK$", Pattern.MULTILINE).matcher(run.out());
        assertThat(ok.find()).as(run.out()).isTrue();
        assertThat(verdicts(page, "race")).startsWith("Static verdicts — " + ok.group(1) + " → finds the key absent")
                .endsWith("Holders of the lock: 1. Double-acquired: no.");
        assertThat(verdicts(page, "crash-gap")).endsWith("and the next SETNX got 0: a deadlock.");
        assertThat(verdicts(page, "blind-del")).endsWith("deleted B's lock: yes · token-checked release → NOT_OWNER, "
                + "B's lock intact: yes.");
        assertThat(verdicts(page, "px-only")).contains("Double-acquired: yes").endsWith("with NX the held lock is refused.");
        assertThat(verdicts(page, "fenced")).contains("→ STALE, the store kept B's value: yes")
                .endsWith("the lost lease revived: no.");
        assertThat(verdicts(page, "claim-lease")).matches("Static verdicts — Jobs enqueued: 1000 · accepted completions: 1000 · completed "
                + "exactly once: 1000 · lost: 0 · reaped leases: [1-9]\\d* · w4's stale completion of job \\d+ \\(attempt "
                + "1\\) → LEASE_LOST \\(SUPERSEDED\\); w[123] ran it again as attempt [2-9]\\. Queue drained: yes\\.");
        assertThat(Pattern.compile("<div class=\"lane ").matcher(page).results().count()).isEqualTo(17);
        assertThat(page).contains("<h2>Act 1 · The race</h2>", "<h2>Act 6 · The claim lease</h2>");
        // Self-contained: no script, no link, no source or address to load, a CSP that forbids loading any.
        assertThat(page).doesNotContain("<script", "<link", "src=", "href=", "url(", "@import", "http://", "https://")
                .contains("<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
                        + "style-src 'unsafe-inline'\">");
        assertThat(REDIS.raw().call("KEYS", "emq:demo:*")).isEqualTo(List.of());
    }

    @Test
    void aFileInADirectoryThatDoesNotExistIsRefusedBeforeAnyActRuns(@TempDir Path dir) {
        Path file = dir.resolve("no-such-dir").resolve("figures.html");

        EmqRun run = EmqRun.run(Map.of(), "demo", "--redis", REDIS.url(), "--html", file.toString());

        assertThat(run.code()).isEqualTo(ExitCodes.BAD_INPUT);
        assertThat(run.err().strip()).isEqualTo("emq demo: --html " + file + ": the directory " + file.getParent()
                + " does not exist");
        assertThat(run.out()).doesNotContain("Act 1");
        assertThat(REDIS.raw().call("KEYS", "emq:*")).isEqualTo(List.of());
    }

    @Test
    void aDirectoryIsRefusedBeforeAnyActRuns(@TempDir Path dir) {
        EmqRun run = EmqRun.run(Map.of(), "demo", "--redis", REDIS.url(), "--html", dir.toString());

        assertThat(run.code()).isEqualTo(ExitCodes.BAD_INPUT);
        assertThat(run.err().strip()).isEqualTo("emq demo: --html " + dir + ": is a directory; name the file to write");
        assertThat(run.out()).doesNotContain("Act 1");
    }

    /** @return the text of the verdicts under the figure {@code id}, tags removed, entities decoded */
    static String verdicts(String page, String id) {
        Matcher m = Pattern.compile("<p class=\"verdicts\" id=\"" + id + "-verdicts\">(.*?)</p>").matcher(page);
        assertThat(m.find()).as("the verdicts of %s", id).isTrue();
        return m.group(1).replaceAll("<[^>]+>", "").replace("&#39;", "'").replace("&quot;", "\"").replace("&lt;", "<")
                .replace("&gt;", ">").replace("&amp;", "&");
    }
}
