package io.echomq.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.echomq.testkit.FaultProxy;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The events stream: one event per state change written by the script that made it, the per-queue
 * setting every client reads from Redis, the cap and the reader's gap notice, resuming from an id,
 * and a listener whose exception does not stop the reader.
 */
@Timeout(60)
class QueueEventsTest extends QueueTestBase {
    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final Duration WAIT = Duration.ofSeconds(2);

    /** @return every event the stream keeps, oldest first, as "event id attempt" (plus the reason) */
    private List<String> all() {
        List<String> out = new ArrayList<>();
        try (QueueEvents events = QueueEvents.open(REDIS.url(), "q", "0")) {
            for (QueueEvent e = events.next(Duration.ZERO); e != null; e = events.next(Duration.ZERO)) {
                out.add(e.event() + " " + e.jobId() + " " + e.attempt() + (e.reason() == null ? "" : " / " + e.reason()));
            }
        }
        return out;
    }

    @Test
    void eachStateChangeWritesItsEventInTheSameCall() {
        QueueEventSettings.defaults().withEnqueued(true).store(client, "q");
        String a = queue.enqueue("a");
        Job ja = queue.claim(LEASE).orElseThrow();
        assertThat(ja.progress("half".getBytes(StandardCharsets.UTF_8))).isTrue();
        assertThat(ja.complete()).isEqualTo(SettleOutcome.COMPLETED);

        String b = queue.enqueue("b", EnqueueOptions.defaults().withMaxAttempts(2)).id();
        assertThat(queue.claim(LEASE).orElseThrow().fail("boom")).isEqualTo(SettleOutcome.RETRYING);
        raw().call("ZADD", "emq:{q}:due", "0", b);   // due now
        queue.promote(10);
        assertThat(queue.claim(LEASE).orElseThrow().fail("boom again")).isEqualTo(SettleOutcome.DEAD);

        String c = queue.enqueue("c");
        assertThat(queue.cancel(c)).isEqualTo(CancelOutcome.CANCELLED);
        String d = queue.enqueue("d");
        assertThat(queue.remove(d, false)).isEqualTo(RemoveOutcome.REMOVED);
        String e = queue.enqueue("e");
        queue.claim(Duration.ofMillis(30)).orElseThrow();
        await().atMost(Duration.ofSeconds(5)).until(() -> queue.reap(10).returned() == 1);
        Job je = queue.claim(LEASE).orElseThrow();
        assertThat(je.returnLease()).isEqualTo(SettleOutcome.RETURNED);

        assertThat(all()).containsExactly(
                "enqueued " + a + " 0", "active " + a + " 1", "progress " + a + " 1", "completed " + a + " 1",
                "enqueued " + b + " 0", "active " + b + " 1", "retrying " + b + " 1 / boom",
                "active " + b + " 2", "dead " + b + " 2 / failed on attempt 2 of 2",
                "enqueued " + c + " 0", "cancelled " + c + " 0 / cancelled while pending",
                "enqueued " + d + " 0", "removed " + d + " 0",
                "enqueued " + e + " 0", "active " + e + " 1", "expired " + e + " 1",
                "active " + e + " 2", "returned " + e + " 2");
    }

    @Test
    void eventsAreOnByDefaultWithoutEnqueuedAndOffWritesNothing() {
        assertThat(QueueEventSettings.read(client, "q")).isEqualTo(QueueEventSettings.defaults());
        String a = queue.enqueue("a");
        queue.claim(LEASE).orElseThrow().complete();
        assertThat(all()).containsExactly("active " + a + " 1", "completed " + a + " 1");

        REDIS.flushAll();
        QueueEventSettings.off().withEnqueued(true).store(client, "q");
        assertThat(QueueEventSettings.read(client, "q").enabled()).isFalse();
        queue.enqueue("b");
        queue.claim(LEASE).orElseThrow().fail("x");
        String c = queue.enqueue("c");
        queue.cancel(c);
        assertThat(raw().call("EXISTS", "emq:{q}:events")).as("no event written").isEqualTo(0L);
        assertThat(queue.stats().completed() + queue.stats().delayed()).as("the jobs still moved").isEqualTo(1);
    }

    @Test
    void theCapTrimsAndALaggingReaderIsToldItMissedEvents() {
        QueueEventSettings.defaults().withMaxLength(10).withEnqueued(true).store(client, "q");
        queue.enqueue("first");
        try (QueueEvents events = QueueEvents.open(REDIS.url(), "q", "0")) {
            QueueEvent seen = events.next(WAIT);
            assertThat(seen.event()).isEqualTo("enqueued");
            List<JobRequest> many = new ArrayList<>(Collections.nCopies(600, JobRequest.of("x")));
            queue.enqueueAll(many);
            long kept = (Long) raw().call("XLEN", "emq:{q}:events");
            assertThat(kept).as("capped near 10 (whole blocks are trimmed)").isBetween(10L, 300L);

            QueueEvent gap = events.next(WAIT);
            assertThat(gap.isGap()).as("told before anything else").isTrue();
            assertThat(gap.fields()).containsEntry("after", seen.streamId());
            QueueEvent next = events.next(WAIT);
            assertThat(next.isGap()).isFalse();
            assertThat(next.streamId()).as("the oldest entry kept").isEqualTo(gap.fields().get("first"));
            assertThat(events.lastId()).isEqualTo(next.streamId());
            int rest = 1;
            while (events.next(Duration.ZERO) != null) {
                rest++;
            }
            assertThat((long) rest).as("then every entry kept, and no second gap").isEqualTo(kept);
        }
    }

    @Test
    void aReaderOpenedAtTheLastIdResumesAfterItWithoutAGap() {
        QueueEventSettings.defaults().withEnqueued(true).store(client, "q");
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            ids.add(queue.enqueue("j" + i));
        }
        String last;
        try (QueueEvents events = QueueEvents.open(REDIS.url(), "q", "0")) {
            assertThat(events.next(WAIT).jobId()).isEqualTo(ids.get(0));
            assertThat(events.next(WAIT).jobId()).isEqualTo(ids.get(1));
            last = events.lastId();
        }
        ids.add(queue.enqueue("later"));
        List<String> seen = new ArrayList<>();
        try (QueueEvents events = QueueEvents.open(REDIS.url(), "q", last)) {
            for (QueueEvent e = events.next(WAIT); e != null; e = events.next(Duration.ZERO)) {
                assertThat(e.isGap()).isFalse();
                seen.add(e.jobId());
            }
        }
        assertThat(seen).containsExactlyElementsOf(ids.subList(2, ids.size()));
    }

    @Test
    void aFollowingReaderSeesOnlyNewEventsAndAThrowingListenerDoesNotStopIt() {
        queue.enqueue("old");
        queue.claim(LEASE).orElseThrow().complete();
        List<String> got = new CopyOnWriteArrayList<>();
        try (QueueEvents events = QueueEvents.open(REDIS.url(), "q", null)) {
            events.listen(new QueueEventListener() {
                @Override
                public void onEvent(QueueEvent e) {
                    got.add(e.event() + " " + e.jobId());
                    if (got.size() == 1) {
                        throw new IllegalStateException("a listener bug");
                    }
                }

                @Override
                public void onGap(QueueEvent gap) {
                    got.add("gap");
                }
            });
            assertThatThrownBy(() -> events.listen(new RecordingEvents())).isInstanceOf(IllegalStateException.class);
            String n = queue.enqueue("new");
            queue.claim(LEASE).orElseThrow().complete();
            await().atMost(Duration.ofSeconds(10)).until(() -> got.size() >= 2);
            assertThat(got).containsExactly("active " + n, "completed " + n);
        }
    }

    @Test
    @Tag("standalone-only")   // a FaultProxy stands in front of one server (docs/scaling.md)
    void aListeningReaderGoesOnAfterItsConnectionIsCutWithoutLosingOrRepeatingAnEvent() throws Exception {
        List<String> got = new CopyOnWriteArrayList<>();
        try (FaultProxy proxy = FaultProxy.start(REDIS.server());
             QueueEvents events = QueueEvents.open(proxy.url(), "q", null)) {
            events.listen(new QueueEventListener() {
                @Override
                public void onEvent(QueueEvent e) {
                    got.add(e.event() + " " + e.jobId());
                }

                @Override
                public void onGap(QueueEvent gap) {
                    got.add("gap");
                }
            });
            String a = queue.enqueue("a");
            queue.claim(LEASE).orElseThrow().complete();
            await().atMost(Duration.ofSeconds(10)).until(() -> got.size() >= 2);
            assertThat(proxy.cutAll()).as("the reader's connections cut").isPositive();
            String b = queue.enqueue("b");
            queue.claim(LEASE).orElseThrow().complete();
            await().atMost(Duration.ofSeconds(20)).until(() -> got.size() >= 4);
            assertThat(got).containsExactly("active " + a, "completed " + a, "active " + b, "completed " + b);
        }
    }

    @Test
    void badInputIsRefused() {
        assertThatThrownBy(() -> QueueEvents.open(REDIS.url(), "q", "yesterday"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("stream id");
        assertThatThrownBy(() -> QueueEventSettings.defaults().withMaxLength(-1))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> QueueEventSettings.defaults().withMaxLength(QueueEventSettings.MAX_LENGTH + 1))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(QueueEvents.compare("2-0", "10-0")).isNegative();
        assertThat(QueueEvents.compare("5-10", "5-9")).isPositive();
    }

    private static final class RecordingEvents implements QueueEventListener {
        @Override
        public void onEvent(QueueEvent e) {
        }

        @Override
        public void onGap(QueueEvent gap) {
        }
    }
}
