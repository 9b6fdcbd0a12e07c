package io.echomq.micrometer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.echomq.lock.Lease;
import io.echomq.lock.LockClient;
import io.echomq.queue.Queue;
import io.echomq.queue.QueueClient;
import io.echomq.queue.Worker;
import io.echomq.testkit.RedisExtension;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The Prometheus names of the meters, as a real {@link PrometheusMeterRegistry} writes them after a
 * short sequence; the scrape is kept in {@code target/prometheus-scrape.txt}, where the sample in
 * docs/observability.md was taken from.
 */
class PrometheusScrapeTest {
    @RegisterExtension
    static final RedisExtension REDIS = new RedisExtension();

    @Test
    void aScrapeNamesEveryMeterInPrometheusForm() throws Exception {
        REDIS.flushAll();
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        try (EchoMQMetrics metrics = EchoMQMetrics.bind(registry);
             LockClient locks = LockClient.builder().redisUrl(REDIS.url()).instrumentation(metrics).build();
             QueueClient queues = QueueClient.builder().redisUrl(REDIS.url()).instrumentation(metrics).build()) {
            Lease held = locks.tryAcquire("reports", Duration.ofSeconds(30)).orElseThrow();
            locks.tryAcquire("reports", Duration.ofSeconds(30));
            held.renew();
            Queue emails = queues.queue("emails");
            metrics.monitor(emails);
            emails.enqueue("a");
            emails.enqueue("b");
            try (Worker w = queues.worker("emails", job -> { }).start()) {
                await().atMost(Duration.ofSeconds(15)).until(() -> emails.stats().completed() == 2);
            }
            emails.enqueue("c");
            String scrape = registry.scrape();
            Files.writeString(Path.of("target", "prometheus-scrape.txt"), scrape, StandardCharsets.UTF_8);
            List<String> lines = scrape.lines().toList();
            assertThat(lines).contains(
                    "echomq_lock_acquire_seconds_count{mode=\"fenced\",outcome=\"acquired\"} 1",
                    "echomq_lock_acquire_seconds_count{mode=\"fenced\",outcome=\"busy\"} 1",
                    "echomq_lock_held_seconds_count{mode=\"fenced\"} 1",
                    "echomq_lock_renewals_total{mode=\"fenced\",result=\"renewed\"} 1.0",
                    "echomq_lock_lost_total{mode=\"fenced\",reason=\"expired\"} 0.0",
                    "echomq_queue_enqueued_total{queue=\"emails\"} 3.0",
                    "echomq_queue_processed_seconds_count{outcome=\"completed\",queue=\"emails\"} 2",
                    "echomq_queue_wait_seconds_count{queue=\"emails\"} 2",
                    "echomq_queue_jobs{queue=\"emails\",state=\"pending\"} 1.0");
            held.release();
        }
    }
}
