package io.echomq.queue;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A cancel is recorded in the queue's capped record of cancellations, so that cancelled jobs stay
 * listable ({@link JobState#CANCELLED}) and countable ({@link QueueOperations#cancelledRecorded()})
 * even when no hash of theirs is kept.
 */
class CancelRecordTest extends QueueTestBase {
    private static final Duration LEASE = Duration.ofSeconds(30);

    @Test
    void cancelledJobsAreListedOldestFirstThoughTheirHashesAreGone() {
        String waiting = queue.enqueue("a");
        String delayed = queue.enqueue("b", EnqueueOptions.defaults().withDelay(Duration.ofHours(1))).id();
        String running = queue.enqueue("c");
        queue.enqueue("kept");
        assertThat(queue.cancel(waiting)).isEqualTo(CancelOutcome.CANCELLED);
        assertThat(queue.cancel(delayed)).isEqualTo(CancelOutcome.CANCELLED);
        Job job = queue.claim(2, LEASE).stream().filter(j -> j.id().equals(running)).findFirst().orElseThrow();
        assertThat(queue.cancel(job.id())).isEqualTo(CancelOutcome.SIGNALLED);
        assertThat(queue.inspect(waiting)).as("the default keeps no cancelled waiting job's hash").isEmpty();

        assertThat(queue.list(JobState.CANCELLED, 10, null).jobs()).extracting(JobSummary::id)
                .containsExactly(waiting, delayed, running);
        assertThat(queue.cancelledRecorded()).isEqualTo(3);
        assertThat(queue.cancel(waiting)).as("a second cancel changes nothing").isEqualTo(CancelOutcome.NOT_FOUND);
        assertThat(queue.cancelledRecorded()).isEqualTo(3);
    }

    @Test
    void theRecordKeepsTheLastTenThousandCancels() {
        List<String> args = new ArrayList<>(List.of("ZADD", "emq:{q}:cancelled"));
        for (int i = 0; i < 10_000; i++) {
            args.add(Integer.toString(i));
            args.add("old" + i);
        }
        raw().call(args.toArray(String[]::new));
        String id = queue.enqueue("x");
        assertThat(queue.cancel(id)).isEqualTo(CancelOutcome.CANCELLED);
        assertThat(queue.cancelledRecorded()).isEqualTo(10_000);
        assertThat(raw().call("ZSCORE", "emq:{q}:cancelled", "old0")).as("the oldest was dropped").isNull();
        assertThat(raw().call("ZSCORE", "emq:{q}:cancelled", "old1")).isNotNull();
        assertThat(raw().call("ZSCORE", "emq:{q}:cancelled", id)).isNotNull();
    }

    @Test
    void anIdWhoseHashIsInAnotherStateIsNotListedAsCancelled() {
        String id = queue.enqueue("a");
        assertThat(queue.cancel(id)).isEqualTo(CancelOutcome.CANCELLED);
        raw().call("HSET", "emq:{q}:job:" + id, "state", "pending");   // a foreign writer reused the id
        assertThat(queue.list(JobState.CANCELLED, 10, null).jobs()).isEmpty();
    }

    @Test
    void aRecordOfAnotherTypeIsRefusedBeforeAnythingIsWritten() {
        String id = queue.enqueue("a");
        raw().call("SET", "emq:{q}:cancelled", "x");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> queue.cancel(id))
                .hasMessageContaining("WRONGTYPE");
        assertThat(queue.inspect(id).orElseThrow().state()).isEqualTo("pending");
    }
}
