package io.echomq.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link Job#scheduledFor()} against a real Redis: a fired job answers the fire time its schedule
 * computed, read once; any other job answers empty. And the client's catch-up threshold
 * ({@link QueueClient.Builder#missedFiresAfter}) decides which fire times are missed.
 */
class ScheduledForTest extends QueueTestBase {
    private static final Duration LEASE = Duration.ofSeconds(30);

    @Test
    void aFiredJobKnowsTheFireTimeItsScheduleComputed() {
        Schedules s = client.schedules("q");
        Instant first = s.upsert(Schedule.of("tick", ScheduleSpec.every(Duration.ofSeconds(1)), "t")).nextFire()
                .orElseThrow();
        await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(50)).until(() -> s.fireDue() > 0
                || queue.stats().pending() > 0);

        Job job = queue.claim(LEASE).orElseThrow();
        assertThat(job.scheduledFor()).contains(first);
        raw().call("HDEL", "emq:{q}:job:" + job.id(), "idem");
        assertThat(job.scheduledFor()).as("read once, then answered from memory").contains(first);
        job.complete();
    }

    @Test
    void otherJobsAnswerEmpty() {
        queue.enqueue("plain");
        queue.enqueue("keyed", EnqueueOptions.defaults().withIdempotencyKey("order-42", Duration.ofMinutes(1)));
        queue.enqueue("lookalike", EnqueueOptions.defaults().withIdempotencyKey("schedule:x:soon", Duration.ofMinutes(1)));
        List<Job> jobs = queue.claim(3, LEASE);
        assertThat(jobs).hasSize(3);
        for (Job j : jobs) {
            assertThat(j.scheduledFor()).as(j.payloadUtf8()).isEmpty();
        }
    }

    @Test
    void theFireKeyIsReadBackExactly() {
        assertThat(FireKey.fireTime(FireKey.of("a:b", 1234))).contains(Instant.ofEpochMilli(1234));
        assertThat(FireKey.fireTime("schedule::12")).isEmpty();
        assertThat(FireKey.fireTime("schedule:x:-1")).isEmpty();
        assertThat(FireKey.fireTime("schedule:x:99999999999999999999")).isEmpty();
        assertThat(FireKey.fireTime(null)).isEmpty();
    }

    @Test
    void theThresholdDecidesWhichFireTimesAreMissed() {
        long created = downtimeFired(client);
        assertThat(created).as("the default 60 s: a 30 s downtime is on time, each fire time fires").isGreaterThanOrEqualTo(4);

        REDIS.flushAll();
        long skipped = downtimeFired(client(b -> b.missedFiresAfter(Duration.ofSeconds(5))));
        assertThat(skipped).as("a 5 s threshold: the same downtime is missed and skipped").isLessThanOrEqualTo(1);
    }

    @Test
    void theThresholdIsChecked() {
        assertThatThrownBy(() -> QueueClient.builder().missedFiresAfter(Duration.ofMillis(999)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("missedFiresAfter");
        assertThatThrownBy(() -> QueueClient.builder().missedFiresAfter(Duration.ofDays(2)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("missedFiresAfter");
        assertThatThrownBy(() -> QueueClient.builder().missedFiresAfter(null))
                .isInstanceOf(IllegalArgumentException.class);
    }

    /** A skip schedule every 10 s whose stored fire time is 30 to 40 s ago: @return the jobs one run creates */
    private long downtimeFired(QueueClient c) {
        Schedules s = c.schedules("q");
        s.upsert(Schedule.of("ten", ScheduleSpec.every(Duration.ofSeconds(10)), "x"));
        long now = Long.parseLong(((List<?>) raw().call("TIME")).get(0).toString()) * 1000;
        long past = (now / 10_000 - 3) * 10_000;
        raw().call("ZADD", "emq:{q}:schedules", Long.toString(past), "ten");
        return s.fireDue();
    }
}
