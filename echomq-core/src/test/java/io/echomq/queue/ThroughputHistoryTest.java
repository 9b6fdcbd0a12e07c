package io.echomq.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.echomq.internal.Scripts;
import io.lettuce.core.ScriptOutputType;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The throughput history: sampled once per server minute by the maintenance holder, trimmed, and read as per-minute rises. */
class ThroughputHistoryTest extends QueueTestBase {
    private static final Duration WAIT = Duration.ofSeconds(15);
    private static final long MINUTE = 60_000;

    private static String text(Object v) {
        return v == null ? null : v instanceof byte[] b ? new String(b) : v.toString();
    }

    private long serverMillis() {
        List<?> t = (List<?>) raw().call("TIME");
        return Long.parseLong(text(t.get(0))) * 1000 + Long.parseLong(text(t.get(1))) / 1000;
    }

    /** @return the current server minute, once at least 6 s of it are left, so that a test runs inside one minute */
    private long minuteWithRoomLeft() {
        await().atMost(Duration.ofSeconds(10)).until(() -> serverMillis() % MINUTE < MINUTE - 6000);
        long now = serverMillis();
        return now - now % MINUTE;
    }

    private void sample(String key, long minute, long completed, long failed) {
        raw().call("ZADD", key, Long.toString(minute), minute + ":" + completed + ":" + failed);
    }

    @Test
    void theMaintenanceHolderSamplesTheCountersOnceAMinuteAndDropsOldSamples() {
        for (int i = 0; i < 3; i++) {
            queue.enqueue("ok-" + i);
            queue.claim(Duration.ofSeconds(30)).orElseThrow().complete();
        }
        queue.enqueue("bad".getBytes(), EnqueueOptions.defaults().withMaxAttempts(1));
        queue.claim(Duration.ofSeconds(30)).orElseThrow().fail("boom");   // dead: failed 1, nothing left to run
        long m = minuteWithRoomLeft();
        String key = "emq:{q}:throughput";
        sample(key, m - 180 * MINUTE, 0, 0);   // three hours old: past the two hours kept
        sample(key, m - MINUTE, 1, 0);

        try (Worker w = client.worker("q", job -> { }).maintenanceInterval(Duration.ofMillis(20)).start()) {
            await().atMost(WAIT).until(() -> raw().call("ZSCORE", key, m + ":3:1") != null);
        }
        assertThat(((List<?>) raw().call("ZRANGE", key, "0", "-1")).stream().map(ThroughputHistoryTest::text))
                .containsExactly((m - MINUTE) + ":1:0", m + ":3:1");
        assertThat((Long) raw().call("PTTL", key)).isBetween(1L, ThroughputRecorder.KEEP.toMillis());

        // Another call in the same minute, after the counters rose, keeps the minute's first sample.
        queue.enqueue("late");
        queue.claim(Duration.ofSeconds(30)).orElseThrow().complete();
        List<Object> reply = client.context().engine().<List<Object>>run(Scripts.THROUGHPUT, ScriptOutputType.MULTI,
                new String[] {"emq:{q}:stats", key}, Long.toString(ThroughputRecorder.KEEP.toMillis())).join();
        assertThat(reply.get(0)).isEqualTo(0L);
        assertThat((Long) reply.get(1)).isBetween(1L, MINUTE);
        assertThat(raw().call("ZCARD", key)).isEqualTo(2L);

        ThroughputHistory.Window window = ThroughputHistory.of(client).lastMinutes("q", 60);
        assertThat(window.from()).isEqualTo(Instant.ofEpochMilli(m - 60 * MINUTE));
        assertThat(window.until()).isEqualTo(Instant.ofEpochMilli(m));
        assertThat(window.minutes()).containsExactly(new ThroughputMinute(Instant.ofEpochMilli(m - MINUTE), 2, 1));
    }

    @Test
    void readsRisesPerMinuteSkippingGapsAndSumsAShardedQueuesPartitions() {
        client.shardedQueue("orders", 2);
        long m = minuteWithRoomLeft();
        String p0 = "emq:{orders#0}:throughput";
        String p1 = "emq:{orders#1}:throughput";
        sample(p0, m - 4 * MINUTE, 0, 0);
        sample(p0, m - 3 * MINUTE, 5, 1);
        sample(p0, m - 2 * MINUTE, 5, 1);
        sample(p0, m - MINUTE, 9, 1);
        sample(p0, m, 9, 2);
        sample(p1, m - 3 * MINUTE, 7, 0);
        sample(p1, m - 2 * MINUTE, 8, 0);
        sample(p1, m - MINUTE, 1, 0);        // went down: the queue was made again, no rise is read
        sample(p1, m, 4, 0);
        raw().call("ZADD", p1, Long.toString(m - 5 * MINUTE), "not-a-sample");

        List<ThroughputMinute> minutes = ThroughputHistory.of(client).lastMinutes("orders", 60).minutes();
        assertThat(minutes).containsExactly(
                new ThroughputMinute(Instant.ofEpochMilli(m - 4 * MINUTE), 5, 1),
                new ThroughputMinute(Instant.ofEpochMilli(m - 3 * MINUTE), 0 + 1, 0),
                new ThroughputMinute(Instant.ofEpochMilli(m - 2 * MINUTE), 4, 0),
                new ThroughputMinute(Instant.ofEpochMilli(m - MINUTE), 0 + 3, 1));
        // only the last two minutes asked: the samples of m - 2 .. m
        assertThat(ThroughputHistory.of(client).lastMinutes("orders", 2).minutes()).extracting(ThroughputMinute::minute)
                .containsExactly(Instant.ofEpochMilli(m - 2 * MINUTE), Instant.ofEpochMilli(m - MINUTE));
        assertThat(ThroughputHistory.of(client).lastMinutes("nothing-here", 60).minutes()).isEmpty();
        assertThatThrownBy(() -> ThroughputHistory.of(client).lastMinutes("orders", 121))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
