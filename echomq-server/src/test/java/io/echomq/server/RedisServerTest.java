package io.echomq.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.util.List;
import org.junit.jupiter.api.Test;

class RedisServerTest {

    @Test
    void startsAnswersPingAndReportsVersion() {
        try (RedisServer server = RedisServer.start()) {
            System.out.println("echomq-server started " + server);
            assertThat(server.isRunning()).isTrue();
            assertThat(server.host()).isEqualTo("127.0.0.1");
            assertThat(server.url()).isEqualTo("redis://127.0.0.1:" + server.port());
            assertThat(Files.isExecutable(server.binary())).isTrue();
            assertThat(server.product()).isIn("Redis", "Valkey");
            assertThat(server.version()).matches("\\d+\\.\\d+\\.\\d+");
            try (RawRedis raw = RawRedis.connect(server.host(), server.port())) {
                assertThat(raw.call("PING")).isEqualTo("PONG");
                String info = (String) raw.call("INFO", "server");
                assertThat(info).contains("redis_version:" + server.redisVersion());
                String own = server.product().toLowerCase(java.util.Locale.ROOT) + "_version:";
                assertThat(info).contains(own + server.version());
            }
        }
    }

    @Test
    void identityComesFromWhatTheServerSays() {
        String redis7 = "# Server\r\nredis_version:7.0.15\r\nredis_git_sha1:00000000\r\nredis_mode:standalone\r\n";
        assertThat(ServerIdentity.of(redis7)).isEqualTo(new ServerIdentity("Redis", "7.0.15", "7.0.15"));
        String valkey8 = "# Server\r\nredis_version:7.2.4\r\nserver_name:valkey\r\nvalkey_version:8.0.1\r\n"
                + "redis_git_sha1:00000000\r\n";
        ServerIdentity valkey = ServerIdentity.of(valkey8);
        assertThat(valkey).isEqualTo(new ServerIdentity("Valkey", "8.0.1", "7.2.4"));
        assertThat(valkey).hasToString("Valkey 8.0.1");
    }

    @Test
    void twoServersGetDifferentPorts() {
        try (RedisServer a = RedisServer.start(); RedisServer b = RedisServer.start()) {
            assertThat(a.port()).isNotEqualTo(b.port());
            try (RawRedis ra = RawRedis.connect(a.host(), a.port());
                 RawRedis rb = RawRedis.connect(b.host(), b.port())) {
                ra.call("SET", "k", "a");
                assertThat(rb.call("GET", "k")).isNull();
            }
        }
    }

    @Test
    void closeIsIdempotentAndThePortStopsAnswering() {
        RedisServer server = RedisServer.start();
        server.close();
        server.close();
        assertThat(server.isRunning()).isFalse();
        assertThatThrownBy(() -> {
            try (RawRedis raw = RawRedis.connect(server.host(), server.port())) {
                raw.call("PING");
            }
        }).isInstanceOf(UncheckedIOException.class);
    }

    @Test
    void killLeavesTheServerDownUntilARestart() {
        try (RedisServer server = RedisServer.start()) {
            server.kill();
            assertThat(server.isRunning()).isFalse();
            assertThatThrownBy(() -> {
                try (RawRedis raw = RawRedis.connect(server.host(), server.port())) {
                    raw.call("PING");
                }
            }).isInstanceOf(UncheckedIOException.class);
            server.restart();
            assertThat(server.isRunning()).isTrue();
            try (RawRedis raw = RawRedis.connect(server.host(), server.port())) {
                assertThat(raw.call("PING")).isEqualTo("PONG");
            }
        }
    }

    @Test
    void builderConfigApplies() {
        try (RedisServer server = RedisServer.builder()
                .config("maxmemory", "10mb")
                .config("appendonly", "yes")
                .start();
             RawRedis raw = RawRedis.connect(server.host(), server.port())) {
            assertThat(raw.call("CONFIG", "GET", "maxmemory")).isEqualTo(List.of("maxmemory", "10485760"));
            assertThat(raw.call("CONFIG", "GET", "appendonly")).isEqualTo(List.of("appendonly", "yes"));
            assertThat(raw.call("CONFIG", "GET", "save")).isEqualTo(List.of("save", ""));
            assertThat(raw.call("CONFIG", "GET", "bind")).isEqualTo(List.of("bind", "127.0.0.1"));
        }
    }

    @Test
    void builderBinaryIsUsed() {
        java.nio.file.Path embedded = RedisBinary.resolve(null, "test");
        try (RedisServer server = RedisServer.builder().binary(embedded).start()) {
            assertThat(server.binary()).isEqualTo(embedded);
            assertThat(server.version()).startsWith("6.");
        }
    }

    @Test
    void builderRejectsReservedDirectivesAndBadPorts() {
        assertThatThrownBy(() -> RedisServer.builder().config("port", "1"))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> RedisServer.builder().port(70_000))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void explicitPortInUseFailsWithServerOutput() {
        try (RedisServer first = RedisServer.start()) {
            assertThatThrownBy(() -> RedisServer.builder().port(first.port()).start())
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining(String.valueOf(first.port()))
                    .hasMessageContaining("in use");
            assertThat(first.isRunning()).isTrue();
            try (RawRedis raw = RawRedis.connect(first.host(), first.port())) {
                assertThat(raw.call("PING")).isEqualTo("PONG");
            }
        }
    }
}
