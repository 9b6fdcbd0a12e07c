package io.echomq.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Who runs what: a worker's given name and unique id, the ids of the jobs it holds and its paused
 * state, all carried by its heartbeat (the claim writes nothing about its worker).
 */
class WorkerWhoTest extends QueueTestBase {
    private static final Duration WAIT = Duration.ofSeconds(15);

    @Test
    void twoWorkersOfOneNameHaveTheirOwnIdsAndEachListsTheJobsItHolds() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        String first = queue.enqueue("a");
        String second = queue.enqueue("b");
        WorkerDirectory dir = WorkerDirectory.of(client);
        Worker one = client.worker("q", job -> release.await(10, TimeUnit.SECONDS)).name("billing")
                .concurrency(1).maintenanceInterval(Duration.ofMillis(50)).start();
        Worker two = client.worker("q", job -> release.await(10, TimeUnit.SECONDS)).name("billing")
                .concurrency(1).maintenanceInterval(Duration.ofMillis(50)).start();
        try {
            await().atMost(WAIT).until(() -> dir.list("q").size() == 2
                    && dir.list("q").stream().allMatch(w -> w.jobIds().size() == 1));
            List<WorkerInfo> workers = dir.list("q");
            assertThat(workers).extracting(WorkerInfo::name).containsOnly("billing");
            assertThat(workers).extracting(WorkerInfo::id).containsExactlyInAnyOrder(one.id(), two.id());
            assertThat(one.id()).isNotEqualTo(two.id());
            assertThat(one.name()).isEqualTo("billing");
            assertThat(workers.get(0).label()).isEqualTo("billing@" + workers.get(0).id());
            assertThat(workers).flatExtracting(WorkerInfo::jobIds).containsExactlyInAnyOrder(first, second);
            var holders = WorkerDirectory.holders(workers);
            assertThat(holders.get(first).id()).isNotEqualTo(holders.get(second).id());
            assertThat(holders.get(first).holds(first)).isTrue();
        } finally {
            release.countDown();
            one.close();
            two.close();
        }
    }

    @Test
    void aWorkerListsTheNextJobItHoldsAtTheNextRunThoughItsCountInHandStaysTheSame() throws Exception {
        CountDownLatch releaseFirst = new CountDownLatch(1);
        CountDownLatch releaseAll = new CountDownLatch(1);
        String first = queue.enqueue("a");
        String second = queue.enqueue("b");
        WorkerDirectory dir = WorkerDirectory.of(client);
        // one handler: the first job's complete claims the second in the same call, so the count in
        // hand stays 1 throughout and only the ids tell the change
        try (Worker w = client.worker("q", job -> (job.id().equals(first) ? releaseFirst : releaseAll)
                .await(10, TimeUnit.SECONDS)).concurrency(1).maintenanceInterval(Duration.ofMillis(500)).start()) {
            await().atMost(WAIT).pollInterval(Duration.ofMillis(5))
                    .until(() -> held(dir).equals(List.of(first)));
            WorkerInfo before = dir.list("q").get(0);
            releaseFirst.countDown();
            await().atMost(WAIT).pollInterval(Duration.ofMillis(5))
                    .until(() -> held(dir).equals(List.of(second)));
            WorkerInfo after = dir.list("q").get(0);
            assertThat(after.inHand()).isEqualTo(1);
            assertThat(Duration.between(before.lastBeat(), after.lastBeat()))
                    .as("beaten at a run that saw the new id, not a period (2.5 s) after the last beat")
                    .isLessThan(Duration.ofMillis(Heartbeat.periodMillis(500)));
            releaseAll.countDown();
        }
    }

    /** @return the job ids the one live worker of q listed, or none while no worker beats */
    private static List<String> held(WorkerDirectory dir) {
        List<WorkerInfo> workers = dir.list("q");
        return workers.isEmpty() ? List.of() : workers.get(0).jobIds();
    }

    @Test
    void aBeatListsAtMostAHundredIdsSortedAndJoinedByColons() {
        List<Job> jobs = new java.util.ArrayList<>();
        for (int i = 0; i < 150; i++) {
            queue.enqueue("j" + i);
            jobs.add(queue.claim(Duration.ofSeconds(30)).orElseThrow(() -> new AssertionError("no job")));
        }
        assertThat(jobs).hasSize(150);
        String text = Heartbeat.jobIds(jobs);
        assertThat(text.split(":")).hasSize(Heartbeat.MAX_JOB_IDS).isSorted();
    }

    @Test
    void aWorkerStartedOnAPausedQueueSaysSoInItsHeartbeat() {
        queue.pause();
        WorkerDirectory dir = WorkerDirectory.of(client);
        try (Worker w = client.worker("q", job -> { }).maintenanceInterval(Duration.ofMillis(50))
                .idlePoll(Duration.ofMillis(100)).start()) {
            await().atMost(WAIT).until(() -> dir.list("q").size() == 1 && dir.list("q").get(0).paused());
            assertThat(w.sawPaused()).isTrue();
            queue.resume();
            await().atMost(WAIT).until(() -> !dir.list("q").get(0).paused());
            assertThat(w.sawPaused()).isFalse();
        }
    }

    @Test
    void theStateTellsAChangeOfPauseOnceSoThatTheDispatcherLogsItOnce() {
        WorkerState state = new WorkerState(1);
        assertThat(state.paused(false)).as("a first claim on a running queue is no change").isFalse();
        assertThat(state.paused(true)).isTrue();
        assertThat(state.paused(true)).as("the next claims on the paused queue log nothing").isFalse();
        assertThat(state.paused()).isTrue();
        assertThat(state.paused(false)).isTrue();
        assertThat(state.paused()).isFalse();
    }

    @Test
    void aWorkersNameIsCheckedAndDefaultsToTheQueuesWorkerName() {
        assertThatThrownBy(() -> client.worker("q", job -> { }).name(" ")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> client.worker("q", job -> { }).name("a\nb"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("a?b");
        assertThatThrownBy(() -> client.worker("q", job -> { }).name("x".repeat(Worker.MAX_NAME_LENGTH + 1)))
                .isInstanceOf(IllegalArgumentException.class);
        try (Worker w = client.worker("q", job -> { }).start()) {
            assertThat(w.name()).startsWith("emq-worker-q-").isEqualTo(w.toString());
            assertThat(w.id()).matches(".+-" + ProcessHandle.current().pid() + "-[0-9]+");
        }
    }
}
