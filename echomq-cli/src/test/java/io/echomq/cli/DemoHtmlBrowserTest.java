package io.echomq.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.echomq.testkit.RedisExtension;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The page of {@code emq demo --html} opened in Debian's headless Chromium with the network cut
 * off (every host name resolves to nothing and every request goes to a closed proxy): it shows the
 * same verdicts as the file holds.
 *
 * <p>Tagged {@code browser}: run by {@code .ci/run}'s browser pass, where Chromium is installed.
 */
@Tag("browser")
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class DemoHtmlBrowserTest {
    @RegisterExtension
    static final RedisExtension REDIS = new RedisExtension();
    static final String CHROMIUM = System.getProperty("emq.chromium", "/usr/bin/chromium");

    @Test
    void thePageShowsItsVerdictsInChromiumWithTheNetworkOff(@TempDir Path dir) throws Exception {
        assertThat(new File(CHROMIUM).canExecute()).as("Debian's Chromium at %s: apt-get install -y chromium", CHROMIUM)
                .isTrue();
        Path file = dir.resolve("figures.html");
        EmqRun run = EmqRun.run(Map.of(), "demo", "--redis", REDIS.url(), "--html", file.toString());
        assertThat(run.code()).as(run.out()).isZero();
        String page = Files.readString(file);

        String dom = dumpDom(file, dir);

        for (String id : List.of("race", "crash-gap", "blind-del", "px-only", "fenced", "claim-lease")) {
            String verdicts = DemoHtmlTest.verdicts(page, id);
            assertThat(DemoHtmlTest.verdicts(dom, id)).as("%s as Chromium shows it", id).isEqualTo(verdicts);
        }
        assertThat(DemoHtmlTest.verdicts(dom, "race")).endsWith("Holders of the lock: 1. Double-acquired: no.");
        assertThat(DemoHtmlTest.verdicts(dom, "crash-gap")).endsWith("a deadlock.");
    }

    /** @return the document as Chromium built it from {@code file}, with no network to reach */
    private static String dumpDom(Path file, Path dir) throws IOException, InterruptedException {
        Path out = dir.resolve("dom.html");
        Process p = new ProcessBuilder(CHROMIUM, "--headless=new", "--no-sandbox", "--disable-gpu",
                "--disable-dev-shm-usage", "--no-first-run", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--user-data-dir=" + dir.resolve("profile"),
                "--host-resolver-rules=MAP * ~NOTFOUND", "--proxy-server=127.0.0.1:9", "--proxy-bypass-list=<-loopback>",
                "--dump-dom", file.toUri().toString())
                .redirectOutput(out.toFile()).redirectError(dir.resolve("chromium.log").toFile()).start();
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("Chromium ended within 60 s").isTrue();
        assertThat(p.exitValue()).as(Files.readString(dir.resolve("chromium.log"))).isZero();
        return Files.readString(out, StandardCharsets.UTF_8);
    }
}
