package io.echomq.lock;

import static org.assertj.core.api.Assertions.assertThat;

import io.echomq.Wire;
import io.echomq.server.CommandTap;
import io.echomq.testkit.Garbage;
import io.echomq.server.RawRedis;
import io.echomq.testkit.RedisExtension;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Bad input to the lock API, tried systematically against a real server: every generated resource
 * name, ttl and wait either gets an {@link IllegalArgumentException} that names the argument,
 * with nothing sent to Redis (MONITOR proves it), or works exactly as documented, on exactly the
 * documented key.
 */
@org.junit.jupiter.api.Tag("standalone-only")   // reads MONITOR of one server (docs/scaling.md)
@Timeout(120)
class LockInputPropertyTest {
    private static final int CASES = 100;

    @RegisterExtension
    static final RedisExtension REDIS = new RedisExtension();

    private static LockClient locks;
    private static CommandTap tap;

    @BeforeAll
    static void open() {
        locks = LockClient.create(REDIS.url());
        tap = REDIS.raw().monitor();
    }

    @AfterAll
    static void close() {
        tap.close();
        locks.close();
    }

    static Stream<String> resources() {
        return Garbage.cases(CASES, Garbage::string);
    }

    static Stream<Arguments> durations() {
        long max = LockClient.MAX_TTL.toNanos();
        long ms = 1_000_000;
        return Garbage.cases(CASES, g -> Arguments.of(g.chance(0.8)
                ? Duration.ofNanos(g.around(0, 1, ms - 1, ms, ms + 1, 30 * ms, max - 1, max, max + 1, Long.MIN_VALUE))
                : Duration.ofSeconds(g.around(Long.MAX_VALUE, Long.MIN_VALUE, 86_400, -1), g.between(0, 999_999_999))));
    }

    @ParameterizedTest(name = "{index}")
    @MethodSource("resources")
    void aResourceGetsAClearErrorOrItsOwnLock(String resource) {
        String shown = Garbage.show(resource);
        try {
            List<List<String>> sent = Wire.during(raw(), tap, () -> {
                Lease lease = locks.tryAcquire(resource, Duration.ofSeconds(30)).orElseThrow();
                String key = "emq:lock:{" + resource + "}:lock";
                assertThat(raw().call("GET", key)).as("token under the documented key for %s", shown)
                        .isEqualTo(lease.token());
                assertThat(locks.inspect(resource).holderToken()).contains(lease.token());
                assertThat(lease.release()).isEqualTo(ReleaseOutcome.RELEASED);
                assertThat(raw().call("EXISTS", key)).isEqualTo(0L);
            });
            assertThat(sent).as("commands for %s", shown).isNotEmpty();
        } catch (Wire.Sent refused) {
            assertThat(refused.getCause()).as("%s", shown).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("resource");
            assertThat(refused.commands()).as("nothing sent for the refused %s", shown).isEmpty();
            assertThat(resource.isEmpty() || resource.indexOf('{') >= 0 || resource.indexOf('}') >= 0
                    || utf8Length(resource) > 1024 || !wellFormed(resource)).as("refusal of %s", shown).isTrue();
        }
    }

    @ParameterizedTest(name = "{index}: {0}")
    @MethodSource("durations")
    void aTtlGetsAClearErrorOrALockThatLivesNoLonger(Duration ttl) {
        boolean valid = ttl.compareTo(Duration.ofMillis(1)) >= 0 && ttl.compareTo(LockClient.MAX_TTL) <= 0;
        String resource = "ttl";
        try {
            Wire.during(raw(), tap, () -> {
                Optional<Lease> lease = locks.tryAcquire(resource, ttl);
                assertThat(lease).isPresent();
                long pttl = (Long) raw().call("PTTL", "emq:lock:{ttl}:lock");
                assertThat(pttl).as("never longer than asked").isLessThanOrEqualTo(ttl.toMillis());
                if (ttl.toMillis() >= 1000) {
                    assertThat(pttl).as("and mortal, not expiry-less").isPositive();
                }
                lease.orElseThrow().release();
            });
            assertThat(valid).as("accepted %s", ttl).isTrue();
        } catch (Wire.Sent refused) {
            assertThat(valid).as("refused %s: %s", ttl, refused.getCause()).isFalse();
            assertThat(refused.getCause()).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("ttl");
            assertThat(refused.commands()).isEmpty();
        }
    }

    @ParameterizedTest(name = "{index}: {0}")
    @MethodSource("durations")
    void aWaitGetsAClearErrorOrAFreeLockAtOnce(Duration maxWait) throws Exception {
        if (maxWait.isNegative()) {
            Wire.Sent refused = catchSent(() -> locks.acquire("wait", Duration.ofSeconds(1), maxWait));
            assertThat(refused.getCause()).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("maxWait");
            assertThat(refused.commands()).isEmpty();
            return;
        }
        // a free lock is granted at once, however long (or short) the wait
        try (Lease lease = locks.acquire("wait", Duration.ofSeconds(1), maxWait)) {
            assertThat(lease.isHeld()).isTrue();
        }
    }

    @ParameterizedTest(name = "{index}")
    @MethodSource("resources")
    void aTokenGetsAClearErrorOrAnOwnerCheckedAnswer(String token) {
        locks.tryAcquire("owned", Duration.ofSeconds(30)).orElseThrow();
        try {
            Wire.during(raw(), tap, () -> {
                assertThat(locks.release("owned", token)).isEqualTo(ReleaseOutcome.NOT_OWNER);
                assertThat(locks.renew("owned", token, Duration.ofSeconds(5))).isEqualTo(RenewOutcome.NOT_OWNER);
            });
        } catch (Wire.Sent refused) {
            assertThat(refused.getCause()).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("token");
            assertThat(refused.commands()).isEmpty();
        } finally {
            raw().call("DEL", "emq:lock:{owned}:lock");
        }
    }

    private static Wire.Sent catchSent(ThrowingRunnable call) {
        try {
            Wire.during(raw(), tap, () -> {
                try {
                    call.run();
                } catch (RuntimeException e) {
                    throw e;
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
        } catch (Wire.Sent sent) {
            return sent;
        }
        throw new AssertionError("expected a refusal");
    }

    private interface ThrowingRunnable {
        void run() throws Exception;
    }

    private static RawRedis raw() {
        return REDIS.raw();
    }

    private static int utf8Length(String s) {
        return s.getBytes(StandardCharsets.UTF_8).length;
    }

    private static boolean wellFormed(String s) {
        return s.equals(new String(s.getBytes(StandardCharsets.UTF_8), StandardCharsets.UTF_8));
    }
}
