package io.echomq.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.echomq.queue.QueueClient;
import io.echomq.server.TlsRedisServer;
import io.echomq.testkit.RedisExtension;
import io.echomq.testkit.TestCertificates;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import picocli.CommandLine;

/** {@code emq dashboard}: serves the pages of the server it names, or of an embedded one, until stopped. */
class DashboardCommandTest {
    @RegisterExtension
    static final RedisExtension REDIS = new RedisExtension();
    private static final String TOKEN = "cli-test-token-0123456789";

    @Test
    void servesTheNamedServersQueuesPrintsTheUrlWithTheTokenAndStopsCleanly() throws Exception {
        REDIS.flushAll();
        try (QueueClient client = QueueClient.create(REDIS.url())) {
            client.queue("emails").enqueue("a");
        }
        Running d = start("--redis", REDIS.url(), "--port", "0", "--token", TOKEN, "--read-only");
        assertThat(d.banner).contains(REDIS.url()).contains("read-only");
        assertThat(d.open.getQuery()).isEqualTo("token=" + TOKEN);
        HttpResponse<String> page = get(d.open, null);
        assertThat(page.statusCode()).isEqualTo(303);
        String cookie = page.headers().firstValue("Set-Cookie").orElseThrow().split(";")[0];
        HttpResponse<String> overview = get(d.open.resolve("/"), cookie);
        assertThat(overview.statusCode()).isEqualTo(200);
        assertThat(overview.body()).contains(">emails</a>", "read-only");
        assertThat(get(d.open.resolve("/locks"), cookie).body()).contains("No lock is held");
        d.stop();
    }

    @Test
    void itsWhyItIsSafePageRunsTheRaceOnTheNamedServer() throws Exception {
        REDIS.flushAll();
        Running d = start("--redis", REDIS.url(), "--port", "0", "--token", TOKEN);
        runTheRace(d);
        assertThat(REDIS.raw().call("KEYS", "emq:figures:*")).isEqualTo(java.util.List.of());
        d.stop();
    }

    @Test
    void withRedisCaTheRaceRunsOverTlsTrustingThatCa() throws Exception {
        TestCertificates certs = TestCertificates.generate("EchoMQ CLI figures CA");
        try (TlsRedisServer tls = TlsRedisServer.start(certs)) {
            Running d = start("--redis", tls.url(), "--redis-ca", certs.ca().toString(), "--port", "0", "--token", TOKEN);
            runTheRace(d);
            d.stop();
        } finally {
            certs.delete();
        }
    }

    /** Presses "run" on the race as the page's form does, and reads exactly one holder. */
    private static void runTheRace(Running d) throws Exception {
        String cookie = get(d.open, null).headers().firstValue("Set-Cookie").orElseThrow().split(";")[0];
        String page = get(d.open.resolve("/safety"), cookie).body();
        assertThat(page).contains("<form class=\"run\" method=\"post\" action=\"/safety\">");
        java.util.regex.Matcher csrf = java.util.regex.Pattern.compile("name=\"csrf\" value=\"([^\"]+)\"").matcher(page);
        assertThat(csrf.find()).isTrue();
        String origin = d.open.getScheme() + "://" + d.open.getAuthority();
        HttpResponse<String> run = HttpClient.newHttpClient().send(HttpRequest.newBuilder(d.open.resolve("/safety"))
                .timeout(Duration.ofSeconds(20)).header("Cookie", cookie).header("Origin", origin)
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString("act=race&csrf=" + csrf.group(1))).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(run.statusCode()).as(run.body()).isEqualTo(200);
        assertThat(run.body()).contains("Holders of the lock: 1. Double-acquired: no.");
    }

    @Test
    void withoutRedisItStartsAnEmbeddedServer() throws Exception {
        Running d = start("--port", "0");
        assertThat(d.banner).contains("Started an embedded");
        assertThat(d.open.getQuery()).matches("token=[A-Za-z0-9_-]{43}");
        assertThat(get(d.open, null).statusCode()).isEqualTo(303);
        d.stop();
    }

    @Test
    void badInputExitsTwoWithAMessage() {
        EmqRun shortToken = EmqRun.run(Map.of(), "dashboard", "--redis", REDIS.url(), "--port", "0", "--token", "short");
        assertThat(shortToken.code()).isEqualTo(2);
        assertThat(shortToken.err()).contains("token must be 16..256 characters");
        EmqRun port = EmqRun.run(Map.of(), "dashboard", "--redis", REDIS.url(), "--port", "70000");
        assertThat(port.code()).isEqualTo(2);
        assertThat(port.err()).contains("70000 is outside 0..65535");
        EmqRun taken = EmqRun.run(Map.of(), "dashboard", "--redis", REDIS.url(), "--port",
                Integer.toString(REDIS.server().port()));
        assertThat(taken.code()).isEqualTo(2);
        assertThat(taken.err()).contains("cannot listen on 127.0.0.1:" + REDIS.server().port());
    }

    private record Running(CompletableFuture<Integer> exit, DashboardCommand command, String banner, URI open) {
        void stop() throws Exception {
            command.stop();
            assertThat(exit.get(15, TimeUnit.SECONDS)).isZero();
        }
    }

    private static Running start(String... options) {
        CommandLine cli = Emq.commandLine(Map.of());
        StringWriter out = new StringWriter();
        cli.setOut(new PrintWriter(out, true));
        StringWriter err = new StringWriter();
        cli.setErr(new PrintWriter(err, true));
        DashboardCommand command = cli.getSubcommands().get("dashboard").getCommand();
        String[] args = new String[options.length + 1];
        args[0] = "dashboard";
        System.arraycopy(options, 0, args, 1, options.length);
        CompletableFuture<Integer> exit = CompletableFuture.supplyAsync(() -> cli.execute(args));
        await().atMost(Duration.ofSeconds(15)).until(() -> out.toString().contains("Ctrl-C") || exit.isDone());
        assertThat(exit).as("still running; stderr: %s", err).isNotDone();
        Matcher m = Pattern.compile("Open (http://127\\.0\\.0\\.1:\\d+/\\?token=\\S+) — Ctrl-C to stop").matcher(out.toString());
        assertThat(m.find()).as("output %s", out).isTrue();
        return new Running(exit, command, out.toString(), URI.create(m.group(1)));
    }

    private static HttpResponse<String> get(URI uri, String cookie) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(10)).GET();
        if (cookie != null) {
            b.header("Cookie", cookie);
        }
        return HttpClient.newHttpClient().send(b.build(), HttpResponse.BodyHandlers.ofString());
    }
}
