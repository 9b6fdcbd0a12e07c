package io.echomq.testkit;

import io.echomq.server.RawRedis;
import io.echomq.server.RedisServer;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class FaultProxyTest {

    private static RedisServer redis;

    @BeforeAll
    static void startRedis() {
        redis = RedisServer.start();
    }

    @AfterAll
    static void stopRedis() {
        redis.close();
    }

    @Test
    void forwardsCommandsBothWays() {
        try (FaultProxy proxy = FaultProxy.start(redis); RawRedis raw = RawRedis.connect(proxy.host(), proxy.port())) {
            assertThat(raw.call("SET", "proxied", "yes")).isEqualTo("OK");
            assertThat(raw.call("GET", "proxied")).isEqualTo("yes");
            assertThat(proxy.acceptedConnections()).isEqualTo(1);
            assertThat(proxy.url()).isEqualTo("redis://127.0.0.1:" + proxy.port());
        }
    }

    @Test
    void cutAllResetsOpenConnectionsAndAcceptsNewOnes() {
        try (FaultProxy proxy = FaultProxy.start(redis); RawRedis raw = RawRedis.connect(proxy.host(), proxy.port())) {
            assertThat(raw.call("PING")).isEqualTo("PONG");
            assertThat(proxy.cutAll()).isEqualTo(1);
            assertThatThrownBy(() -> raw.call("PING")).isInstanceOf(UncheckedIOException.class);
            try (RawRedis again = RawRedis.connect(proxy.host(), proxy.port())) {
                assertThat(again.call("PING")).isEqualTo("PONG");
            }
            assertThat(proxy.cutConnections()).isEqualTo(1);
        }
    }

    @Test
    void blackHoleHoldsRepliesUntilHealed() throws Exception {
        try (FaultProxy proxy = FaultProxy.start(redis); RawRedis raw = RawRedis.connect(proxy.host(), proxy.port())) {
            assertThat(raw.call("PING")).isEqualTo("PONG");
            proxy.blackHole(Duration.ofSeconds(30));
            CompletableFuture<Object> reply = CompletableFuture.supplyAsync(() -> raw.call("ECHO", "held"));
            // While the black hole lasts, no reply can arrive: the wait must time out.
            assertThatThrownBy(() -> reply.get(300, TimeUnit.MILLISECONDS)).isInstanceOf(TimeoutException.class);
            assertThat(proxy.openConnections()).isEqualTo(1);
            proxy.heal();
            assertThat(reply.get(10, TimeUnit.SECONDS)).isEqualTo("held");
        }
    }

    @Test
    void blackHoleEndsByItself() {
        try (FaultProxy proxy = FaultProxy.start(redis); RawRedis raw = RawRedis.connect(proxy.host(), proxy.port())) {
            proxy.blackHole(Duration.ofMillis(200));
            assertThat(raw.call("ECHO", "later")).isEqualTo("later");
        }
    }

    @Test
    void delayHoldsEachChunkUntilHealed() throws Exception {
        try (FaultProxy proxy = FaultProxy.start(redis); RawRedis raw = RawRedis.connect(proxy.host(), proxy.port())) {
            proxy.delay(Duration.ofSeconds(2));
            CompletableFuture<Object> reply = CompletableFuture.supplyAsync(() -> raw.call("PING"));
            // The request itself is held 2 s: no reply can be there sooner.
            assertThatThrownBy(() -> reply.get(300, TimeUnit.MILLISECONDS)).isInstanceOf(TimeoutException.class);
            proxy.heal();   // chunks already held finish their delay; later ones pass at once
            assertThat(reply.get(10, TimeUnit.SECONDS)).isEqualTo("PONG");
            assertThat(raw.call("PING")).isEqualTo("PONG");
        }
    }

    @Test
    void rejectsBadArguments() {
        assertThatThrownBy(() -> FaultProxy.start("127.0.0.1", 0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("upstream port");
        try (FaultProxy proxy = FaultProxy.start(redis)) {
            assertThatThrownBy(() -> proxy.delay(Duration.ofMillis(-1))).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("delay");
            assertThatThrownBy(() -> proxy.blackHole(Duration.ofHours(1)))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("duration");
        }
    }
}
