package io.echomq.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.echomq.lock.LockClient;
import io.echomq.testkit.RedisExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Regression: Lettuce completes a connect before it activates the connection's endpoint, and we
 * reject commands while disconnected, so the first command after a connect could be refused
 * "Currently not connected" (about once in a few hundred connects with AUTH, before
 * {@link EndpointReadiness#awaitOpen}). Many connects, each with its first command at once.
 */
@Tag("standalone-only")   // sets requirepass on the one server
class ConnectActivationTest {
    @RegisterExtension
    static final RedisExtension REDIS = new RedisExtension();

    @Test
    void theFirstCommandAfterAConnectIsNeverRefusedAsNotConnected() {
        REDIS.raw().call("CONFIG", "SET", "requirepass", "activation-test");
        List<String> failures = new ArrayList<>();
        try {
            String url = "redis://:activation-test@127.0.0.1:" + REDIS.server().port();
            for (int i = 0; i < 500; i++) {
                try (LockClient client = LockClient.create(url)) {
                    assertThat(client.tryAcquire("r" + i, Duration.ofSeconds(5))).isPresent();
                } catch (RuntimeException e) {
                    failures.add("connect " + i + ": " + e.getMessage());
                }
            }
        } finally {
            REDIS.raw().call("CONFIG", "SET", "requirepass", "");
        }
        assertThat(failures).as("connects whose first command failed").isEmpty();
    }
}
