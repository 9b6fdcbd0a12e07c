package io.echomq.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.echomq.MonotonicClock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The timeout is measured on the injected monotonic clock: the timer thread only wakes the watch
 * up, and a watch whose clock has not moved goes back to sleep.
 */
@Timeout(30)
class JobTimeoutsTest extends QueueTestBase {
    /** A clock that moves only when told, and counts its reads. */
    private static final class FakeClock implements MonotonicClock {
        private final AtomicLong now = new AtomicLong(5_000_000_000L);
        private final AtomicInteger reads = new AtomicInteger();

        @Override
        public long nanoTime() {
            reads.incrementAndGet();
            return now.get();
        }
    }

    @Test
    void aWatchFiresOnlyOnceItsClockHasPassedTheTimeoutAndNeverAfterUnwatch() {
        FakeClock clock = new FakeClock();
        List<Job> expired = new CopyOnWriteArrayList<>();
        JobTimeouts timeouts = new JobTimeouts("test", clock, (job, observed) -> expired.add(job));
        try {
            queue.enqueue("a");
            queue.enqueue("b");
            queue.enqueue("c");
            Job a = queue.claim(Duration.ofMinutes(1)).orElseThrow();
            Job b = queue.claim(Duration.ofMinutes(1)).orElseThrow();
            Job c = queue.claim(Duration.ofMinutes(1)).orElseThrow();
            timeouts.watch(a, 0, 20);
            timeouts.watch(b, 0, 20);
            timeouts.watch(c, 0, 40);   // each watch has its own job's timeout
            timeouts.unwatch(b);

            int readsAtStart = clock.reads.get();
            // the timer wakes every 20 ms of its own time, reads the still clock, and sleeps again
            await().atMost(Duration.ofSeconds(10)).until(() -> clock.reads.get() >= readsAtStart + 5);
            assertThat(expired).as("the clock has not moved").isEmpty();
            assertThat(timeouts.watchedCount()).isEqualTo(2);

            clock.now.addAndGet(Duration.ofMillis(19).toNanos());
            int readsBefore = clock.reads.get();
            await().atMost(Duration.ofSeconds(10)).until(() -> clock.reads.get() >= readsBefore + 3);
            assertThat(expired).as("1 ms short").isEmpty();

            clock.now.addAndGet(Duration.ofMillis(1).toNanos());
            await().atMost(Duration.ofSeconds(10)).until(() -> !expired.isEmpty());
            int readsAtA = clock.reads.get();
            await().atMost(Duration.ofSeconds(10)).until(() -> clock.reads.get() >= readsAtA + 3);
            assertThat(expired).as("c's 40 ms have not passed").containsExactly(a);
            assertThat(timeouts.watchedCount()).isEqualTo(1);

            clock.now.addAndGet(Duration.ofMillis(20).toNanos());
            await().atMost(Duration.ofSeconds(10)).until(() -> expired.size() == 2);
            assertThat(expired).containsExactly(a, c);
            assertThat(timeouts.watchedCount()).isZero();
        } finally {
            timeouts.close();
        }
    }
}
