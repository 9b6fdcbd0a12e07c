package io.echomq.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import io.echomq.testkit.RedisExtension;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * As {@link StopKeepsPooledConnectionsTest}, on virtual threads, where a blocking socket read is
 * interruptible: an interrupt would close the pooled connection's socket under the call. Tagged
 * jdk21: virtual threads need Java 21+, so the module excludes it by default and the JDK 25 CI
 * pass runs it.
 */
@Tag("jdk21")
class StopKeepsPooledConnectionsVirtualTest {
    @RegisterExtension
    static final RedisExtension REDIS = new RedisExtension();

    @Test
    void onVirtualThreadsEveryLaterJobOnThePoolSucceeds() throws Exception {
        // looked up reflectively: the module is built for Java 17
        ExecutorService virtual = (ExecutorService) Executors.class.getMethod("newVirtualThreadPerTaskExecutor").invoke(null);
        try (PooledJdbcStops scenario = new PooledJdbcStops(REDIS)) {
            assertThat(scenario.run(virtual, false)).as("ran on virtual threads").isTrue();
        } finally {
            virtual.shutdownNow();
        }
    }
}
