package io.echomq.example;

import static org.assertj.core.api.Assertions.assertThat;

import io.echomq.testkit.ChildJvm;
import io.echomq.testkit.RedisExtension;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BooleanSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Two instances of the example application, each in its own JVM, on one test kit Redis: jobs
 * enqueued over HTTP through both are each handled exactly once, the locked report never runs on
 * both at once and its fences strictly rise, and both instances report UP.
 *
 * <p>The instances run the report every 150 ms for 300 ms of work, so the lock is contended
 * nearly all the time: without the lock, runs would interleave in the journal within a second.
 */
class TwoInstancesTest {
    @RegisterExtension
    static final RedisExtension REDIS = new RedisExtension();

    private static final int JOBS = 40;
    private static final Duration STARTUP = Duration.ofSeconds(60);
    private static final Duration SETTLE = Duration.ofSeconds(30);
    private static final Pattern PORT = Pattern.compile("Tomcat started on port (\\d+)");
    private static final Pattern RUN = Pattern.compile("(start|end) (\\S+) (\\d+)");

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final JsonMapper json = JsonMapper.builder().build();

    @Test
    void jobsAreHandledOnceAndTheReportRunsOnOneInstanceAtATime() throws Exception {
        List<ChildJvm> children = new ArrayList<>();
        try {
            children.add(start("a"));
            children.add(start("b"));
            List<URI> bases = new ArrayList<>();
            for (ChildJvm child : children) {
                Matcher port = PORT.matcher(child.awaitLine(line -> PORT.matcher(line).find(), STARTUP));
                assertThat(port.find()).isTrue();
                bases.add(URI.create("http://localhost:" + port.group(1)));
            }

            Set<String> ids = new HashSet<>();
            for (int i = 0; i < JOBS; i++) {
                String body = "{\"to\":\"user" + i + "@example.com\",\"subject\":\"Welcome " + i + "\"}";
                HttpResponse<String> response = post(bases.get(i % 2).resolve("/emails"), body);
                assertThat(response.statusCode()).as(response.body()).isEqualTo(202);
                ids.add(json.readTree(response.body()).get("id").asString());
            }
            assertThat(ids).hasSize(JOBS);

            // Settled: nothing pending, running or waiting for a retry, so no job can be handled again.
            awaitTrue("every job handled and the queue settled", () -> sent().size() == JOBS && settled(bases.get(0)));
            awaitTrue("both instances took turns at the report, four runs done",
                    () -> endedBy(runs()).size() == 2 && runs().stream().filter(r -> r.startsWith("end ")).count() >= 4);

            Map<String, String> sent = sent();
            assertThat(sent.keySet()).isEqualTo(ids);
            assertThat(sent).allSatisfy((id, times) -> assertThat(times).as("times job %s was handled", id).isEqualTo("1"));
            assertRunsAlternateWithRisingFences(runs());

            for (URI base : bases) {
                JsonNode health = health(base);
                assertThat(health.get("status").asString()).as(base + " health").isEqualTo("UP");
                JsonNode echomq = health.get("components").get("echomq");
                assertThat(echomq.get("status").asString()).isEqualTo("UP");
                assertThat(echomq.get("details").get("queues").get("emails").get("dead").asLong()).isZero();
                JsonNode info = json.readTree(get(base.resolve("/actuator/info")).body());
                assertThat(info.get("echomq").get("mode").asString()).isEqualTo("single");
            }
        } finally {
            children.forEach(ChildJvm::close);
        }
    }

    /**
     * Each start is followed, in the one order Redis gave the pushes, by the end of the same
     * instance and fence before anything else: two runs at once would put two starts in a row.
     * The trailing start of a run still going is allowed.
     */
    private static void assertRunsAlternateWithRisingFences(List<String> runs) {
        long lastFence = 0;
        for (int i = 0; i < runs.size(); i += 2) {
            Matcher start = RUN.matcher(runs.get(i));
            assertThat(start.matches() && start.group(1).equals("start")).as("entry %d: %s in %s", i, runs.get(i), runs).isTrue();
            long fence = Long.parseLong(start.group(3));
            assertThat(fence).as("fence of entry %d in %s", i, runs).isGreaterThan(lastFence);
            lastFence = fence;
            if (i + 1 < runs.size()) {
                assertThat(runs.get(i + 1)).as("entry %d in %s", i + 1, runs)
                        .isEqualTo("end " + start.group(2) + " " + start.group(3));
            }
        }
    }

    private static Set<String> endedBy(List<String> runs) {
        Set<String> instances = new HashSet<>();
        for (String run : runs) {
            Matcher m = RUN.matcher(run);
            if (m.matches() && m.group(1).equals("end")) {
                instances.add(m.group(2));
            }
        }
        return instances;
    }

    private static ChildJvm start(String instance) {
        return ChildJvm.start(List.of("-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xshare:auto"),
                ParentBoundMain.class.getName(), line -> { }, "--server.port=0", "--echomq.redis.url=" + REDIS.url(),
                "--example.instance=" + instance, "--example.report.interval=150ms", "--example.report.work=300ms",
                "--spring.main.banner-mode=off");
    }

    @SuppressWarnings("unchecked")
    private static List<String> runs() {
        return (List<String>) REDIS.raw().call("LRANGE", Journal.RUNS, "0", "-1");
    }

    @SuppressWarnings("unchecked")
    private static Map<String, String> sent() {
        List<String> flat = (List<String>) REDIS.raw().call("HGETALL", Journal.SENT);
        Map<String, String> map = new HashMap<>();
        for (int i = 0; i < flat.size(); i += 2) {
            map.put(flat.get(i), flat.get(i + 1));
        }
        return map;
    }

    private JsonNode health(URI base) {
        try {
            return json.readTree(get(base.resolve("/actuator/health")).body());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** @return whether the emails queue, as the starter's health indicator counts it, has no job left to run */
    private boolean settled(URI base) {
        JsonNode emails = health(base).get("components").get("echomq").get("details").get("queues").get("emails");
        return emails.get("pending").asLong() == 0 && emails.get("active").asLong() == 0
                && emails.get("delayed").asLong() == 0;
    }

    private HttpResponse<String> post(URI uri, String body) throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(uri).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> get(URI uri) throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(uri).GET().build(), HttpResponse.BodyHandlers.ofString());
    }

    private static void awaitTrue(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + SETTLE.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("not within " + SETTLE.toSeconds() + " s: " + what + "; runs " + runs()
                        + ", sent " + sent());
            }
            Thread.sleep(20);   // a poll interval, not a wait for an outcome
        }
    }
}
