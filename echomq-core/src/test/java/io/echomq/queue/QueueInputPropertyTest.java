package io.echomq.queue;

import static org.assertj.core.api.Assertions.assertThat;

import io.echomq.Wire;
import io.echomq.server.CommandTap;
import io.echomq.testkit.Garbage;
import io.echomq.server.RawRedis;
import io.echomq.testkit.RedisExtension;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Bad input to the queue API, tried systematically against a real server: queue names, enqueue
 * options (priorities, delays, run-at times, attempts, backoff), payload sizes around the
 * documented limit, claim sizes and leases, and job ids. Each input either gets an
 * {@link IllegalArgumentException} naming the setting, with nothing sent (MONITOR proves it), or
 * the documented behaviour, with every key under {@code emq:{<q>}:}.
 */
@org.junit.jupiter.api.Tag("standalone-only")   // reads MONITOR of one server (docs/scaling.md)
@Timeout(120)
class QueueInputPropertyTest {
    private static final int CASES = 100;
    /** A small payload limit, so that sizes around it are cheap to send. */
    private static final int LIMIT = 4096;
    private static final long MAX_DELAY_MS = EnqueueOptions.MAX_DELAY.toMillis();

    @RegisterExtension
    static final RedisExtension REDIS = new RedisExtension();

    private static QueueClient client;
    private static CommandTap tap;

    @BeforeAll
    static void open() {
        client = QueueClient.builder().redisUrl(REDIS.url()).maxPayloadBytes(LIMIT).build();
        tap = REDIS.raw().monitor();
    }

    @AfterAll
    static void close() {
        tap.close();
        client.close();
    }

    @BeforeEach
    void flush() {
        REDIS.flushAll();
    }

    static Stream<String> names() {
        return Garbage.cases(CASES, Garbage::string);
    }

    static Stream<Arguments> options() {
        long now = System.currentTimeMillis();
        return Garbage.cases(CASES, g -> Arguments.of(
                (int) g.around(-1000, 1000, 0, Integer.MIN_VALUE, Integer.MAX_VALUE),
                (int) g.around(1, 1000, 0, Integer.MIN_VALUE),
                g.around(0, 1, MAX_DELAY_MS, -1),
                g.chance(0.3) ? g.around(0, now, now + MAX_DELAY_MS - 60_000, now + MAX_DELAY_MS + 60_000, -1) : null,
                g.around(0, 1, MAX_DELAY_MS),
                g.around(0, 1, 2, MAX_DELAY_MS)));
    }

    static Stream<Integer> sizes() {
        return Garbage.cases(CASES, g -> (int) Math.min(Math.max(0, g.around(0, 1, LIMIT - 1, LIMIT, LIMIT + 1)),
                2L * LIMIT));
    }

    static Stream<Arguments> claims() {
        long minLease = Queue.MIN_LEASE.toMillis();
        long maxLease = Queue.MAX_LEASE.toMillis();
        return Garbage.cases(CASES, g -> Arguments.of((int) g.around(0, 1, Queue.MAX_CLAIM),
                g.around(0, minLease, maxLease)));
    }

    @ParameterizedTest(name = "{index}")
    @MethodSource("names")
    void aQueueNameGetsAClearErrorOrKeysUnderItsOwnPrefix(String name) {
        String shown = Garbage.show(name);
        try {
            Wire.during(raw(), tap, () -> client.queue(name).enqueue("x"));
        } catch (Wire.Sent refused) {
            assertThat(refused.getCause()).as(shown).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("queue name");
            assertThat(refused.commands()).as("nothing sent for %s", shown).isEmpty();
            return;
        }
        @SuppressWarnings("unchecked")
        List<String> keys = (List<String>) raw().call("KEYS", "*");
        assertThat(keys).as("keys of %s", shown).isNotEmpty()
                .allSatisfy(k -> assertThat(k).startsWith("emq:{" + name + "}:"));
        assertThat(client.queue(name).stats().pending()).isEqualTo(1);
    }

    @ParameterizedTest(name = "{index}: priority {0}, attempts {1}, delay {2}, runAt {3}, backoff {4}/{5}")
    @MethodSource("options")
    void optionsGetAClearErrorOrAreStoredAsGiven(int priority, int maxAttempts, long delayMs, Long runAtMs,
                                                 long backoffMs, long capMs) {
        Queue q = client.queue("opts");
        String[] id = new String[1];
        try {
            Wire.during(raw(), tap, () -> {
                EnqueueOptions o = EnqueueOptions.defaults().withPriority(priority).withMaxAttempts(maxAttempts)
                        .withDelay(Duration.ofMillis(delayMs))
                        .withBackoff(Duration.ofMillis(backoffMs), Duration.ofMillis(capMs));
                if (runAtMs != null) {
                    o = o.withRunAt(Instant.ofEpochMilli(runAtMs));
                }
                id[0] = q.enqueue("p".getBytes(StandardCharsets.UTF_8), o).id();
            });
        } catch (Wire.Sent refused) {
            assertThat(refused.getCause()).isInstanceOf(IllegalArgumentException.class)
                    .message().containsAnyOf("priority", "maxAttempts", "delay", "runAt", "backoff");
            assertThat(refused.commands()).isEmpty();
            boolean valid = priority >= -1000 && priority <= 1000 && maxAttempts >= 1 && maxAttempts <= 1000
                    && delayMs >= 0 && delayMs <= MAX_DELAY_MS && backoffMs >= 1 && backoffMs <= MAX_DELAY_MS
                    && capMs >= backoffMs && capMs <= MAX_DELAY_MS
                    && (runAtMs == null || runAtMs >= 0 && runAtMs <= System.currentTimeMillis() + MAX_DELAY_MS);
            assertThat(valid).as("refused only out of range: %s", refused.getCause().getMessage()).isFalse();
            return;
        }
        JobInfo info = q.inspect(id[0]).orElseThrow();
        assertThat(info.fields()).containsKey("payload");
        assertThat(new String(info.fields().get("priority"), StandardCharsets.UTF_8))
                .isEqualTo(Integer.toString(priority));
        assertThat(new String(info.fields().get("max_attempts"), StandardCharsets.UTF_8))
                .isEqualTo(Integer.toString(maxAttempts));
        QueueStats s = q.stats();
        assertThat(s.pending() + s.delayed()).isEqualTo(1);
    }

    @ParameterizedTest(name = "{index}: {0} bytes")
    @MethodSource("sizes")
    void aPayloadOverTheLimitIsRefusedWholeAndOneWithinItRoundTrips(int size) {
        Queue q = client.queue("sizes");
        byte[] payload = new Garbage(size).bytes(size);
        try {
            Wire.during(raw(), tap, () -> q.enqueueAll(List.of(JobRequest.of("fine"),
                    new JobRequest(payload, EnqueueOptions.defaults()))));
        } catch (Wire.Sent refused) {
            assertThat(size).isGreaterThan(LIMIT);
            assertThat(refused.getCause()).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("payload").hasMessageContaining(Integer.toString(LIMIT));
            assertThat(refused.commands()).as("not even the fine job was sent").isEmpty();
            return;
        }
        assertThat(size).isLessThanOrEqualTo(LIMIT);
        List<Job> jobs = q.claim(2, Duration.ofSeconds(30));
        assertThat(jobs).hasSize(2);
        assertThat(jobs.get(1).payload()).isEqualTo(payload);
    }

    @ParameterizedTest(name = "{index}: max {0}, lease {1} ms")
    @MethodSource("claims")
    void claimArgumentsGetAClearErrorOrAClaim(int max, long leaseMs) {
        Queue q = client.queue("claims");
        try {
            Wire.during(raw(), tap, () -> q.claim(max, Duration.ofMillis(leaseMs)));
        } catch (Wire.Sent refused) {
            assertThat(refused.getCause()).isInstanceOf(IllegalArgumentException.class)
                    .message().containsAnyOf("max", "lease");
            assertThat(refused.commands()).isEmpty();
            assertThat(max >= 1 && max <= Queue.MAX_CLAIM && leaseMs >= Queue.MIN_LEASE.toMillis()
                    && leaseMs <= Queue.MAX_LEASE.toMillis()).isFalse();
        }
    }

    static Stream<Arguments> workerSettings() {
        return Garbage.cases(CASES, g -> Arguments.of((int) g.around(0, 1, Worker.MAX_CONCURRENCY),
                g.around(0, 19, 20, 86_400_000), g.around(-1, 0, 86_400_000), g.around(0, 9, 10, 3_600_000),
                g.around(0, 9, 10, 3_600_000)));
    }

    @ParameterizedTest(name = "{index}: concurrency {0}, lease {1}, grace {2}, maintenance {3}, idle poll {4}")
    @MethodSource("workerSettings")
    void workerSettingsGetAClearErrorNamingTheSettingOrAreTaken(int concurrency, long leaseMs, long graceMs,
                                                                long maintenanceMs, long idlePollMs) {
        Worker.Builder b = client.worker("settings", job -> { });
        check(() -> b.concurrency(concurrency), concurrency >= 1 && concurrency <= Worker.MAX_CONCURRENCY,
                "concurrency");
        check(() -> b.lease(Duration.ofMillis(leaseMs)), leaseMs >= 20 && leaseMs <= 86_400_000, "lease");
        check(() -> b.shutdownGrace(Duration.ofMillis(graceMs)), graceMs >= 0, "shutdownGrace");
        check(() -> b.maintenanceInterval(Duration.ofMillis(maintenanceMs)),
                maintenanceMs >= 10 && maintenanceMs <= 3_600_000, "maintenanceInterval");
        check(() -> b.idlePoll(Duration.ofMillis(idlePollMs)), idlePollMs >= 10 && idlePollMs <= 3_600_000,
                "idlePoll");
    }

    private static void check(Runnable setting, boolean valid, String name) {
        try {
            setting.run();
            assertThat(valid).as("%s accepted", name).isTrue();
        } catch (IllegalArgumentException e) {
            assertThat(valid).as("%s refused: %s", name, e.getMessage()).isFalse();
            assertThat(e.getMessage()).contains(name);
        }
    }

    @ParameterizedTest(name = "{index}")
    @MethodSource("names")
    void aJobIdGetsAClearErrorOrTouchesOnlyItsOwnJob(String id) {
        Queue q = client.queue("ids");
        String held = q.enqueue("held");
        q.claim(Duration.ofSeconds(30)).orElseThrow();
        String jobKey = "emq:{ids}:job:" + held;
        if (id.equals(held)) {
            return;
        }
        try {
            Wire.during(raw(), tap, () -> {
                assertThat(q.remove(id, true)).isEqualTo(RemoveOutcome.MISSING);
                assertThat(q.inspect(id)).isEmpty();
                assertThat(q.purgeDead(List.of(id))).isZero();
                assertThat(q.redrive(List.of(id))).isZero();
            });
        } catch (Wire.Sent refused) {
            assertThat(refused.getCause()).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("job id");
            assertThat(refused.commands()).isEmpty();
        }
        assertThat(raw().call("TYPE", jobKey)).isEqualTo("hash");
        assertThat(raw().call("EXISTS", jobKey + ":lock")).as("the held job's lock subkey").isEqualTo(1L);
    }

    private static RawRedis raw() {
        return REDIS.raw();
    }
}
