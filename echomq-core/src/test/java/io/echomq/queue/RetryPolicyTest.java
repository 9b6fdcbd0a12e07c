package io.echomq.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** A worker's retry policy: each classification, its delays on the server clock, and its precedence. */
@Timeout(60)
class RetryPolicyTest extends SemanticsTestBase {
    private static final Duration WAIT = Duration.ofSeconds(15);

    private static final RetryPolicy POLICY = RetryPolicy.builder()
            .on(IllegalArgumentException.class, RetryAction.noRetry())
            .on(SocketTimeoutException.class, RetryAction.retryWithBackoff(Duration.ofSeconds(100), Duration.ofMinutes(10)))
            .on(IOException.class, RetryAction.retryAfter(Duration.ofSeconds(30)))
            .when(e -> String.valueOf(e.getMessage()).contains("rate limited"), RetryAction.retryAfter(Duration.ofSeconds(90)))
            .build();

    private String enqueue(String payload, EnqueueOptions options) {
        return queue.enqueue(payload.getBytes(StandardCharsets.UTF_8), options).id();
    }

    private Job claim(String id) {
        Job job = queue.claim(LONG_LEASE).orElseThrow();
        assertThat(job.id()).isEqualTo(id);
        return job;
    }

    /** Fails a fresh job with {@code error} under {@link #POLICY}; returns {t0, t1, due} on the server clock. */
    private long[] failWith(Throwable error, EnqueueOptions options, SettleOutcome expected) {
        String id = enqueue("x", options);
        Job job = claim(id);
        long t0 = serverMillis();
        assertThat(job.fail(error, POLICY)).isEqualTo(expected);
        long t1 = serverMillis();
        return new long[] {t0, t1, expected == SettleOutcome.RETRYING ? score(DELAYED, id) : -1, Long.parseLong(id)};
    }

    @Test
    void anExactDelayLandsInDelayedAtServerNowPlusIt() {
        long[] r = failWith(new IOException("disk"), EnqueueOptions.defaults(), SettleOutcome.RETRYING);
        assertThat(r[2]).isBetween(r[0] + 30_000, r[1] + 30_000);
        assertThat(hash(String.valueOf(r[3]))).containsEntry("state", "delayed")
                .hasEntrySatisfying("last_error", e -> assertThat(e).startsWith("java.io.IOException: disk"));
    }

    @Test
    void aSubclassMatchesItsTypesRuleAndTheFirstMatchWins() {
        // SocketTimeoutException is an IOException too, but its own rule comes first: backoff 100 s,
        // so the first retry waits 50..100 s, never the IOException rule's exact 30 s
        long[] r = failWith(new SocketTimeoutException("slow"), EnqueueOptions.defaults(), SettleOutcome.RETRYING);
        assertThat(r[2]).isBetween(r[0] + 50_000, r[1] + 100_000);
        // an UncheckedIOException is no IOException: no type rule, so the job's own 1 s backoff
        long[] u = failWith(new UncheckedIOException(new IOException("x")), EnqueueOptions.defaults(), SettleOutcome.RETRYING);
        assertThat(u[2]).isBetween(u[0] + 500, u[1] + 1_000);
    }

    @Test
    void aPerRuleBackoffReplacesTheJobsOwnAndGrowsWithSpentAttempts() {
        EnqueueOptions options = EnqueueOptions.defaults().withBackoff(Duration.ofMillis(1), Duration.ofMillis(2));
        String id = enqueue("x", options);
        Job first = claim(id);
        long t0 = serverMillis();
        assertThat(first.fail(new SocketTimeoutException("slow"), POLICY)).isEqualTo(SettleOutcome.RETRYING);
        long t1 = serverMillis();
        // the job's own backoff would wait at most 1 ms; the rule's waits 50..100 s
        assertThat(score(DELAYED, id)).isBetween(t0 + 50_000, t1 + 100_000);

        // second attempt: spent 2, so d = 200 s and the wait is 100..200 s
        makeDue(id);
        Job second = claim(id);
        assertThat(second.spentAttempts()).isEqualTo(2);
        long s0 = serverMillis();
        assertThat(second.fail(new SocketTimeoutException("slow"), POLICY)).isEqualTo(SettleOutcome.RETRYING);
        long s1 = serverMillis();
        assertThat(score(DELAYED, id)).isBetween(s0 + 100_000, s1 + 200_000);
    }

    @Test
    void aPredicateRuleMatches() {
        long[] r = failWith(new IllegalStateException("rate limited by upstream"), EnqueueOptions.defaults(),
                SettleOutcome.RETRYING);
        assertThat(r[2]).isBetween(r[0] + 90_000, r[1] + 90_000);
    }

    @Test
    void noRetryBeatsTheProducersMaxAttempts() {
        long[] r = failWith(new IllegalArgumentException("bad"), EnqueueOptions.defaults().withMaxAttempts(5),
                SettleOutcome.DEAD);
        String id = String.valueOf(r[3]);
        assertThat(hash(id)).containsEntry("state", "dead").containsEntry("attempts", "1")
                .containsEntry("dead_reason", "failed without retry on attempt 1");
    }

    @Test
    void retryAfterExceptionBeatsAMatchingRule() {
        // its message would match the 90 s predicate rule; the handler's own 2 s wins
        long[] r = failWith(new RetryAfterException(Duration.ofSeconds(2), "rate limited"), EnqueueOptions.defaults(),
                SettleOutcome.RETRYING);
        assertThat(r[2]).isBetween(r[0] + 2_000, r[1] + 2_000);
    }

    @Test
    void nonRetryableExceptionBeatsARuleSayingRetry() {
        RetryPolicy retryAll = RetryPolicy.builder().on(Exception.class, RetryAction.retryAfter(Duration.ofSeconds(5))).build();
        String id = enqueue("x", EnqueueOptions.defaults().withMaxAttempts(5));
        assertThat(claim(id).fail(new NonRetryableException("bad"), retryAll)).isEqualTo(SettleOutcome.DEAD);
        assertThat(field(id, "state")).isEqualTo("dead");
    }

    @Test
    void aPolicyNeverAddsAttemptsPastMaxAttempts() {
        String id = enqueue("x", EnqueueOptions.defaults().withMaxAttempts(1));
        assertThat(claim(id).fail(new IOException("disk"), POLICY)).isEqualTo(SettleOutcome.DEAD);
        assertThat(field(id, "dead_reason")).isEqualTo("failed on attempt 1 of 1");
        String id2 = enqueue("y", EnqueueOptions.defaults().withMaxAttempts(1));
        assertThat(claim(id2).fail(new RetryAfterException(Duration.ZERO, "again"), POLICY)).isEqualTo(SettleOutcome.DEAD);
    }

    @Test
    void aWorkerAppliesItsPolicy() {
        AtomicInteger calls = new AtomicInteger();
        String id = enqueue("x", EnqueueOptions.defaults().withMaxAttempts(5)
                .withBackoff(Duration.ofMillis(1), Duration.ofMillis(5)));
        try (Worker w = client.worker("q", job -> {
            calls.incrementAndGet();
            throw new IllegalArgumentException("permanent");
        }).retryPolicy(POLICY).shutdownGrace(Duration.ofSeconds(2)).start()) {
            await().atMost(WAIT).until(() -> "dead".equals(field(id, "state")));
            assertThat(calls.get()).isEqualTo(1);
            assertThat(w.counts().dead()).isEqualTo(1);
            assertThat(w.counts().retrying()).isZero();
        }
    }

    /** Runs fail-4 as a foreign client would, with {@code extra} ARGV after the six it always had. */
    private Object rawFail(Job job, String... extra) {
        java.util.List<String> args = new java.util.ArrayList<>(java.util.List.of("EVAL",
                io.echomq.internal.Scripts.FAIL.body(), "4", P + "active", DELAYED, DEAD, P + "stats", P,
                job.id(), String.valueOf(job.attempt()), "err", "1", "1"));
        args.addAll(java.util.List.of(extra));
        return raw().call(args.toArray(new String[0]));
    }

    @Test
    void aForeignCallerWithoutADelayGetsTheHashsBackoffAndADelayIsBounded() {
        // jitter 1: exactly the 10 s backoff of the hash, whether the delay is absent, empty or not a number
        EnqueueOptions tenSeconds = EnqueueOptions.defaults().withBackoff(Duration.ofSeconds(10), Duration.ofHours(1));
        for (String[] extra : new String[][] {{}, {""}, {"soon"}}) {
            String id = enqueue("x", tenSeconds);
            Job job = claim(id);
            long t0 = serverMillis();
            assertThat(rawFail(job, extra)).isEqualTo(java.util.List.of(2L, 10_000L));
            long t1 = serverMillis();
            assertThat(score(DELAYED, id)).isBetween(t0 + 10_000, t1 + 10_000);
        }
        String id = enqueue("y", tenSeconds);
        assertThat(rawFail(claim(id), "99999999999999")).isEqualTo(java.util.List.of(2L, 31_536_000_000L));
        String id2 = enqueue("z", tenSeconds);
        assertThat(rawFail(claim(id2), "-5")).isEqualTo(java.util.List.of(2L, 0L));
    }

    @Test
    void badInputIsRefusedAtBuildTimeNamingTheSetting() {
        assertThatThrownBy(() -> RetryAction.retryAfter(Duration.ofSeconds(-1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("retryAfter delay");
        assertThatThrownBy(() -> RetryAction.retryAfter(EnqueueOptions.MAX_DELAY.plusMillis(1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("retryAfter delay");
        assertThatThrownBy(() -> RetryAction.retryWithBackoff(Duration.ZERO, Duration.ofSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("retry backoff base");
        assertThatThrownBy(() -> RetryAction.retryWithBackoff(Duration.ofSeconds(2), Duration.ofSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("retry backoff cap");
        assertThatThrownBy(() -> new RetryAfterException(null, "x"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("RetryAfterException delay");
        assertThatThrownBy(() -> RetryPolicy.builder().on(null, RetryAction.retry()).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("rule 1: exception type");
        assertThatThrownBy(() -> RetryPolicy.builder().when(e -> true, null).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("rule 1: action");
        assertThatThrownBy(() -> RetryPolicy.builder().on(IOException.class, RetryAction.noRetry())
                .on(SocketTimeoutException.class, RetryAction.retry()).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("rule 2 for java.net.SocketTimeoutException can never match");
        assertThatThrownBy(() -> client.worker("q", job -> { }).retryPolicy(null))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("retryPolicy");
    }
}
