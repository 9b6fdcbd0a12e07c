package io.echomq.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.echomq.dashboard.Dashboard;
import io.echomq.queue.QueueClient;
import io.echomq.testkit.RedisExtension;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import picocli.CommandLine;

/** {@code emq demo --keep}: the demo's data stays for a look with {@code emq dashboard}. */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class DemoKeepTest {
    @RegisterExtension
    static final RedisExtension REDIS = new RedisExtension();
    private static final Pattern DASHBOARD_LINE = Pattern.compile("^  \\./emq dashboard --redis (\\S+)$", Pattern.MULTILINE);

    @Test
    void onTheGivenServerTheKeysStayAndTheDashboardCommandIsPrinted() {
        REDIS.flushAll();
        EmqRun run = EmqRun.run(Map.of(), "demo", "--redis", REDIS.url(), "--keep");

        assertThat(run.err()).isEmpty();
        assertThat(run.code()).as(run.out()).isZero();
        assertThat(run.out()).contains("All 6 acts behaved as expected.").doesNotContain("Cleanup:")
                .containsPattern("Kept \\(--keep\\): the demo's [1-9] keys left under emq:demo:, and the queue demo-jobs");
        Matcher m = DASHBOARD_LINE.matcher(run.out());
        assertThat(m.find()).as(run.out()).isTrue();
        assertThat(m.group(1)).isEqualTo(REDIS.url());
        assertThat(REDIS.raw().call("EXISTS", "emq:demo:{fenced}:data")).isEqualTo(1L);
        try (QueueClient client = QueueClient.create(REDIS.url())) {
            assertThat(client.queue("demo-jobs").stats().completed()).isEqualTo(1000);
        }
    }

    @Test
    void onTheEmbeddedServerItKeepsServingTheDataToADashboardUntilStopped() throws Exception {
        CommandLine cli = Emq.commandLine(Map.of());
        StringWriter out = new StringWriter();
        cli.setOut(new PrintWriter(out, true));
        StringWriter err = new StringWriter();
        cli.setErr(new PrintWriter(err, true));
        DemoCommand command = cli.getSubcommands().get("demo").getCommand();
        CompletableFuture<Integer> exit = CompletableFuture.supplyAsync(() -> cli.execute("demo", "--keep"));
        await().atMost(Duration.ofSeconds(90)).until(() -> out.toString().contains("until Ctrl-C") || exit.isDone());
        assertThat(exit).as("still running; out: %s, err: %s", out, err).isNotDone();
        Matcher m = DASHBOARD_LINE.matcher(out.toString());
        assertThat(m.find()).as(out.toString()).isTrue();
        String url = m.group(1);

        // What a newcomer does next: emq dashboard --redis <that URL> shows the demo's queue.
        try (QueueClient client = QueueClient.create(url);
             Dashboard dashboard = Dashboard.builder(client).start()) {
            assertThat(client.queue("demo-jobs").stats().completed()).isEqualTo(1000);
            HttpResponse<String> overview = HttpClient.newHttpClient().send(HttpRequest.newBuilder(dashboard.uri())
                    .header("X-EMQ-Token", dashboard.token()).timeout(Duration.ofSeconds(10)).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(overview.statusCode()).isEqualTo(200);
            assertThat(overview.body()).contains(">demo-jobs</a>");
        }

        command.stop();
        assertThat(exit.get(30, TimeUnit.SECONDS)).as(out.toString()).isZero();
        URI server = URI.create(url);
        assertThatThrownBy(() -> {
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress(server.getHost(), server.getPort()), 2_000);
            }
        }).as("the embedded server stops with the demo").isInstanceOf(ConnectException.class);
        assertThat(List.of(err.toString())).containsExactly("");
    }
}
