package io.echomq.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Delayed and scheduled jobs: invisible until due on the server clock, then promoted to the back of their band. */
@Timeout(60)
class DelayTest extends SemanticsTestBase {

    private String enqueue(String payload, EnqueueOptions options) {
        return queue.enqueue(payload.getBytes(StandardCharsets.UTF_8), options).id();
    }

    /** Claims until a job comes, checking on every empty claim that its due time had not come. */
    private Job claimOnceDue(String id) {
        AtomicReference<Job> got = new AtomicReference<>();
        await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(10)).until(() -> {
            Long due = score(DELAYED, id);
            long before = serverMillis();
            Optional<Job> job = queue.claim(LONG_LEASE);
            if (job.isEmpty()) {
                assertThat(due).as("due job %s was not claimed", id).isNotNull();
                assertThat(before).as("due job %s was not claimed", id).isLessThan(due);
                return false;
            }
            assertThat(serverMillis()).as("claimed before due").isGreaterThanOrEqualTo(due == null ? 0 : due);
            got.set(job.get());
            return true;
        });
        return got.get();
    }

    @Test
    void delayedJobWaitsInDelayedUntilDueThenAClaimPromotesIt() {
        long t0 = serverMillis();
        String id = enqueue("later", EnqueueOptions.defaults().withDelay(Duration.ofMillis(300)));
        long t1 = serverMillis();

        assertThat(field(id, "state")).isEqualTo("delayed");
        assertThat(score(DELAYED, id)).isBetween(t0 + 300, t1 + 300);
        assertThat(pendingCount()).isZero();
        assertThat(queue.stats().delayed()).isEqualTo(1);

        Job job = claimOnceDue(id);
        assertThat(job.id()).isEqualTo(id);
        assertThat(job.payloadUtf8()).isEqualTo("later");
        assertThat(job.attempt()).isEqualTo(1);
        assertThat(card(DELAYED)).isZero();
        assertThat(field(id, "state")).isEqualTo("active");
    }

    @Test
    void runAtJobIsDueAtItsInstantOnTheServerClock() {
        Instant runAt = Instant.ofEpochMilli(serverMillis() + 400);
        String id = enqueue("scheduled", EnqueueOptions.defaults().withRunAt(runAt));

        assertThat(field(id, "state")).isEqualTo("delayed");
        assertThat(score(DELAYED, id)).isEqualTo(runAt.toEpochMilli());

        Job job = claimOnceDue(id);
        assertThat(job.id()).isEqualTo(id);
    }

    @Test
    void jobsThatAreNotDueAreNeitherClaimedNorPromoted() {
        String later = enqueue("later", EnqueueOptions.defaults().withDelay(Duration.ofHours(1)));
        String scheduled = enqueue("scheduled",
                EnqueueOptions.defaults().withRunAt(Instant.ofEpochMilli(serverMillis() + 3_600_000)));
        Map<String, Object> before = snapshot();
        assertThat(queue.claim(10, LONG_LEASE)).isEmpty();
        assertThat(queue.promote(10)).isZero();
        assertThat(snapshot()).isEqualTo(before);
        assertThat(members(DELAYED)).containsExactly(later, scheduled);
        assertThat(field(scheduled, "state")).isEqualTo("delayed");
    }

    @Test
    void runAtInThePastAndZeroDelayArePendingAtOnce() {
        String past = enqueue("past", EnqueueOptions.defaults().withRunAt(Instant.ofEpochMilli(serverMillis() - 60_000)));
        String epoch = enqueue("epoch", EnqueueOptions.defaults().withRunAt(Instant.EPOCH));
        String zero = enqueue("zero", EnqueueOptions.defaults().withDelay(Duration.ZERO));

        assertThat(card(DELAYED)).isZero();
        assertThat(pendingIds()).containsExactly(past, epoch, zero);
        assertThat(stateOf(past)).isEqualTo("pending");
        assertThat(queue.claim(3, LONG_LEASE)).extracting(Job::id).containsExactly(past, epoch, zero);
    }

    @Test
    void runAtReplacesAnEarlierDelay() {
        Instant runAt = Instant.ofEpochMilli(serverMillis() + 3_600_000);
        EnqueueOptions options = EnqueueOptions.defaults().withDelay(Duration.ofMillis(1)).withRunAt(runAt);
        assertThat(options.delayMillis()).isZero();
        String id = enqueue("x", options);
        assertThat(score(DELAYED, id)).isEqualTo(runAt.toEpochMilli());
    }

    @Test
    void promoteIsBoundedAndCountsWhatItMoved() {
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            ids.add(enqueue("d" + i, EnqueueOptions.defaults().withDelay(Duration.ofMillis(50))));
        }
        String farFuture = enqueue("far", EnqueueOptions.defaults().withDelay(Duration.ofHours(1)));
        awaitServerTimePast(ids.stream().mapToLong(id -> score(DELAYED, id)).max().orElseThrow());

        assertThat(queue.promote(2)).isEqualTo(2);
        assertThat(pendingCount()).isEqualTo(2);
        assertThat(queue.promote(2)).isEqualTo(2);
        assertThat(queue.promote(10)).isEqualTo(1);
        assertThat(queue.promote(10)).isZero();

        assertThat(members(DELAYED)).containsExactly(farFuture);
        assertThat(pendingIds()).containsExactlyInAnyOrderElementsOf(ids);
        ids.forEach(id -> assertThat(field(id, "state")).isEqualTo("pending"));
        assertThat(card(ACTIVE)).as("promote claims nothing").isZero();
    }

    @Test
    void aPromotedJobJoinsTheBackOfItsPriorityBand() {
        String delayedHigh = enqueue("delayed-high",
                EnqueueOptions.defaults().withPriority(5).withDelay(Duration.ofMillis(50)));
        String delayedPlain = enqueue("delayed-plain", EnqueueOptions.defaults().withDelay(Duration.ofMillis(50)));
        awaitServerTimePast(Math.max(score(DELAYED, delayedHigh), score(DELAYED, delayedPlain)));
        // enqueued after the delayed jobs, and still ahead of them in their bands
        String plain = enqueue("plain", EnqueueOptions.defaults());
        String high = enqueue("high", EnqueueOptions.defaults().withPriority(5));
        String low = enqueue("low", EnqueueOptions.defaults().withPriority(-1));

        // one claim promotes the due jobs, then pops in order
        List<Job> jobs = queue.claim(10, LONG_LEASE);
        assertThat(jobs).extracting(Job::payloadUtf8)
                .containsExactly("high", "delayed-high", "plain", "delayed-plain", "low");
        assertThat(jobs).extracting(Job::id).containsExactly(high, delayedHigh, plain, delayedPlain, low);
    }

    @Test
    void promotedJobScoresUseAFreshSequenceNumber() {
        String delayed = enqueue("d", EnqueueOptions.defaults().withPriority(2).withDelay(Duration.ofMillis(30)));
        awaitServerTimePast(score(DELAYED, delayed));
        assertThat(queue.promote(1)).isEqualTo(1);
        long seq = Long.parseLong(get(P + "seq").toString());
        assertThat(seq).isEqualTo(2);
        assertThat(score(PENDING, delayed)).isEqualTo(seq - 2 * (1L << 42));
    }
}
