package io.echomq.testkit;

import io.echomq.server.RawRedis;
import io.echomq.server.RedisServer;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.UncheckedIOException;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** {@link RedisServer#restart()} and {@link ReplicaPair}, against real servers. */
class ServerFaultsTest {

    @Test
    void restartWithoutPersistenceComesBackEmptyOnTheSamePort() {
        try (RedisServer server = RedisServer.start()) {
            int port = server.port();
            RawRedis before = RawRedis.connect(server.host(), port);
            before.call("SET", "k", "v");
            server.restart();
            assertThatThrownBy(() -> before.call("PING")).isInstanceOf(UncheckedIOException.class);
            before.close();
            assertThat(server.port()).isEqualTo(port);
            assertThat(server.restarts()).isEqualTo(1);
            try (RawRedis after = RawRedis.connect(server.host(), port)) {
                assertThat(after.call("GET", "k")).isNull();
            }
        }
    }

    @Test
    void restartWithAofAlwaysKeepsEveryAcknowledgedWrite() {
        try (RedisServer server = RedisServer.builder().config("appendonly", "yes")
                .config("appendfsync", "always").start()) {
            try (RawRedis raw = RawRedis.connect(server.host(), server.port())) {
                raw.call("SET", "k", "v");
                raw.call("INCR", "n");
            }
            server.restart(); // SIGKILL: no shutdown save
            try (RawRedis raw = RawRedis.connect(server.host(), server.port())) {
                assertThat(raw.call("GET", "k")).isEqualTo("v");
                assertThat(raw.call("GET", "n")).isEqualTo("1");
            }
        }
    }

    @Test
    void restartOfAClosedServerIsRefused() {
        RedisServer server = RedisServer.start();
        server.close();
        assertThatThrownBy(server::restart).isInstanceOf(IllegalStateException.class).hasMessageContaining("closed");
    }

    @Test
    void replicaFollowsThePrimaryAndFailoverPromotesIt() {
        try (ReplicaPair pair = ReplicaPair.start()) {
            try (RawRedis p = RawRedis.connect(pair.primary().host(), pair.primary().port());
                 RawRedis r = RawRedis.connect(pair.replica().host(), pair.replica().port())) {
                p.call("SET", "k", "replicated");
                pair.awaitSync(Duration.ofSeconds(10));
                assertThat(r.call("GET", "k")).isEqualTo("replicated");
                assertThatThrownBy(() -> r.call("SET", "k", "x")).isInstanceOf(RawRedis.ErrorReply.class)
                        .hasMessageContaining("READONLY");

                // A write the replica never received is missing after the failover.
                pair.link().blackHole(Duration.ofSeconds(30));
                p.call("SET", "late", "only-on-primary");
                pair.failover();
                pair.link().cutAll();
                assertThat(pair.failedOver()).isTrue();
                assertThat(r.call("GET", "late")).isNull();
                assertThat(r.call("SET", "k", "writable")).isEqualTo("OK");
                assertThatThrownBy(pair::failover).isInstanceOf(IllegalStateException.class);
            }
        }
    }
}
