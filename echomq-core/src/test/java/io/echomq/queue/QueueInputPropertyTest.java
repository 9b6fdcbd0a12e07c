package io.echomq.queue;

import static org.assertj.core.api.Assertions.assertThat;

import io.echomq.testkit.NameCases;
import io.echomq.Wire;
import io.echomq.server.CommandTap;
import io.echomq.testkit.Garbage;
import io.echomq.server.RawRedis;
import io.echomq.testkit.RedisExtension;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.stream.IntStream;
import java.util.stream.LongStream;
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
 * Input to the queue API, tried systematically against a real server: queue names, enqueue options (priorities,
 * delays, run-at times, attempts, backoff), payload sizes around the documented limit, claim sizes and leases,
 * worker settings and job ids. Each input is judged first by an oracle that restates the documented ranges and
 * rules ({@link NameCases} for names): an invalid one must get an {@link IllegalArgumentException} naming the
 * setting, with nothing sent (MONITOR proves it); a valid one must get the documented behaviour. The cases are the
 * boundaries of each range listed one by one (every other setting valid), then draws of which half are valid.
 */
@org.junit.jupiter.api.Tag("standalone-only")   // reads MONITOR of one server (docs/scaling.md)
@Timeout(120)
class QueueInputPropertyTest {
    /** Generated cases per suite, besides the listed boundaries. */
    private static final int CASES = 40;
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
        return NameCases.stratified(CASES, NameCases.MAX_QUEUE_BYTES).stream();
    }

    static Stream<String> ids() {
        return NameCases.stratified(CASES, NameCases.MAX_NAME_BYTES).stream();
    }

    /** One enqueue option set. */
    record Options(int priority, int maxAttempts, long delayMs, Long runAtMs, long backoffMs, long capMs) {
        /** The documented ranges, restated. */
        boolean valid() {
            return priority >= -1000 && priority <= 1000 && maxAttempts >= 1 && maxAttempts <= 1000
                    && delayMs >= 0 && delayMs <= MAX_DELAY_MS && backoffMs >= 1 && backoffMs <= MAX_DELAY_MS
                    && capMs >= backoffMs && capMs <= MAX_DELAY_MS
                    && (runAtMs == null || runAtMs >= 0 && runAtMs <= System.currentTimeMillis() + MAX_DELAY_MS);
        }
    }

    /** Each boundary of each option with the others valid, then draws: half all-valid, half with one bad option. */
    static Stream<Options> options() {
        long now = System.currentTimeMillis();
        Options ok = new Options(0, 3, 0, null, 1_000, 60_000);
        Set<Options> out = new LinkedHashSet<>();
        for (int p : new int[] {Integer.MIN_VALUE, -1001, -1000, 0, 1000, 1001, Integer.MAX_VALUE}) {
            out.add(new Options(p, 3, 0, null, 1_000, 60_000));
        }
        for (int a : new int[] {Integer.MIN_VALUE, -1, 0, 1, 1000, 1001}) {
            out.add(new Options(0, a, 0, null, 1_000, 60_000));
        }
        for (long d : new long[] {Long.MIN_VALUE / 2, -1, 0, 1, MAX_DELAY_MS, MAX_DELAY_MS + 1}) {
            out.add(new Options(0, 3, d, null, 1_000, 60_000));
        }
        for (long r : new long[] {-1, 0, now, now + MAX_DELAY_MS - 60_000, now + MAX_DELAY_MS + 60_000}) {
            out.add(new Options(0, 3, 0, r, 1_000, 60_000));
        }
        for (long[] b : new long[][] {{0, 0}, {0, 1}, {1, 1}, {1, MAX_DELAY_MS}, {MAX_DELAY_MS, MAX_DELAY_MS},
            {MAX_DELAY_MS + 1, MAX_DELAY_MS + 1}, {2, 1}}) {
            out.add(new Options(0, 3, 0, null, b[0], b[1]));
        }
        out.add(ok);
        SplittableRandom r = new SplittableRandom(Garbage.seed());
        int listed = out.size();
        while (out.size() < listed + CASES) {
            long backoff = r.nextLong(1, MAX_DELAY_MS + 1);
            Options valid = new Options(r.nextInt(-1000, 1001), r.nextInt(1, 1001), r.nextLong(0, MAX_DELAY_MS + 1),
                    r.nextBoolean() ? null : r.nextLong(0, now + MAX_DELAY_MS - 60_000), backoff,
                    r.nextLong(backoff, MAX_DELAY_MS + 1));
            if (out.size() % 2 == 0) {
                out.add(valid);
            } else {
                out.add(switch (r.nextInt(5)) {
                    case 0 -> new Options(r.nextBoolean() ? r.nextInt(Integer.MIN_VALUE, -1000) : r.nextInt(1001,
                            Integer.MAX_VALUE), valid.maxAttempts(), valid.delayMs(), valid.runAtMs(),
                            valid.backoffMs(), valid.capMs());
                    case 1 -> new Options(valid.priority(), r.nextBoolean() ? r.nextInt(Integer.MIN_VALUE, 1)
                            : r.nextInt(1001, Integer.MAX_VALUE), valid.delayMs(), valid.runAtMs(),
                            valid.backoffMs(), valid.capMs());
                    case 2 -> new Options(valid.priority(), valid.maxAttempts(), r.nextBoolean()
                            ? -r.nextLong(1, Long.MAX_VALUE / 2) : r.nextLong(MAX_DELAY_MS + 1, Long.MAX_VALUE / 2),
                            valid.runAtMs(), valid.backoffMs(), valid.capMs());
                    case 3 -> new Options(valid.priority(), valid.maxAttempts(), valid.delayMs(),
                            now + MAX_DELAY_MS + r.nextLong(60_000, Long.MAX_VALUE / 4), valid.backoffMs(),
                            valid.capMs());
                    default -> new Options(valid.priority(), valid.maxAttempts(), valid.delayMs(), valid.runAtMs(),
                            backoff, r.nextLong(0, backoff));
                });
            }
        }
        return out.stream();
    }

    static Stream<Integer> sizes() {
        Set<Integer> out = new LinkedHashSet<>(List.of(0, 1, LIMIT - 1, LIMIT, LIMIT + 1, 2 * LIMIT));
        SplittableRandom r = new SplittableRandom(Garbage.seed());
        while (out.size() < 6 + 10) {
            out.add(out.size() % 2 == 0 ? r.nextInt(2, LIMIT - 1) : r.nextInt(LIMIT + 2, 2 * LIMIT));
        }
        return out.stream();
    }

    /** Every pair of the claim size's and the lease's boundaries. */
    static Stream<Arguments> claims() {
        long minLease = Queue.MIN_LEASE.toMillis();
        long maxLease = Queue.MAX_LEASE.toMillis();
        return IntStream.of(-1, 0, 1, 7, Queue.MAX_CLAIM, Queue.MAX_CLAIM + 1).boxed()
                .flatMap(max -> LongStream.of(-1, 0, minLease - 1, minLease, 30_000, maxLease, maxLease + 1)
                        .mapToObj(lease -> Arguments.of(max, lease)));
    }

    @ParameterizedTest(name = "{index}")
    @MethodSource("names")
    void aQueueNameIsRefusedIfAndOnlyIfInvalidElseKeysUnderItsOwnPrefix(String name) {
        String shown = Garbage.show(name);
        try {
            Wire.during(raw(), tap, () -> client.queue(name).enqueue("x"));
            assertThat(NameCases.userQueueValid(name)).as("accepted %s", shown).isTrue();
        } catch (Wire.Sent refused) {
            assertThat(NameCases.userQueueValid(name)).as("refused %s: %s", shown, refused.getCause()).isFalse();
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

    @ParameterizedTest(name = "{index}: {0}")
    @MethodSource("options")
    void optionsAreRefusedIfAndOnlyIfOutOfRangeElseStoredAsGiven(Options o) {
        Queue q = client.queue("opts");
        String[] id = new String[1];
        try {
            Wire.during(raw(), tap, () -> {
                EnqueueOptions e = EnqueueOptions.defaults().withPriority(o.priority())
                        .withMaxAttempts(o.maxAttempts()).withDelay(Duration.ofMillis(o.delayMs()))
                        .withBackoff(Duration.ofMillis(o.backoffMs()), Duration.ofMillis(o.capMs()));
                if (o.runAtMs() != null) {
                    e = e.withRunAt(Instant.ofEpochMilli(o.runAtMs()));
                }
                id[0] = q.enqueue("p".getBytes(StandardCharsets.UTF_8), e).id();
            });
        } catch (Wire.Sent refused) {
            assertThat(o.valid()).as("refused %s: %s", o, refused.getCause()).isFalse();
            assertThat(refused.getCause()).isInstanceOf(IllegalArgumentException.class)
                    .message().containsAnyOf("priority", "maxAttempts", "delay", "runAt", "backoff");
            assertThat(refused.commands()).isEmpty();
            return;
        }
        assertThat(o.valid()).as("accepted %s", o).isTrue();
        JobInfo info = q.inspect(id[0]).orElseThrow();
        // a field left out of the hash holds its default: priority 0, 3 attempts
        assertThat(field(info, "priority", "0")).isEqualTo(Integer.toString(o.priority()));
        assertThat(field(info, "max_attempts", "3")).isEqualTo(Integer.toString(o.maxAttempts()));
        QueueStats s = q.stats();
        if (o.runAtMs() == null) {
            assertThat(o.delayMs() == 0 ? s.pending() : s.delayed()).as("where a job with delay %d ms waits",
                    o.delayMs()).isEqualTo(1);
        }
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
    void claimArgumentsAreRefusedIfAndOnlyIfOutOfRangeElseClaimWithThatLease(int max, long leaseMs) {
        boolean valid = max >= 1 && max <= Queue.MAX_CLAIM && leaseMs >= Queue.MIN_LEASE.toMillis()
                && leaseMs <= Queue.MAX_LEASE.toMillis();
        Queue q = client.queue("claims");
        q.enqueueAll(List.of(JobRequest.of("a"), JobRequest.of("b")));
        List<Job> claimed;
        try {
            claimed = q.claim(max, Duration.ofMillis(leaseMs));
        } catch (IllegalArgumentException refused) {
            assertThat(valid).as("refused max %d, lease %d: %s", max, leaseMs, refused.getMessage()).isFalse();
            assertThat(refused.getMessage()).containsAnyOf("max", "lease");
            Wire.Sent none = catchSent(() -> q.claim(max, Duration.ofMillis(leaseMs)));
            assertThat(none.commands()).isEmpty();
            return;
        }
        assertThat(valid).as("accepted max %d, lease %d", max, leaseMs).isTrue();
        assertThat(claimed).hasSize(Math.min(max, 2));
        long now = ((List<?>) raw().call("TIME")).stream().findFirst().map(o -> Long.parseLong((String) o) * 1000)
                .orElseThrow();
        Double deadline = Double.valueOf((String) raw().call("ZSCORE", "emq:{claims}:active", claimed.get(0).id()));
        assertThat(deadline.longValue() - now).as("lease on the server for %d ms", leaseMs)
                .isBetween(leaseMs - 2_000, leaseMs + 1_000);
    }

    private static String field(JobInfo info, String name, String absent) {
        byte[] v = info.fields().get(name);
        return v == null ? absent : new String(v, StandardCharsets.UTF_8);
    }

    private static Wire.Sent catchSent(Runnable call) {
        try {
            Wire.during(raw(), tap, call);
        } catch (Wire.Sent sent) {
            return sent;
        }
        throw new AssertionError("expected a refusal");
    }

    /** Each boundary of each worker setting, the others valid. */
    static Stream<Arguments> workerSettings() {
        List<Arguments> out = new java.util.ArrayList<>();
        for (int c : new int[] {-1, 0, 1, Worker.MAX_CONCURRENCY, Worker.MAX_CONCURRENCY + 1}) {
            out.add(Arguments.of(c, 30_000L, 0L, 1_000L, 1_000L));
        }
        for (long l : new long[] {-1, 0, 19, 20, 86_400_000, 86_400_001}) {
            out.add(Arguments.of(4, l, 0L, 1_000L, 1_000L));
        }
        for (long g : new long[] {-1, 0, 1, 86_400_000}) {
            out.add(Arguments.of(4, 30_000L, g, 1_000L, 1_000L));
        }
        for (long m : new long[] {-1, 9, 10, 3_600_000, 3_600_001}) {
            out.add(Arguments.of(4, 30_000L, 0L, m, 1_000L));
            out.add(Arguments.of(4, 30_000L, 0L, 1_000L, m));
        }
        return out.stream();
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
    @MethodSource("ids")
    void aJobIdIsRefusedIfAndOnlyIfInvalidElseTouchesOnlyItsOwnJob(String id) {
        Queue q = client.queue("ids");
        q.setLayout(QueueLayout.ZSET);   // the layout whose claims write the lock subkey
        String held = q.enqueue("held");
        q.claim(Duration.ofSeconds(30)).orElseThrow();
        String jobKey = "emq:{ids}:job:" + held;
        boolean valid = NameCases.jobIdValid(id) && !id.equals(held);
        try {
            Wire.during(raw(), tap, () -> {
                assertThat(q.remove(id, true)).isEqualTo(RemoveOutcome.MISSING);
                assertThat(q.inspect(id)).isEmpty();
                assertThat(q.purgeDead(List.of(id))).isZero();
                assertThat(q.redrive(List.of(id))).isZero();
            });
            assertThat(valid).as("accepted %s", Garbage.show(id)).isTrue();
        } catch (Wire.Sent refused) {
            assertThat(NameCases.jobIdValid(id)).as("refused %s: %s", Garbage.show(id), refused.getCause()).isFalse();
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
