package io.echomq.queue;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Retention: the done index and the dead set each kept within the queue's caps, by count and by
 * age, by the scripts that add to them; the settings stored with the queue win over a client's
 * own retainCompleted.
 */
@Timeout(60)
class RetentionTest extends SemanticsTestBase {
    static final String DONE = P + "done";

    private List<Job> claimed(int n, int maxAttempts) {
        List<JobRequest> reqs = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            reqs.add(new JobRequest(("j" + i).getBytes(StandardCharsets.UTF_8),
                    EnqueueOptions.defaults().withMaxAttempts(maxAttempts)));
        }
        queue.enqueueAll(reqs);
        return queue.claim(n, LONG_LEASE);
    }

    @Test
    void withNoSettingsAQueueKeepsNoCompletedJobUntilSettingsAreStored() {
        assertThat(queue.retention()).isEmpty();
        List<Job> jobs = claimed(2, 3);
        jobs.get(0).complete();
        assertThat(members(DONE)).as("no settings, no index: a ZADD per job is not paid").isEmpty();
        assertThat(exists(jobKey(jobs.get(0).id()))).as("the default keeps no completed hash").isFalse();

        queue.setRetention(QueueRetention.defaults());
        jobs.get(1).complete();
        assertThat(members(DONE)).containsExactly(jobs.get(1).id());
        assertThat(field(jobs.get(1).id(), "state")).as("kept for the stored age").isEqualTo("done");
        assertThat((Long) raw().call("PTTL", jobKey(jobs.get(1).id())))
                .isBetween(QueueRetention.DEFAULT_DONE_AGE.toMillis() - 60_000, QueueRetention.DEFAULT_DONE_AGE.toMillis());
    }

    @Test
    void aClientsOwnRetainCompletedKeepsTheHashWithNoIndex() {
        Queue kept = client(b -> b.retainCompleted(Duration.ofMinutes(5))).queue("q");
        kept.enqueue("x");
        Job job = kept.claim(LONG_LEASE).orElseThrow();
        job.complete();
        assertThat(field(job.id(), "state")).isEqualTo("done");
        assertThat((Long) raw().call("PTTL", jobKey(job.id()))).isBetween(240_000L, 300_000L);
        assertThat(members(DONE)).as("no settings stored: no index").isEmpty();
    }

    @Test
    void settingsRoundTripThroughRedis() {
        QueueRetention r = QueueRetention.defaults().withDoneMax(5).withDoneAge(Duration.ofMinutes(3))
                .withDeadMax(7).withDeadAge(Duration.ofDays(2));
        queue.setRetention(r);
        assertThat(client(b -> { }).queue("q").retention()).contains(r);
        assertThat(hashOf(P + "retention")).containsEntry("done_max", "5").containsEntry("dead_age_ms", "172800000");
    }

    @Test
    void theDoneIndexKeepsTheLastNAndDropsTheHashesOfTheRest() {
        queue.setRetention(QueueRetention.defaults().withDoneMax(5));
        List<Job> jobs = claimed(20, 3);
        java.util.Map<String, Long> at = new java.util.HashMap<>();
        for (Job j : jobs) {
            assertThat(j.complete()).isEqualTo(SettleOutcome.COMPLETED);
            at.put(j.id(), score(DONE, j.id()));
            awaitServerTimePast(at.get(j.id()));            // one millisecond each: the order is the completion order
            assertThat(card(DONE)).isLessThanOrEqualTo(5);
        }
        List<String> order = inSetOrder(at);
        assertThat(members(DONE)).containsExactlyElementsOf(order.subList(15, 20));
        assertThat(exists(jobKey(order.get(0)))).as("a trimmed job's hash").isFalse();
        assertThat(exists(jobKey(order.get(19)))).isTrue();
        assertThat(queue.list(JobState.DONE, 100, null).jobs()).extracting(JobSummary::id)
                .containsExactlyElementsOf(order.subList(15, 20));
    }

    @Test
    void doneAgeStoredWithTheQueueWinsOverTheClientsRetainAndAgesOut() {
        queue.setRetention(QueueRetention.defaults().withDoneAge(Duration.ofMillis(300)));
        List<Job> jobs = claimed(4, 3);
        for (int i = 0; i < 3; i++) {
            jobs.get(i).complete();
        }
        long firstDone = Long.parseLong(field(jobs.get(2).id(), "finished_at"));
        assertThat(pttl(jobKey(jobs.get(0).id()))).as("the queue's 300 ms, not the client's hour").isBetween(1L, 300L);
        awaitServerTimePast(firstDone + 300);
        jobs.get(3).complete();                              // a later complete drops what aged out
        assertThat(members(DONE)).containsExactly(jobs.get(3).id());
    }

    @Test
    void doneMaxZeroKeepsNone() {
        queue.setRetention(QueueRetention.defaults().withDoneMax(0));
        Job job = claimed(1, 3).get(0);
        assertThat(job.complete()).isEqualTo(SettleOutcome.COMPLETED);
        assertThat(exists(jobKey(job.id()))).isFalse();
        assertThat(card(DONE)).isZero();
    }

    @Test
    void theDeadSetKeepsTheLastNFromFailures() {
        queue.setRetention(QueueRetention.defaults().withDeadMax(3));
        java.util.Map<String, Long> at = new java.util.HashMap<>();
        for (Job j : claimed(10, 1)) {
            assertThat(j.fail("boom")).isEqualTo(SettleOutcome.DEAD);
            at.put(j.id(), score(DEAD, j.id()));
            awaitServerTimePast(at.get(j.id()));
            assertThat(card(DEAD)).isLessThanOrEqualTo(3);
        }
        List<String> order = inSetOrder(at);
        assertThat(members(DEAD)).containsExactlyElementsOf(order.subList(7, 10));
        assertThat(exists(jobKey(order.get(0)))).isFalse();
        assertThat(queue.stats().dead()).isEqualTo(3);
    }

    @Test
    void theDeadSetIsCappedWhenTheReaperBuriesToo() {
        queue.setRetention(QueueRetention.defaults().withDeadMax(2));
        queue.enqueueAll(List.of(JobRequest.of("a"), JobRequest.of("b"), JobRequest.of("c"), JobRequest.of("d")));
        List<String> ids = new ArrayList<>();
        for (Job j : queue.claim(4, Duration.ofMillis(50))) {
            ids.add(j.id());
            raw().call("HSET", jobKey(j.id()), "max_attempts", "1");
        }
        ids.forEach(this::awaitLeaseExpired);
        assertThat(queue.reap(100).dead()).isEqualTo(4);
        assertThat(card(DEAD)).isEqualTo(2);
    }

    @Test
    void deadJobsAgeOut() {
        queue.setRetention(QueueRetention.defaults().withDeadAge(Duration.ofMillis(200)));
        List<Job> jobs = claimed(3, 1);
        jobs.get(0).fail("first");
        jobs.get(1).fail("second");
        long died = score(DEAD, jobs.get(1).id());
        assertThat(card(DEAD)).isEqualTo(2);
        awaitServerTimePast(died + 200);
        jobs.get(2).fail("third");
        assertThat(members(DEAD)).containsExactly(jobs.get(2).id());
        assertThat(exists(jobKey(jobs.get(0).id()))).isFalse();
    }

    @Test
    void aLoweredCapIsReachedInBoundedSteps() {
        List<Job> jobs = claimed(200, 1);
        for (int i = 0; i < 150; i++) {
            jobs.get(i).fail("x");
        }
        assertThat(card(DEAD)).isEqualTo(150);
        queue.setRetention(QueueRetention.defaults().withDeadMax(10));
        jobs.get(150).fail("x");                             // drops at most 1 + 64
        assertThat(card(DEAD)).isEqualTo(151 - 65);
        jobs.get(151).fail("x");
        assertThat(card(DEAD)).isEqualTo(87 - 65);
        jobs.get(152).fail("x");
        assertThat(card(DEAD)).isEqualTo(10);
    }

    @Test
    void removeDropsTheDoneEntry() {
        queue.setRetention(QueueRetention.defaults());   // keeps the done index
        Job job = claimed(1, 3).get(0);
        job.complete();
        assertThat(card(DONE)).isEqualTo(1);
        assertThat(queue.remove(job.id(), false)).isEqualTo(RemoveOutcome.REMOVED);
        assertThat(card(DONE)).isZero();
    }

    /**
     * @return the ids in a sorted set's order: by score, then by the id's bytes (ids are ASCII
     *     digits here), as the caps count "the oldest" within one millisecond
     */
    private static List<String> inSetOrder(java.util.Map<String, Long> scores) {
        return scores.keySet().stream()
                .sorted(java.util.Comparator.<String>comparingLong(scores::get).thenComparing(java.util.Comparator.naturalOrder()))
                .toList();
    }

    private java.util.Map<String, String> hashOf(String key) {
        List<?> flat = (List<?>) raw().call("HGETALL", key);
        java.util.Map<String, String> out = new java.util.TreeMap<>();
        for (int i = 0; i < flat.size(); i += 2) {
            out.put(flat.get(i).toString(), flat.get(i + 1).toString());
        }
        return out;
    }
}
