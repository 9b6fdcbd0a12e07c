package io.echomq.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import io.echomq.testkit.RedisExtension;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Handlers on platform threads, blocked in JDBC calls through a HikariCP pool to an H2 server
 * over TCP, lose their lease, time out or are cancelled mid-call: every later job on the pool
 * succeeds ({@link PooledJdbcStops}).
 */
class StopKeepsPooledConnectionsTest {
    @RegisterExtension
    static final RedisExtension REDIS = new RedisExtension();

    @Test
    void onPlatformThreadsEveryLaterJobOnThePoolSucceeds() throws Exception {
        ExecutorService platform = Executors.newFixedThreadPool(PooledJdbcStops.POOL);
        try (PooledJdbcStops scenario = new PooledJdbcStops(REDIS)) {
            assertThat(scenario.run(platform, false)).as("ran on virtual threads").isFalse();
        } finally {
            platform.shutdownNow();
        }
    }
}
