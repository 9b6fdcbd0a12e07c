package io.echomq.spring.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.echomq.queue.DeadJob;
import io.echomq.queue.EnqueueOptions;
import io.echomq.queue.Job;
import io.echomq.queue.NonRetryableException;
import io.echomq.queue.QueueClient;
import io.echomq.queue.QueueStats;
import io.echomq.spring.TestApps;
import io.echomq.testkit.RedisExtension;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * {@code @EchoJobHandler} methods in one application context on a real Redis: each job handled
 * once, JSON both ways through the template and the handler, and the retry rules.
 */
class JobHandlerTest {
    @RegisterExtension
    static final RedisExtension REDIS = new RedisExtension();

    static ConfigurableApplicationContext ctx;
    static EchoMQTemplate template;
    static QueueClient client;

    @BeforeAll
    static void start() {
        ctx = TestApps.start(App.class, REDIS.url(), "test.queue=strings");
        template = ctx.getBean(EchoMQTemplate.class);
        client = ctx.getBean(QueueClient.class);
    }

    @AfterAll
    static void stop() {
        ctx.close();
    }

    record Order(String id, int quantity, List<String> items) {
    }

    static final Map<String, AtomicInteger> TEXTS = new ConcurrentHashMap<>();
    static final List<Order> ORDERS = new CopyOnWriteArrayList<>();
    static final List<String> ORDER_JOB_IDS = new CopyOnWriteArrayList<>();
    static final List<Long> FLAKY_ATTEMPTS = new CopyOnWriteArrayList<>();
    static final AtomicInteger POISON_CALLS = new AtomicInteger();
    static final List<byte[]> BYTES = new CopyOnWriteArrayList<>();
    static final AtomicInteger POLICY_CALLS = new AtomicInteger();

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class App {
        @Bean
        Handlers handlers() {
            return new Handlers();
        }

        @Bean
        io.echomq.queue.RetryPolicy badInputIsFinal() {
            return io.echomq.queue.RetryPolicy.builder()
                    .on(IllegalArgumentException.class, io.echomq.queue.RetryAction.noRetry()).build();
        }
    }

    public static class Handlers {
        @EchoJobHandler(queue = "${test.queue}", concurrency = 4)
        public void text(String text) {
            TEXTS.computeIfAbsent(text, k -> new AtomicInteger()).incrementAndGet();
        }

        @EchoJobHandler(queue = "orders")
        public void order(Job job, Order order) {
            ORDER_JOB_IDS.add(job.id());
            ORDERS.add(order);
        }

        @EchoJobHandler(queue = "flaky", lease = "5s")
        public void flaky(Job job) {
            FLAKY_ATTEMPTS.add(job.attempt());
            throw new IllegalStateException("always fails, attempt " + job.attempt());
        }

        @EchoJobHandler(queue = "poison")
        public void poison(String text) throws NonRetryableException {
            POISON_CALLS.incrementAndGet();
            throw new NonRetryableException("cannot ever handle " + text);
        }

        @EchoJobHandler(queue = "by-policy", retryPolicy = "badInputIsFinal")
        public void byPolicy(String text) {
            POLICY_CALLS.incrementAndGet();
            throw new IllegalArgumentException("bad input " + text);
        }

        @EchoJobHandler(queue = "bytes")
        public void bytes(byte[] payload) {
            BYTES.add(payload);
        }
    }

    @Test
    void everyJobIsHandledExactlyOnce() {
        List<String> sent = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            sent.add("t-" + i);
            template.enqueue("strings", "t-" + i);
        }
        await().atMost(Duration.ofSeconds(30)).until(() -> client.queue("strings").stats().completed() == 200);
        assertThat(TEXTS.keySet()).containsExactlyInAnyOrderElementsOf(sent);
        assertThat(TEXTS.values()).allSatisfy(n -> assertThat(n.get()).isEqualTo(1));
        QueueStats stats = client.queue("strings").stats();
        assertThat(stats.drained()).isTrue();
        assertThat(stats.failed()).isZero();
    }

    @Test
    void anObjectMakesTheRoundTripAsJson() {
        Order sent = new Order("a-1", 3, List.of("pen", "ink"));
        String id = template.enqueue("orders", sent);
        await().atMost(Duration.ofSeconds(10)).until(() -> ORDER_JOB_IDS.contains(id));
        assertThat(ORDERS).contains(sent);
        assertThat(new String(template.codec().encode(sent), StandardCharsets.UTF_8))
                .contains("\"id\":\"a-1\"").contains("\"items\":[\"pen\",\"ink\"]");
    }

    @Test
    void bytesPassUnchanged() {
        byte[] raw = {0, (byte) 0xff, 42};
        template.enqueue("bytes", raw);
        await().atMost(Duration.ofSeconds(10)).until(() -> !BYTES.isEmpty());
        assertThat(BYTES.get(0)).containsExactly(raw);
    }

    @Test
    void anExceptionRetriesUnderTheJobsRulesThenGoesToDead() {
        String id = template.enqueue("flaky", "x", EnqueueOptions.defaults().withMaxAttempts(2)
                .withBackoff(Duration.ofMillis(10), Duration.ofMillis(10))).id();
        await().atMost(Duration.ofSeconds(15)).until(() -> client.queue("flaky").stats().dead() == 1);
        assertThat(FLAKY_ATTEMPTS).containsExactly(1L, 2L);
        DeadJob dead = client.queue("flaky").dead(10).get(0);
        assertThat(dead.id()).isEqualTo(id);
        assertThat(dead.lastError()).contains("always fails, attempt 2");
    }

    @Test
    void aNamedRetryPolicyBeanDecides() {
        template.enqueue("by-policy", "q", EnqueueOptions.defaults().withMaxAttempts(5));
        await().atMost(Duration.ofSeconds(10)).until(() -> client.queue("by-policy").stats().dead() == 1);
        assertThat(POLICY_CALLS.get()).as("the policy's noRetry, not the job's 5 attempts").isEqualTo(1);
    }

    @Test
    void nonRetryableGoesToDeadAtOnce() {
        template.enqueue("poison", "p", EnqueueOptions.defaults().withMaxAttempts(5));
        await().atMost(Duration.ofSeconds(10)).until(() -> client.queue("poison").stats().dead() == 1);
        assertThat(POISON_CALLS.get()).isEqualTo(1);
    }

    @Test
    void aPayloadThatDoesNotDecodeGoesToDeadWithoutRetrying() {
        client.queue("orders").enqueue("not json at all");
        await().atMost(Duration.ofSeconds(10)).until(() -> client.queue("orders").stats().dead() == 1);
        DeadJob dead = client.queue("orders").dead(10).get(0);
        assertThat(dead.attempts()).isEqualTo(1);
        assertThat(dead.lastError()).contains("does not decode as").contains("Order");
    }
}
