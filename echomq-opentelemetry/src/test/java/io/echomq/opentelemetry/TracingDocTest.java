package io.echomq.opentelemetry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.echomq.queue.QueueClient;
import io.echomq.queue.Worker;
import io.echomq.testkit.RedisExtension;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The OpenTelemetry section of docs/observability.md: its program, read out of the page, compiled
 * with javac on this module's test class path and run exactly as it stands (the core's docs tests
 * have no OpenTelemetry, so the page marks it "not run" and names this test); and its sample JSON,
 * whose span names, kinds and attribute names must be those the spans carry now.
 */
class TracingDocTest {
    @RegisterExtension
    static final RedisExtension REDIS = new RedisExtension();
    private static final Pattern BLOCK = Pattern.compile(
            "(<!-- not run: [^\\n]*TracingDocTest[^\\n]*-->)\\n```java\\n(.*?public class TracingQuickStart.*?)```",
            Pattern.DOTALL);
    private static final Pattern SAMPLE = Pattern.compile("```json\\n(\\[.*?])\\n```", Pattern.DOTALL);

    private static String page() throws Exception {
        return Files.readString(Path.of("..", "docs", "observability.md"), StandardCharsets.UTF_8);
    }

    @Test
    void theQuickStartRunsAsItStandsInThePage() throws Exception {
        REDIS.flushAll();
        Matcher m = BLOCK.matcher(page());
        assertThat(m.find()).as("the page holds TracingQuickStart, marked as run by this test").isTrue();
        Path dir = Files.createTempDirectory("emq-tracing-doc");
        Path source = dir.resolve("TracingQuickStart.java");
        Files.writeString(source, m.group(2), StandardCharsets.UTF_8);
        ByteArrayOutputStream errors = new ByteArrayOutputStream();
        int rc = ToolProvider.getSystemJavaCompiler().run(null, errors, errors, "-proc:none",
                "-cp", System.getProperty("java.class.path"), "-d", dir.toString(), source.toString());
        assertThat(rc).as(errors.toString(StandardCharsets.UTF_8)).isZero();

        ByteArrayOutputStream out = new ByteArrayOutputStream();
        PrintStream saved = System.out;
        try (URLClassLoader loader = new URLClassLoader(new URL[] {dir.toUri().toURL()}, getClass().getClassLoader())) {
            Method main = loader.loadClass("TracingQuickStart").getMethod("main", String[].class);
            System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
            main.invoke(null, (Object) new String[] {REDIS.url()});
        } finally {
            System.setOut(saved);
        }
        assertThat(out.toString(StandardCharsets.UTF_8).lines().toList()).containsExactly(
                "send orders <- POST /orders", "POST /orders <- (root)", "charge card <- process orders",
                "process orders <- send orders");
    }

    @Test
    void theSampleSpansShowTheNamesKindsAndAttributesTheSpansCarry() throws Exception {
        REDIS.flushAll();
        Matcher m = SAMPLE.matcher(page());
        assertThat(m.find()).as("the page holds a sample of spans as JSON").isTrue();
        List<String> documented = shapes(m.group(1));
        assertThat(documented).hasSize(2);

        List<String> actual = new ArrayList<>();
        try (Otel otel = new Otel();
             QueueClient client = QueueClient.builder().redisUrl(REDIS.url())
                     .instrumentation(EchoMQTracing.builder(otel.sdk).build()).build()) {
            client.queue("orders").enqueue("{\"order\":7}");
            try (Worker w = client.worker("orders", job -> { }).start()) {
                await().atMost(Duration.ofSeconds(15)).until(() -> otel.named("process orders").size() == 1);
            }
            for (SpanData s : List.of(otel.named("send orders").get(0), otel.named("process orders").get(0))) {
                actual.addAll(shapes("[" + Otel.json(s) + "]"));
            }
        }
        assertThat(actual).isEqualTo(documented);
    }

    /** @return per span of a JSON sample: its name, kind and sorted attribute names, as one line */
    private static List<String> shapes(String json) {
        Matcher head = Pattern.compile("\"name\": \"([^\"]+)\",\\s*\"kind\": \"([A-Z]+)\"").matcher(json);
        List<Integer> starts = new ArrayList<>();
        List<String> heads = new ArrayList<>();
        while (head.find()) {
            starts.add(head.start());
            heads.add(head.group(1) + " " + head.group(2));
        }
        List<String> out = new ArrayList<>();
        for (int i = 0; i < heads.size(); i++) {
            String span = json.substring(starts.get(i), i + 1 < heads.size() ? starts.get(i + 1) : json.length());
            Set<String> attributes = new TreeSet<>();
            Matcher a = Pattern.compile("\"(messaging\\.[a-z_.]+|error\\.type)\":").matcher(span);
            while (a.find()) {
                attributes.add(a.group(1));
            }
            out.add(heads.get(i) + " " + attributes);
        }
        return out;
    }
}
