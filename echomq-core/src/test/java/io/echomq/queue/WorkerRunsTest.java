package io.echomq.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * How a worker's claimed jobs run ({@code Runs}): short jobs back to back in a few runs, a job
 * behind a handler that blocks handed on within a slice, and the run's next jobs claimed with its
 * last complete.
 */
@Timeout(60)
class WorkerRunsTest extends QueueTestBase {
    private static final Duration WAIT = Duration.ofSeconds(20);

    /**
     * The first batch of eight is cut in four runs of two (no handler time is known yet), in claim
     * order. The first job of each run blocks until the second job of every run is done: a run that
     * kept its second job behind its blocked first one would never finish it, so each must be
     * handed on to a thread of its own.
     */
    @Test
    void aJobBehindABlockedHandlerIsHandedOn() throws Exception {
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            ids.add(queue.enqueue(i % 2 == 0 ? "block" : "quick"));
        }
        CountDownLatch quickDone = new CountDownLatch(4);
        Map<String, Boolean> blockedSawQuickDone = new ConcurrentHashMap<>();
        try (Worker w = client.worker("q", job -> {
            if (job.payloadUtf8().equals("quick")) {
                quickDone.countDown();
            } else {
                blockedSawQuickDone.put(job.id(), quickDone.await(WAIT.toSeconds(), TimeUnit.SECONDS));
            }
        }).concurrency(8).start()) {
            await().atMost(WAIT).until(() -> queue.stats().completed() == 8);
        }
        assertThat(blockedSawQuickDone).as("each blocked handler saw every quick job done while it waited")
                .hasSize(4).doesNotContainValue(false);
    }

    /**
     * Short jobs run back to back in runs of several, each run's next jobs claimed with its last
     * complete (as many as it holds slots): on 400 quick jobs and 16 slots every job is done once,
     * and the worker's counts agree. How few threads wake per job is the bench's figure
     * ({@code emq bench queue} prints the client's context switches per job), not asserted here: a
     * loaded machine that preempts a handler past the slice rightly hands jobs on.
     */
    @Test
    void shortJobsRunInChainedRunsEachDoneOnce() {
        int jobs = 400;
        List<JobRequest> requests = new ArrayList<>();
        for (int i = 0; i < jobs; i++) {
            requests.add(JobRequest.of("j" + i));
        }
        queue.enqueueAll(requests);
        Set<String> seen = ConcurrentHashMap.newKeySet();
        List<String> twice = new ArrayList<>();
        try (Worker w = client.worker("q", job -> {
            if (!seen.add(job.id())) {
                synchronized (twice) {
                    twice.add(job.id());
                }
            }
        }).concurrency(16).start()) {
            await().atMost(WAIT).until(() -> queue.stats().completed() == jobs);
            await().atMost(WAIT).until(w::isIdle);
            assertThat(w.counts().completed()).isEqualTo(jobs);
        }
        assertThat(twice).isEmpty();
        assertThat(seen).hasSize(jobs);
        assertThat(queue.stats().active()).isZero();
    }
}
