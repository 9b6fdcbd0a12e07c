package io.echomq.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Claim order: priority bands, strict FIFO inside a band, whatever the timing of the enqueues. */
@Timeout(60)
class OrderTest extends SemanticsTestBase {
    private static final long BAND = 1L << 42;

    private String enqueue(String payload, int priority) {
        return queue.enqueue(payload.getBytes(StandardCharsets.UTF_8),
                EnqueueOptions.defaults().withPriority(priority)).id();
    }

    private List<String> claimAllPayloads() {
        List<String> out = new ArrayList<>();
        List<Job> batch;
        while (!(batch = queue.claim(7, LONG_LEASE)).isEmpty()) {
            batch.forEach(j -> out.add(j.payloadUtf8()));
        }
        return out;
    }

    @Test
    void fiveHundredFastEnqueuesAreClaimedInEnqueueOrder() {
        List<String> enqueued = new ArrayList<>();
        for (int i = 0; i < 500; i++) {
            enqueued.add(queue.enqueue("job-" + i));
        }

        List<String> claimed = new ArrayList<>();
        // mix single claims and batches of odd sizes
        for (int i = 0; i < 5; i++) {
            claimed.add(queue.claim(LONG_LEASE).orElseThrow().id());
        }
        List<Job> batch;
        while (!(batch = queue.claim(37, LONG_LEASE)).isEmpty()) {
            batch.forEach(j -> claimed.add(j.id()));
        }

        assertThat(claimed).containsExactlyElementsOf(enqueued);
        // numeric, not member-byte, order: "9" before "10", "99" before "100"
        assertThat(claimed.indexOf("9")).isLessThan(claimed.indexOf("10"));
        assertThat(claimed.indexOf("99")).isLessThan(claimed.indexOf("100"));
    }

    @Test
    void jobsSharingOneMillisecondKeepTheirOrder() {
        List<JobRequest> requests = new ArrayList<>();
        for (int i = 0; i < 500; i++) {
            requests.add(JobRequest.of("bulk-" + i));
        }
        List<String> ids = queue.enqueueAll(requests).stream().map(EnqueueResult::id).toList();
        // one script reads TIME once: every job is enqueued in the same millisecond, so the order
        // below cannot come from the clock

        List<String> claimed = new ArrayList<>();
        List<Job> batch;
        while (!(batch = queue.claim(64, LONG_LEASE)).isEmpty()) {
            batch.forEach(j -> claimed.add(j.id()));
        }
        assertThat(claimed).containsExactlyElementsOf(ids);
    }

    @Test
    void higherPriorityFirstFifoInsideEachBandNegativeLast() {
        // enqueue ids 1..9 first so that the ids of interest are >= 10 and byte order would differ
        for (int i = 0; i < 9; i++) {
            queue.enqueue("filler");
        }
        queue.claim(9, LONG_LEASE);

        enqueue("zero-1", 0);
        enqueue("five-1", 5);
        enqueue("minus3-1", -3);
        enqueue("zero-2", 0);
        enqueue("five-2", 5);
        enqueue("top", 1000);
        enqueue("minus3-2", -3);
        enqueue("bottom", -1000);
        enqueue("zero-3", 0);
        enqueue("five-3", 5);
        enqueue("one", 1);

        assertThat(claimAllPayloads()).containsExactly(
                "top", "five-1", "five-2", "five-3", "one", "zero-1", "zero-2", "zero-3",
                "minus3-1", "minus3-2", "bottom");
    }

    @Test
    void pendingScoreIsSeqMinusPriorityBandsAndPriorityZeroWaitsInTheList() {
        String plain = enqueue("plain", 0);
        String high = enqueue("high", 1000);
        String low = enqueue("low", -1000);
        String seven = enqueue("seven", 7);

        assertThat(score(PENDING, plain)).as("priority 0 is not in the ZSET").isNull();
        assertThat(waiting()).containsExactly(plain);
        assertThat(score(PENDING, high)).isEqualTo(Long.parseLong(high) - 1000 * BAND);
        assertThat(score(PENDING, low)).isEqualTo(Long.parseLong(low) + 1000 * BAND);
        assertThat(score(PENDING, seven)).isEqualTo(Long.parseLong(seven) - 7 * BAND);
        assertThat(field(high, "priority")).isEqualTo("1000");
        assertThat(field(low, "priority")).isEqualTo("-1000");
        assertThat(field(plain, "priority")).as("priority 0 is not written").isNull();
    }

    @Test
    void priorityBoundsAreInclusive() {
        assertThat(EnqueueOptions.defaults().withPriority(1000).priority()).isEqualTo(1000);
        assertThat(EnqueueOptions.defaults().withPriority(-1000).priority()).isEqualTo(-1000);
        assertThatThrownBy(() -> EnqueueOptions.defaults().withPriority(1001))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("priority");
        assertThatThrownBy(() -> EnqueueOptions.defaults().withPriority(-1001))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("priority");
        assertThatThrownBy(() -> EnqueueOptions.defaults().withPriority(Integer.MIN_VALUE))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void bulkEnqueueKeepsPriorityAndOrder() {
        List<JobRequest> requests = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            int priority = i % 3 == 0 ? 2 : i % 3 == 1 ? 0 : -2;
            requests.add(new JobRequest(("p" + priority + "-" + i).getBytes(StandardCharsets.UTF_8),
                    EnqueueOptions.defaults().withPriority(priority)));
        }
        queue.enqueueAll(requests);

        List<String> expected = new ArrayList<>();
        for (int band : new int[] {2, 0, -2}) {
            for (int i = 0; i < 30; i++) {
                int priority = i % 3 == 0 ? 2 : i % 3 == 1 ? 0 : -2;
                if (priority == band) {
                    expected.add("p" + priority + "-" + i);
                }
            }
        }
        assertThat(claimAllPayloads()).containsExactlyElementsOf(expected);
    }
}
