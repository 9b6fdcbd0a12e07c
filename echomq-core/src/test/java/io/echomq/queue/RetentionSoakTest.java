package io.echomq.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.echomq.server.RawRedis;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A soak under a steady load: 20,000 jobs through enqueue, a worker, complete or fail-to-dead,
 * with small caps. Nothing in the queue's keys may grow past the caps: the done index and the
 * dead set each stay at or under their cap at every sample, and the keyspace ends at the caps
 * plus the queue's handful of fixed keys. It prints the key counts and {@code used_memory} at its
 * start and end.
 */
@Timeout(180)
class RetentionSoakTest extends SemanticsTestBase {
    private static final int JOBS = 20_000;
    private static final int DONE_MAX = 500;
    private static final int DEAD_MAX = 300;
    /**
     * wait, pending, active, delayed, dead, done, seq, stats, retention, the maintenance lock and the
     * two error-group keys (errors, errors:seen: bounded at 100 groups), at most
     */
    private static final int FIXED_KEYS = 12;

    private long usedMemory() {
        long sum = 0;
        for (io.echomq.server.RedisServer s : REDIS.servers()) {
            try (RawRedis node = RawRedis.connect(s.host(), s.port())) {
                String info = node.call("INFO", "memory").toString();
                sum += Long.parseLong(info.replaceAll("(?s).*used_memory:(\\d+).*", "$1"));
            }
        }
        return sum;
    }

    private String counts() {
        return "keys=" + dbSize() + " done=" + card(P + "done") + " dead=" + card(DEAD) + " pending=" + pendingCount()
                + " used_memory=" + usedMemory();
    }

    @Test
    void twentyThousandJobsLeaveNoMoreThanTheCaps() {
        queue.setRetention(QueueRetention.defaults().withDoneMax(DONE_MAX).withDeadMax(DEAD_MAX));
        System.out.println("[soak] start: " + counts());
        AtomicLong maxDone = new AtomicLong();
        AtomicLong maxDead = new AtomicLong();
        try (Worker worker = client.worker("q", job -> {
                    if (job.payloadUtf8().endsWith("3")) {
                        throw new NonRetryableException("every tenth job dies");
                    }
                })
                .concurrency(32)
                .logFailures(false)
                .start()) {
            for (int sent = 0; sent < JOBS; sent += 1000) {
                List<JobRequest> chunk = new ArrayList<>(1000);
                for (int i = sent; i < sent + 1000; i++) {
                    chunk.add(new JobRequest(("job-" + i).getBytes(StandardCharsets.UTF_8),
                            EnqueueOptions.defaults().withMaxAttempts(1)));
                }
                queue.enqueueAll(chunk);
                maxDone.accumulateAndGet(card(P + "done"), Math::max);
                maxDead.accumulateAndGet(card(DEAD), Math::max);
            }
            await().atMost(Duration.ofSeconds(150)).pollInterval(Duration.ofMillis(200)).until(() -> {
                maxDone.accumulateAndGet(card(P + "done"), Math::max);
                maxDead.accumulateAndGet(card(DEAD), Math::max);
                QueueStats s = queue.stats();
                return s.completed() + s.failed() == JOBS;
            });
        }
        System.out.println("[soak] end:   " + counts() + " (completed " + queue.stats().completed()
                + ", failed " + queue.stats().failed() + ")");
        assertThat(queue.stats().failed()).isEqualTo(JOBS / 10);
        assertThat(maxDone.get()).as("the done index never passed its cap").isLessThanOrEqualTo(DONE_MAX);
        assertThat(maxDead.get()).as("the dead set never passed its cap").isLessThanOrEqualTo(DEAD_MAX);
        assertThat(card(P + "done")).isEqualTo(DONE_MAX);
        assertThat(card(DEAD)).isEqualTo(DEAD_MAX);
        assertThat(dbSize()).as("every key left: the kept jobs' hashes and the queue's own keys")
                .isLessThanOrEqualTo(DONE_MAX + DEAD_MAX + FIXED_KEYS);
    }
}
