package io.echomq.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The promises of fair groups under load and over many claims: k = 1 holds for 1,000 groups of
 * very different sizes across several workers, every group with work is served once per rotation,
 * and a group with one job waits at most one rotation (docs/protocol.md, "Groups", the fairness
 * bound).
 */
@Timeout(120)
class GroupsFairnessTest extends QueueTestBase {
    private static final Duration LEASE = Duration.ofSeconds(30);

    private static EnqueueOptions in(String group) {
        return EnqueueOptions.defaults().withGroup(group);
    }

    @Test
    void thousandGroupsOfVerySizesNeverRunTwoOfOneGroupAtOnce() {
        // group 0: 400 jobs; groups 1..9: 40 each; groups 10..999: 1 each. 1,750 jobs.
        List<JobRequest> jobs = new ArrayList<>();
        for (int g = 0; g < 1000; g++) {
            int size = g == 0 ? 400 : g < 10 ? 40 : 1;
            for (int i = 0; i < size; i++) {
                jobs.add(new JobRequest(("g" + g).getBytes(), in("g" + g)));
            }
        }
        queue.enqueueAll(jobs);
        assertThat(queue.stats().pending()).isEqualTo(jobs.size());

        Map<String, AtomicInteger> inFlight = new ConcurrentHashMap<>();
        AtomicInteger overlaps = new AtomicInteger();
        AtomicInteger done = new AtomicInteger();
        AtomicInteger maxAtOnce = new AtomicInteger();
        AtomicInteger running = new AtomicInteger();
        JobHandler handler = job -> {
            AtomicInteger n = inFlight.computeIfAbsent(job.payloadUtf8(), k -> new AtomicInteger());
            if (n.incrementAndGet() > 1) {
                overlaps.incrementAndGet();
            }
            maxAtOnce.accumulateAndGet(running.incrementAndGet(), Math::max);
            LockSupport.parkNanos(200_000);   // a little work, so that handlers overlap
            running.decrementAndGet();
            n.decrementAndGet();
            done.incrementAndGet();
        };
        List<Worker> workers = new ArrayList<>();
        try {
            for (int w = 0; w < 3; w++) {
                workers.add(client(b -> { }).worker("q", handler).concurrency(6).lease(LEASE).start());
            }
            await().atMost(Duration.ofSeconds(60)).until(() -> done.get() == jobs.size());
        } finally {
            workers.forEach(Worker::close);
        }
        assertThat(overlaps.get()).as("two jobs of one group ran at once").isZero();
        assertThat(maxAtOnce.get()).as("the workers did run jobs of different groups at once").isGreaterThan(1);
        assertThat(queue.stats().pending()).isZero();
        assertThat(queue.groups().count("g0")).isEqualTo(new GroupCount("g0", 0, 0, false));
    }

    @Test
    void everyGroupWithWorkIsServedOncePerRotationAndALateSingleJobWaitsOneRotation() {
        // 40 groups: one of 1,000 jobs, 39 of 5 jobs each, interleaved so that no group joins first by volume
        int groups = 40;
        List<JobRequest> jobs = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            for (int g = 0; g < groups; g++) {
                jobs.add(new JobRequest(("g" + g).getBytes(), in("g" + g)));
            }
        }
        for (int i = 0; i < 995; i++) {
            jobs.add(new JobRequest("g0".getBytes(), in("g0")));
        }
        queue.enqueueAll(jobs);

        List<String> served = new ArrayList<>();
        int lateAt = -1;
        // claims of several jobs at once, each settled before the next claim, as a worker's round
        while (served.size() < 5 * groups) {
            if (served.size() >= 17 && lateAt < 0) {
                queue.enqueue("late".getBytes(), in("late"));
                lateAt = served.size();
            }
            List<Job> round = queue.claim(3, LEASE);
            assertThat(round).isNotEmpty();
            for (Job j : round) {
                served.add(j.payloadUtf8());
                assertThat(j.complete()).isEqualTo(SettleOutcome.COMPLETED);
            }
        }
        int lateServed = served.indexOf("late");
        assertThat(lateServed).as("the late group's one job").isGreaterThanOrEqualTo(lateAt);
        assertThat(lateServed - lateAt).as("claims before the late group's turn: at most the 40 members ahead of it")
                .isLessThanOrEqualTo(groups);
        // while every group has work, any window of G consecutive claims serves G distinct groups
        // (the late group's one turn aside)
        List<String> others = new ArrayList<>(served);
        others.remove("late");
        for (int from = 0; from + groups <= 5 * groups; from++) {
            assertThat(new HashSet<>(others.subList(from, from + groups))).as("claims %d..", from).hasSize(groups);
        }
        // the big group's remaining 995 are served by themselves once the others ran out
        Optional<Job> next = queue.claim(LEASE);
        assertThat(next).map(Job::payloadUtf8).contains("g0");
    }
}
