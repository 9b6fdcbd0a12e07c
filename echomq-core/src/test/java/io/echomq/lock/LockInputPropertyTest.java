package io.echomq.lock;

import static org.assertj.core.api.Assertions.assertThat;

import io.echomq.testkit.NameCases;
import io.echomq.Wire;
import io.echomq.server.CommandTap;
import io.echomq.testkit.Garbage;
import io.echomq.server.RawRedis;
import io.echomq.testkit.RedisExtension;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Input to the lock API, tried systematically against a real server. Each input is judged first by an oracle that
 * restates the documented rules ({@link NameCases}, and 1 ms ≤ ttl ≤ {@link LockClient#MAX_TTL}): an invalid one must
 * get an {@link IllegalArgumentException} that names the argument, with nothing sent to Redis (MONITOR proves it); a
 * valid one must work exactly as documented, on exactly the documented key. The inputs are the rules' boundary
 * values, inputs valid by construction and hostile ones, each once.
 */
@org.junit.jupiter.api.Tag("standalone-only")   // reads MONITOR of one server (docs/scaling.md)
@Timeout(120)
class LockInputPropertyTest {
    /** Generated inputs per rule, besides the listed boundaries. */
    private static final int CASES = 50;
    private static final long MS = 1_000_000;

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

    static Stream<String> names() {
        return NameCases.stratified(CASES, NameCases.MAX_NAME_BYTES).stream();
    }

    /** The ttl and wait boundaries, then durations drawn evenly from the valid and the invalid ranges. */
    static Stream<Duration> durations() {
        long max = LockClient.MAX_TTL.toNanos();
        Set<Duration> out = new LinkedHashSet<>();
        for (long n : new long[] {Long.MIN_VALUE, -MS, -1, 0, 1, MS - 1, MS, MS + 1, 30 * MS, 999 * MS, 1000 * MS,
            max - 1, max, max + 1, Long.MAX_VALUE}) {
            out.add(Duration.ofNanos(n));
        }
        out.add(Duration.ofSeconds(Long.MAX_VALUE));
        out.add(Duration.ofSeconds(Long.MIN_VALUE));
        SplittableRandom r = new SplittableRandom(Garbage.seed());
        while (out.size() < 17 + CASES) {
            switch (out.size() % 4) {
                case 0 -> out.add(Duration.ofNanos(r.nextLong(MS, 2_000 * MS)));             // valid, short
                case 1 -> out.add(Duration.ofNanos(r.nextLong(MS, max + 1)));                 // valid, any
                case 2 -> out.add(Duration.ofNanos(r.nextLong(Long.MIN_VALUE, MS)));          // too short
                default -> out.add(Duration.ofNanos(r.nextLong(max + 1, Long.MAX_VALUE)));    // too long
            }
        }
        return out.stream();
    }

    static boolean ttlValid(Duration ttl) {
        return ttl.compareTo(Duration.ofMillis(1)) >= 0 && ttl.compareTo(Duration.ofDays(1)) <= 0;
    }

    @ParameterizedTest(name = "{index}")
    @MethodSource("names")
    void aResourceIsRefusedIfAndOnlyIfInvalidElseLockedOnItsOwnKey(String resource) {
        String shown = Garbage.show(resource);
        String key = "emq:lock:{" + resource + "}:lock";
        Lease[] lease = new Lease[1];
        try {
            List<List<String>> sent = Wire.during(raw(), tap,
                    () -> lease[0] = locks.tryAcquire(resource, Duration.ofSeconds(30)).orElseThrow());
            assertThat(NameCases.resourceValid(resource)).as("accepted %s", shown).isTrue();
            assertThat(sent).as("the grant's command names the documented key for %s", shown)
                    .anyMatch(c -> c.contains(key));
        } catch (Wire.Sent refused) {
            assertThat(NameCases.resourceValid(resource)).as("refused %s: %s", shown, refused.getCause()).isFalse();
            assertThat(refused.getCause()).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("resource");
            assertThat(refused.commands()).as("nothing sent for the refused %s", shown).isEmpty();
            return;
        }
        assertThat(raw().call("GET", key)).as("token under the documented key").isEqualTo(lease[0].token());
        assertThat(lease[0].release()).isEqualTo(ReleaseOutcome.RELEASED);
        assertThat(raw().call("EXISTS", key)).isEqualTo(0L);
    }

    @ParameterizedTest(name = "{index}: {0}")
    @MethodSource("durations")
    void aTtlIsRefusedIfAndOnlyIfOutOfRangeElseTheLockLivesNoLonger(Duration ttl) {
        String key = "emq:lock:{ttl}:lock";
        try {
            Wire.during(raw(), tap, () -> {
                Lease lease = locks.tryAcquire("ttl", ttl).orElseThrow();
                long pttl = (Long) raw().call("PTTL", key);
                // -2: a ttl of a few ms may already have run out; -1 (no expiry) is never right
                assertThat(pttl).as("PTTL after a grant for %s", ttl).isNotEqualTo(-1L)
                        .isLessThanOrEqualTo(ttl.toMillis());
                if (ttl.toMillis() >= 1000) {
                    assertThat(pttl).as("still held").isGreaterThan(ttl.toMillis() - 1000);
                }
                lease.release();
            });
            assertThat(ttlValid(ttl)).as("accepted %s", ttl).isTrue();
        } catch (Wire.Sent refused) {
            assertThat(ttlValid(ttl)).as("refused %s: %s", ttl, refused.getCause()).isFalse();
            assertThat(refused.getCause()).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("ttl");
            assertThat(refused.commands()).isEmpty();
        } finally {
            raw().call("DEL", key);
        }
    }

    @ParameterizedTest(name = "{index}: {0}")
    @MethodSource("durations")
    void aWaitIsRefusedIfAndOnlyIfNegativeElseAFreeLockIsGrantedAtOnce(Duration maxWait) throws Exception {
        if (maxWait.isNegative()) {
            Wire.Sent refused = catchSent(() -> locks.acquire("wait", Duration.ofSeconds(1), maxWait));
            assertThat(refused.getCause()).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("maxWait");
            assertThat(refused.commands()).isEmpty();
            return;
        }
        // a free lock is granted at once, however long (or short) the wait: one round trip, not a wait
        long start = System.nanoTime();
        try (Lease lease = locks.acquire("wait", Duration.ofSeconds(1), maxWait)) {
            long tookMs = (System.nanoTime() - start) / MS;
            assertThat(lease.isHeld()).isTrue();
            assertThat(tookMs).as("ms to take a free lock with maxWait %s", maxWait).isLessThan(500);
        }
    }

    @ParameterizedTest(name = "{index}")
    @MethodSource("names")
    void aTokenIsRefusedIfAndOnlyIfInvalidElseAnsweredByTheOwnerCheck(String token) {
        boolean valid = NameCases.nameValid(token, NameCases.MAX_NAME_BYTES);
        Lease owner = locks.tryAcquire("owned", Duration.ofSeconds(30)).orElseThrow();
        try {
            Wire.during(raw(), tap, () -> {
                assertThat(locks.release("owned", token)).isEqualTo(ReleaseOutcome.NOT_OWNER);
                assertThat(locks.renew("owned", token, Duration.ofSeconds(5))).isEqualTo(RenewOutcome.NOT_OWNER);
            });
            assertThat(valid).as("accepted %s", Garbage.show(token)).isTrue();
            assertThat(raw().call("GET", "emq:lock:{owned}:lock")).as("the owner still holds it")
                    .isEqualTo(owner.token());
        } catch (Wire.Sent refused) {
            assertThat(valid).as("refused %s: %s", Garbage.show(token), refused.getCause()).isFalse();
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
}
