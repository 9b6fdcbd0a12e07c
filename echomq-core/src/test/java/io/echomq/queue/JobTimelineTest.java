package io.echomq.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A job's events read back from a bounded window of its queue's stream: only that job's, oldest
 * first; a window that does not reach the stream's start says so; events off is told apart from
 * no events; a sharded queue's job is read from its partition's stream.
 */
class JobTimelineTest extends QueueTestBase {
    private static final Duration LEASE = Duration.ofSeconds(30);

    private static List<String> names(JobTimeline.Read r) {
        return r.events().stream().map(e -> e.event() + " " + e.attempt()).toList();
    }

    @Test
    void readsOnlyTheJobsEventsOldestFirst() {
        String a = queue.enqueue("a", EnqueueOptions.defaults().withMaxAttempts(2)).id();
        String other = queue.enqueue("other");
        assertThat(queue.claim(LEASE).orElseThrow().fail("boom")).isEqualTo(SettleOutcome.RETRYING);
        queue.claim(LEASE).orElseThrow().complete();                   // the other job
        raw().call("ZADD", "emq:{q}:due", "0", a);                 // due now
        queue.promote(10);
        assertThat(queue.claim(LEASE).orElseThrow().complete()).isEqualTo(SettleOutcome.COMPLETED);

        JobTimeline.Read r = JobTimeline.read(queue, a, JobTimeline.DEFAULT_WINDOW);
        assertThat(names(r)).containsExactly("active 1", "retrying 1", "active 2", "completed 2");
        assertThat(r.events().get(1).reason()).isEqualTo("boom");
        assertThat(r.scanned()).isEqualTo(6);
        assertThat(r.reachedStart()).isTrue();
        assertThat(r.eventsOn()).isTrue();
        assertThat(r.oldestRead()).isEqualTo(r.events().get(0).streamId());
        assertThat(names(JobTimeline.read(queue, other, 10))).containsExactly("active 1", "completed 1");
    }

    @Test
    void aWindowShorterThanTheStreamSaysItDidNotReachTheStart() {
        String a = queue.enqueue("a");
        queue.claim(LEASE).orElseThrow().complete();
        for (int i = 0; i < 3; i++) {
            queue.enqueue("x" + i);
            queue.claim(LEASE).orElseThrow().complete();
        }
        JobTimeline.Read r = JobTimeline.read(queue, a, 6);
        assertThat(r.events()).isEmpty();
        assertThat(r.scanned()).isEqualTo(6);
        assertThat(r.reachedStart()).isFalse();
        assertThat(names(JobTimeline.read(queue, a, 8))).containsExactly("active 1", "completed 1");
    }

    @Test
    void eventsOffIsToldApartFromAJobWithoutEvents() {
        String a = queue.enqueue("a");
        JobTimeline.Read on = JobTimeline.read(queue, a, 10);
        assertThat(on.events()).isEmpty();
        assertThat(on.eventsOn()).isTrue();
        assertThat(on.oldestRead()).isNull();

        QueueEventSettings.off().store(client, "q");
        queue.claim(LEASE).orElseThrow().complete();
        JobTimeline.Read off = JobTimeline.read(queue, a, 10);
        assertThat(off.events()).isEmpty();
        assertThat(off.eventsOn()).isFalse();
    }

    @Test
    void aShardedJobIsReadFromItsPartitionsStream() {
        ShardedQueue orders = client.shardedQueue("orders", 3);
        String id = orders.enqueue("k", "o".getBytes(), EnqueueOptions.defaults()).id();
        Job job = orders.claim(LEASE).orElseThrow();
        assertThat(job.id()).isEqualTo(id);
        job.complete();
        assertThat(names(JobTimeline.read(orders, id, 10))).containsExactly("active 1", "completed 1");
        assertThatThrownBy(() -> JobTimeline.read(orders, "7", 10)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> JobTimeline.read(orders, "9-1", 10)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void refusesAWindowOutOfRangeAndABadId() {
        assertThatThrownBy(() -> JobTimeline.read(queue, "1", 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> JobTimeline.read(queue, "1", JobTimeline.MAX_WINDOW + 1))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> JobTimeline.read(queue, "7:lock", 10)).isInstanceOf(IllegalArgumentException.class);
    }
}
