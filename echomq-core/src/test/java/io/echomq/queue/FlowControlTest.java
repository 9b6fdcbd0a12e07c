package io.echomq.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Flow control at the claim: the rate limit, a handler's back-off hold and the concurrency cap
 * lower what a claim takes, and the claim answers when to look again; settings are checked before
 * anything is written; a queue without them writes nothing more.
 */
@Timeout(60)
class FlowControlTest extends QueueTestBase {
    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final Duration WAIT = Duration.ofSeconds(10);

    private Claimed<Job> claim(int n) {
        return queue.partition().claimAsync(n, LEASE.toMillis()).join();
    }

    private void enqueue(int n) {
        for (int i = 0; i < n; i++) {
            queue.enqueue("j" + i);
        }
    }

    @Test
    void theRateLimitLowersTheClaimAndAnswersWhenTheWindowLetsOneIn() {
        enqueue(10);
        queue.flowControl().setRateLimit(3, Duration.ofMillis(400));
        assertThat(queue.flowControl().rateLimit()).contains(new RateLimit(3, Duration.ofMillis(400)));

        Claimed first = claim(10);
        assertThat(first.jobs()).hasSize(3);
        assertThat(first.nextDueMs()).as("the window is full: ms until its oldest claim leaves it").isBetween(1L, 400L);
        Claimed held = claim(10);
        assertThat(held.jobs()).as("nothing more in this window").isEmpty();
        assertThat(held.nextDueMs()).isBetween(1L, 400L);
        assertThat((Long) raw().call("ZCARD", "emq:{q}:rate")).isEqualTo(3L);
        assertThat((Long) raw().call("PTTL", "emq:{q}:rate")).as("the log expires with its window").isBetween(1L, 400L);

        await().atMost(WAIT).pollInterval(Duration.ofMillis(20)).until(() -> !claim(10).jobs().isEmpty());
        assertThat(queue.stats().active()).as("two windows, 3 each").isLessThanOrEqualTo(6);

        assertThat(queue.flowControl().clearRateLimit()).isTrue();
        assertThat(queue.flowControl().rateLimit()).isEmpty();
        long pending = queue.stats().pending();
        assertThat(claim(10).jobs()).as("no limit any more: every pending job").hasSize((int) pending);
    }

    @Test
    void aPartialWindowGivesWhatIsLeftThenTheWait() {
        enqueue(5);
        queue.flowControl().setRateLimit(4, Duration.ofSeconds(5));
        assertThat(claim(1).jobs()).hasSize(1);
        Claimed rest = claim(10);
        assertThat(rest.jobs()).as("4 per window, 1 taken").hasSize(3);
        assertThat(rest.nextDueMs()).as("held by the window, not by an empty queue").isBetween(1L, 5000L);
    }

    @Test
    void startedInWindowCountsTheClaimsTheRateLimitCountsNow() {
        assertThat(queue.flowControl().startedInWindow()).as("no rate limit").isZero();
        enqueue(5);
        queue.flowControl().setRateLimit(4, Duration.ofSeconds(5));
        assertThat(queue.flowControl().startedInWindow()).isZero();
        claim(3);
        assertThat(queue.flowControl().startedInWindow()).isEqualTo(3);
        claim(10);
        assertThat(queue.flowControl().startedInWindow()).as("the window is full").isEqualTo(4);
        queue.flowControl().setRateLimit(4, Duration.ofMillis(1));
        await().atMost(WAIT).pollInterval(Duration.ofMillis(5)).until(() -> queue.flowControl().startedInWindow() == 0);
    }

    @Test
    void theCapCountsActiveJobsAndAFreedPlaceIsClaimedAgain() {
        enqueue(6);
        queue.flowControl().setConcurrencyCap(2);
        assertThat(queue.flowControl().concurrencyCap()).hasValue(2);

        Claimed<Job> first = claim(6);
        assertThat(first.jobs()).hasSize(2);
        assertThat(first.capped()).as("next_due_ms -3: only a freed place helps").isTrue();
        assertThat(claim(6).jobs()).isEmpty();

        assertThat(first.jobs().get(0).complete()).isEqualTo(SettleOutcome.COMPLETED);
        assertThat(claim(6).jobs()).as("the completed job's place").hasSize(1);
        assertThat(first.jobs().get(1).returnLease()).isEqualTo(SettleOutcome.RETURNED);
        assertThat(claim(6).jobs()).as("the returned job's place").hasSize(1);
        assertThat(queue.stats().active()).isEqualTo(2);

        assertThat(queue.flowControl().clearConcurrencyCap()).isTrue();
        assertThat(queue.flowControl().concurrencyCap()).isEmpty();
        assertThat(claim(6).jobs()).as("the 3 left pending").hasSize(3);
    }

    @Test
    void aReapedLeaseFreesItsPlace() {
        enqueue(2);
        queue.flowControl().setConcurrencyCap(1);
        assertThat(queue.partition().claimAsync(5, 200).join().jobs()).hasSize(1);
        assertThat(claim(5).capped()).isTrue();
        await().atMost(WAIT).pollInterval(Duration.ofMillis(50)).until(() -> {
            queue.reap(100);
            return queue.stats().active() == 0;
        });
        assertThat(claim(5).jobs()).as("the reaped lease's place").hasSize(1);
    }

    @Test
    void aBackOffHoldReturnsTheJobUnspentAndHoldsEveryClaim() {
        enqueue(3);
        Queue other = client(b -> { }).queue("q");   // opened first: a cluster client takes a while to connect
        Job job = claim(1).jobs().get(0);
        long code = queue.partition().attempts().returnLease(job.granted(), 800);
        assertThat(code).isEqualTo(1L);
        assertThat(field(job.localId(), "spent")).as("the attempt was given back").isEqualTo("0");
        assertThat(field(job.localId(), "attempts")).as("the fence keeps rising").isEqualTo("1");
        assertThat(queue.flowControl().holdRemaining()).isBetween(Duration.ofMillis(1), Duration.ofMillis(800));

        Claimed<Job> held = other.partition().claimAsync(5, LEASE.toMillis()).join();
        assertThat(held.jobs()).as("another client is held too").isEmpty();
        assertThat(held.nextDueMs()).as("the ms left of the hold").isBetween(1L, 800L);

        await().atMost(WAIT).pollInterval(Duration.ofMillis(20)).until(() -> !claim(5).jobs().isEmpty());
        assertThat(queue.flowControl().holdRemaining()).isZero();
        assertThat(field(job.localId(), "state")).as("the job that backed off runs again").isEqualTo("active");
        assertThat(field(job.localId(), "attempts")).isEqualTo("2");
    }

    @Test
    void aQueueWithoutSettingsKeepsNoRateLog() {
        enqueue(3);
        Claimed c = claim(5);
        assertThat(c.jobs()).hasSize(3);
        assertThat(c.nextDueMs()).isEqualTo(-1);
        assertThat(raw().call("EXISTS", "emq:{q}:rate", "emq:{q}:flow")).isEqualTo(0L);
    }

    @Test
    void badSettingsAreRefusedBeforeAnythingIsWritten() {
        FlowControl f = queue.flowControl();
        assertThatThrownBy(() -> f.setRateLimit(0, Duration.ofSeconds(1))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("max must be in 1..");
        assertThatThrownBy(() -> f.setRateLimit(-5, Duration.ofSeconds(1))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> f.setRateLimit(5, Duration.ZERO)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("window must be positive");
        assertThatThrownBy(() -> f.setRateLimit(5, Duration.ofMillis(-1))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> f.setRateLimit(null)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> f.setConcurrencyCap(0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("concurrency cap must be in 1..");
        assertThatThrownBy(() -> f.setConcurrencyCap(-3)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new RateLimitedException(Duration.ZERO)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("back-off must be positive");
        assertThatThrownBy(() -> new RateLimitedException(Duration.ofSeconds(-1)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(raw().call("EXISTS", "emq:{q}:flow")).as("nothing written").isEqualTo(0L);
    }

    @Test
    void aMalformedSettingIsOff() {
        enqueue(3);
        raw().call("HSET", "emq:{q}:flow", "rate_max", "lots", "rate_window_ms", "1000", "cap", "-1");
        assertThat(queue.flowControl().rateLimit()).isEmpty();
        assertThat(queue.flowControl().concurrencyCap()).isEmpty();
        assertThat(claim(5).jobs()).hasSize(3);
    }

    @Test
    void aShardedQueueKeepsTheSettingInEveryPartition() {
        ShardedQueue sharded = client.shardedQueue("s", 3);
        sharded.flowControl().setConcurrencyCap(1);
        sharded.flowControl().setRateLimit(7, Duration.ofSeconds(2));
        for (int i = 0; i < 3; i++) {
            List<?> f = (List<?>) raw().call("HMGET", "emq:{s#" + i + "}:flow", "cap", "rate_max", "rate_window_ms");
            assertThat(f).extracting(o -> o instanceof byte[] b ? new String(b) : String.valueOf(o)).containsExactly("1", "7", "2000");
        }
        for (int i = 0; i < 6; i++) {
            sharded.enqueue("x" + i);   // round-robin: two per partition
        }
        List<Job> got = sharded.claim(6, LEASE);
        assertThat(got).as("a cap of 1 per partition").hasSize(3);
        assertThat(sharded.flowControl().clearConcurrencyCap()).isTrue();
        assertThat(raw().call("HEXISTS", "emq:{s#2}:flow", "cap")).isEqualTo(0L);
    }
}
