package io.echomq.spring.observe;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.echomq.spring.queue.EchoJobHandler;
import io.echomq.spring.queue.EchoMQTemplate;
import io.echomq.testkit.RedisExtension;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * A Spring Boot servlet application with the starter, echomq-micrometer and the actuator (Tomcat on
 * a loopback port, /actuator/metrics exposed), as docs/spring.md describes it: right after start,
 * before any job ran, /actuator/metrics lists every EchoMQ meter, and the meters of a handler's
 * queue and of echomq.metrics.queues read 0; a handled job then counts in those same meters.
 */
class MetricsEndpointTest {
    @RegisterExtension
    static final RedisExtension REDIS = new RedisExtension();
    static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    static final JsonMapper JSON = JsonMapper.builder().build();
    /** Every meter name EchoMQMetrics registers (docs/observability.md, "The meters"). */
    static final List<String> METERS = List.of("echomq.lock.acquire", "echomq.lock.held", "echomq.lock.lost",
            "echomq.lock.renewals", "echomq.queue.enqueued", "echomq.queue.processed", "echomq.queue.timeouts",
            "echomq.queue.wait", "echomq.queue.reaped", "echomq.queue.jobs");

    static ConfigurableApplicationContext app;
    static String base;

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class App {
        @Bean
        Handlers handlers() {
            return new Handlers();
        }
    }

    public static class Handlers {
        static final AtomicInteger HANDLED = new AtomicInteger();

        @EchoJobHandler(queue = "metrics-signups")
        public void handle(String text) {
            HANDLED.incrementAndGet();
        }
    }

    @BeforeAll
    static void start() {
        REDIS.flushAll();
        app = new SpringApplicationBuilder(App.class).web(WebApplicationType.SERVLET).logStartupInfo(false)
                .properties("echomq.redis.url=" + REDIS.url(), "spring.main.banner-mode=off", "spring.jmx.enabled=false",
                        "logging.level.root=warn", "server.address=127.0.0.1", "server.port=0",
                        "management.endpoints.web.exposure.include=metrics",
                        "echomq.metrics.queues=metrics-outbox")
                .run();
        base = "http://127.0.0.1:" + app.getEnvironment().getProperty("local.server.port") + "/actuator/metrics";
    }

    @AfterAll
    static void stop() {
        if (app != null) {
            app.close();
        }
    }

    static JsonNode get(String pathAndQuery) throws Exception {
        HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(base + pathAndQuery)).GET().build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as(pathAndQuery + ": " + r.body()).isEqualTo(200);
        return JSON.readTree(r.body());
    }

    /** @return the value of the statistic {@code statistic} of one meter, as /actuator/metrics/{name} reports it */
    static double statistic(String name, String statistic, String... tags) throws Exception {
        StringBuilder q = new StringBuilder("/" + name);
        for (int i = 0; i < tags.length; i++) {
            q.append(i == 0 ? '?' : '&').append("tag=").append(tags[i]);
        }
        for (JsonNode m : get(q.toString()).get("measurements")) {
            if (m.get("statistic").asString().equals(statistic)) {
                return m.get("value").asDouble();
            }
        }
        throw new AssertionError(name + " has no " + statistic);
    }

    @Test
    void everyMeterIsListedAtZeroRightAfterStartAndTheJobsThenCountInIt() throws Exception {
        assertThat(Handlers.HANDLED).hasValue(0);
        List<String> names = new ArrayList<>();
        get("").get("names").forEach(n -> names.add(n.asString()));
        assertThat(names).containsAll(METERS);

        for (String queue : List.of("metrics-signups", "metrics-outbox")) {
            assertThat(statistic("echomq.queue.enqueued", "COUNT", "queue:" + queue)).isZero();
            assertThat(statistic("echomq.queue.processed", "COUNT", "queue:" + queue, "outcome:completed")).isZero();
            assertThat(statistic("echomq.queue.wait", "COUNT", "queue:" + queue)).isZero();
            assertThat(statistic("echomq.queue.reaped", "COUNT", "queue:" + queue, "to:dead")).isZero();
            assertThat(statistic("echomq.queue.timeouts", "COUNT", "queue:" + queue, "outcome:dead")).isZero();
            for (String state : List.of("pending", "active", "delayed", "dead", "overdue")) {
                assertThat(statistic("echomq.queue.jobs", "VALUE", "queue:" + queue, "state:" + state)).isZero();
            }
        }
        assertThat(statistic("echomq.lock.acquire", "COUNT", "mode:fenced", "outcome:acquired")).isZero();
        assertThat(Handlers.HANDLED).hasValue(0);

        app.getBean(EchoMQTemplate.class).enqueue("metrics-signups", "hello");
        await().atMost(Duration.ofSeconds(15)).until(() ->
                statistic("echomq.queue.processed", "COUNT", "queue:metrics-signups", "outcome:completed") == 1);
        assertThat(statistic("echomq.queue.enqueued", "COUNT", "queue:metrics-signups")).isEqualTo(1);
        assertThat(Handlers.HANDLED).hasValue(1);
    }
}
