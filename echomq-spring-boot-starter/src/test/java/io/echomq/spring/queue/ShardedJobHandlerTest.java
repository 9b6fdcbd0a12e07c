package io.echomq.spring.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.echomq.queue.QueueClient;
import io.echomq.queue.QueueStats;
import io.echomq.queue.ShardedQueue;
import io.echomq.server.RedisCluster;
import io.echomq.spring.TestApps;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * An {@code @EchoJobHandler} serves a sharded queue, on a real three-master Redis Cluster whose
 * masters hold the queue's partitions: the template enqueues over every partition and the
 * handler's worker claims from all of them, each job once.
 */
class ShardedJobHandlerTest {
    private static final int PARTITIONS = 6;
    private static final int JOBS = 120;
    static final Map<String, AtomicInteger> RUNS = new ConcurrentHashMap<>();

    static RedisCluster cluster;
    static ShardedQueue orders;
    static QueueClient declaring;
    static ConfigurableApplicationContext ctx;

    @BeforeAll
    static void start() {
        cluster = RedisCluster.start();
        // The count is declared before the application starts, as an operator or a migration would.
        declaring = QueueClient.create(cluster.url());
        orders = declaring.shardedQueue("orders", PARTITIONS);
        ctx = TestApps.start(App.class, cluster.url());
    }

    @AfterAll
    static void stop() {
        if (ctx != null) {
            ctx.close();
        }
        if (declaring != null) {
            declaring.close();
        }
        cluster.close();
    }

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class App {
        @Bean
        Handlers handlers() {
            return new Handlers();
        }
    }

    static class Handlers {
        @EchoJobHandler(queue = "orders", concurrency = 4)
        void handle(String order) {
            RUNS.computeIfAbsent(order, k -> new AtomicInteger()).incrementAndGet();
        }
    }

    @Test
    void theHandlerDrainsEveryPartitionOfTheShardedQueue() {
        EchoMQTemplate template = ctx.getBean(EchoMQTemplate.class);
        for (int i = 0; i < JOBS; i++) {
            template.enqueue("orders", "order-" + i);
        }
        await().atMost(Duration.ofSeconds(30)).until(() -> orders.stats().completed() == JOBS);
        assertThat(RUNS).hasSize(JOBS);
        assertThat(RUNS.values()).allMatch(n -> n.get() == 1);
        // The template spread the jobs over the partitions, and the worker emptied each one.
        assertThat(orders.partitionStats()).hasSize(PARTITIONS)
                .allMatch(QueueStats::drained)
                .allMatch(s -> s.completed() > 0);
    }
}
