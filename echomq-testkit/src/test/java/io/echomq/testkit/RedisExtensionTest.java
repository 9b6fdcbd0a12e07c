package io.echomq.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The extension hands out one running server, its URL and one shared raw connection. */
class RedisExtensionTest {

    @RegisterExtension
    static final RedisExtension REDIS = new RedisExtension();

    @Test
    void extensionExposesTheServer() {
        assertThat(REDIS.server().isRunning()).isTrue();
        if (!RedisExtension.clusterMode()) {
            assertThat(REDIS.url()).isEqualTo(REDIS.server().url());
        }
        assertThat(REDIS.raw()).isSameAs(REDIS.raw());
        assertThat(REDIS.raw().call("PING")).isEqualTo("PONG");
    }
}
