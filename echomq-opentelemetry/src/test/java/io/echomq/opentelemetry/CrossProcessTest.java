package io.echomq.opentelemetry;

import static io.echomq.opentelemetry.Otel.attr;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.echomq.queue.QueueClient;
import io.echomq.queue.Worker;
import io.echomq.testkit.ChildJvm;
import io.echomq.testkit.RedisExtension;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The handler's span is a child of the enqueuing span across two processes: a child JVM
 * ({@link ProducerMain}, its own SDK and client) enqueues; this JVM, with another SDK, runs the
 * worker. Only the job hash in Redis carries the context between them. Also writes the two spans
 * as JSON to {@code target/sample-spans.json}, the sample that {@code docs/observability.md} shows.
 */
class CrossProcessTest {
    @RegisterExtension
    static final RedisExtension REDIS = new RedisExtension();

    @Test
    void theConsumerSpanInOneProcessIsAChildOfTheProducerSpanInAnother() throws Exception {
        REDIS.flushAll();
        String[] sent;
        String producerJson;
        try (ChildJvm producer = ChildJvm.start(ProducerMain.class.getName(), line -> { }, REDIS.url(), "orders")) {
            String line = producer.awaitLine(l -> l.startsWith("SENT "), Duration.ofSeconds(30));
            assertThat(line).as("the producer printed its span; stderr: %s", producer.stderrTail()).isNotNull();
            sent = line.split(" ");
            producerJson = producer.awaitLine(l -> l.startsWith("{"), Duration.ofSeconds(5));
        }
        try (Otel otel = new Otel();
             QueueClient client = QueueClient.builder().redisUrl(REDIS.url())
                     .instrumentation(EchoMQTracing.builder(otel.sdk).build()).build();
             Worker w = client.worker("orders", job -> { }).start()) {
            await().atMost(Duration.ofSeconds(15)).until(() -> otel.named("process orders").size() == 1);
            SpanData process = otel.named("process orders").get(0);
            assertThat(process.getKind()).isEqualTo(SpanKind.CONSUMER);
            assertThat(process.getTraceId()).isEqualTo(sent[1]);
            assertThat(process.getParentSpanId()).isEqualTo(sent[2]);
            assertThat(process.getParentSpanContext().isRemote()).isTrue();
            assertThat(attr(process, QueueSpans.MESSAGE_ID)).isEqualTo(sent[3]);
            Path target = Path.of("target");
            Files.createDirectories(target);
            Files.writeString(target.resolve("sample-spans.json"),
                    "[\n" + producerJson + ",\n" + Otel.json(process) + "\n]\n");
        }
    }
}
