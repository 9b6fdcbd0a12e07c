package io.echomq.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.echomq.RedisCommandException;
import io.echomq.server.CommandTap;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/** Bad input is a clear IllegalArgumentException before Redis is touched; Redis failures are ours. */
class ErrorsTest extends LockTestBase {
    private static final Duration TTL = Duration.ofSeconds(10);
    private static final String HUGE = "r".repeat(1025);

    static Stream<Arguments> badCalls() {
        return Stream.of(
                bad("null resource", "resource", l -> l.tryAcquire(null, TTL)),
                bad("empty resource", "resource", l -> l.tryAcquire("", TTL)),
                bad("huge resource", "1025 bytes", l -> l.tryAcquire(HUGE, TTL)),
                bad("null ttl", "ttl", l -> l.tryAcquire("r", null)),
                bad("zero ttl", "ttl must be positive", l -> l.tryAcquire("r", Duration.ZERO)),
                bad("negative ttl", "ttl must be positive", l -> l.tryAcquire("r", Duration.ofMillis(-5))),
                bad("sub-millisecond ttl", "at least 1 ms", l -> l.tryAcquire("r", Duration.ofNanos(500_000))),
                bad("ttl above max", "maximum", l -> l.tryAcquire("r", Duration.ofDays(2))),
                bad("null options", "options", l -> l.tryAcquire("r", TTL, null)),
                bad("negative wait", "maxWait", l -> acquire(l, "r", TTL, Duration.ofMillis(-1))),
                bad("null wait", "maxWait", l -> acquire(l, "r", TTL, null)),
                bad("wait with bad ttl", "ttl", l -> acquire(l, "r", Duration.ZERO, Duration.ofSeconds(1))),
                bad("release empty token", "token", l -> l.release("r", "")),
                bad("release null resource", "resource", l -> l.release(null, "t")),
                bad("renew zero ttl", "ttl", l -> l.renew("r", "t", Duration.ZERO)),
                bad("inspect empty", "resource", l -> l.inspect("")),
                bad("fenced write zero fence", "fence", l -> l.fencedStore().write("k", 0, "v")),
                bad("fenced write null value", "value", l -> l.fencedStore().write("k", 1, null)),
                bad("fenced write empty key", "key", l -> l.fencedStore().write("", 1, "v")));
    }

    private static Arguments bad(String name, String message, Consumer<LockClient> call) {
        return Arguments.of(name, message, call);
    }

    private static void acquire(LockClient l, String r, Duration ttl, Duration wait) {
        try {
            l.acquire(r, ttl, wait);
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badCalls")
    @Tag("standalone-only")   // reads MONITOR of one server (docs/scaling.md)
    void badInputIsRejectedBeforeRedisIsTouched(String name, String message, Consumer<LockClient> call) {
        try (CommandTap tap = raw().monitor()) {
            assertThatThrownBy(() -> call.accept(locks))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining(message);
            raw().call("PING", "marker");
            assertThat(tap.awaitCommand(c -> c.contains("marker"), Duration.ofSeconds(5))).isTrue();
            assertThat(tap.commands()).as("commands sent for %s", name).hasSize(1);
        }
    }

    @Test
    void badLeaseRenewTtlIsRejected() {
        Lease lease = locks.tryAcquire("r", TTL).orElseThrow();
        assertThatThrownBy(() -> lease.renew(Duration.ofMillis(-1))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> lease.onLost(null)).isInstanceOf(IllegalArgumentException.class);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "http://127.0.0.1:6379", "redis://:99999", "redis://host:abc", "not a url"})
    void malformedUrlsAreRejected(String url) {
        assertThatThrownBy(() -> LockClient.create(url))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("Redis URL");
    }

    @Test
    void badBuilderSettingsNameTheSetting() {
        assertThatThrownBy(() -> LockClient.builder().build()).hasMessageContaining("redisUrl");
        assertThatThrownBy(() -> LockClient.builder().namespace("a{b}")).hasMessageContaining("namespace");
        assertThatThrownBy(() -> LockClient.builder().pollInterval(Duration.ZERO)).hasMessageContaining("pollInterval");
        assertThatThrownBy(() -> LockClient.builder().commandTimeout(null)).hasMessageContaining("commandTimeout");
        assertThatThrownBy(() -> LockClient.builder().clock(null)).hasMessageContaining("clock");
    }

    @Test
    void anUnreachableServerIsARedisCommandExceptionNamingConnect() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        String url = "redis://127.0.0.1:" + port;
        ThrowingCallable connect = () -> LockClient.builder().redisUrl(url)
                .commandTimeout(Duration.ofSeconds(2)).build();
        assertThatThrownBy(connect)
                .isInstanceOf(RedisCommandException.class)
                .satisfies(e -> assertThat(((RedisCommandException) e).command()).startsWith("CONNECT"))
                .hasMessageContaining(String.valueOf(port));
    }

    @Test
    void aServerErrorNamesTheCommandAndTheResource() {
        raw().call("HSET", locks.lockKey("wrongtype"), "f", "v");
        assertThatThrownBy(() -> locks.renew("wrongtype", "t", TTL))
                .isInstanceOf(RedisCommandException.class)
                .hasMessageContaining("EVALSHA renew-2")
                .hasMessageContaining("'wrongtype'")
                .hasMessageContaining("WRONGTYPE")
                .satisfies(e -> {
                    RedisCommandException rce = (RedisCommandException) e;
                    assertThat(rce.command()).isEqualTo("EVALSHA renew-2");
                    assertThat(rce.resource()).isEqualTo("wrongtype");
                });
        raw().call("SET", "guarded-string", "x");
        assertThatThrownBy(() -> locks.fencedStore().write("guarded-string", 1, "v"))
                .isInstanceOf(RedisCommandException.class)
                .hasMessageContaining("fenced-write-1")
                .hasMessageContaining("guarded-string");
    }
}
