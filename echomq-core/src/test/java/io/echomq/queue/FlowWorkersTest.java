package io.echomq.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Flow control with running workers, each on its own client (its own connections, as separate
 * processes would have): the rate limit holds over every window and is reached, a handler's
 * back-off stops every worker for its time, the cap holds across workers and a dead holder's
 * place frees when its lease is reaped. Times are the server's: a job's {@code claimed_at}, or
 * the ms of an event's stream id.
 */
@Timeout(90)
class FlowWorkersTest extends QueueTestBase {
    /** These tests read completed jobs' hashes: the test client keeps them for an hour. */
    @Override
    Duration retainCompleted() {
        return Duration.ofHours(1);
    }

    private static final Duration LONG_POLL = Duration.ofSeconds(30);

    /** One job start, or one return, as the events stream has it: server ms and job id. */
    private record Event(long ms, String name, String id) {
    }

    private List<Event> events() {
        List<Event> out = new ArrayList<>();
        for (Object e : (List<?>) raw().call("XRANGE", "emq:{q}:events", "-", "+")) {
            List<?> entry = (List<?>) e;
            String streamId = text(entry.get(0));
            List<?> fields = (List<?>) entry.get(1);
            Map<String, String> f = new TreeMap<>();
            for (int i = 0; i + 1 < fields.size(); i += 2) {
                f.put(text(fields.get(i)), text(fields.get(i + 1)));
            }
            out.add(new Event(Long.parseLong(streamId.substring(0, streamId.indexOf('-'))), f.get("event"), f.get("id")));
        }
        return out;
    }

    /**
     * @return the server ms of every claim, from {@code claimed_at} of each job claimed once: the
     *     claim's own {@code now}, the time the rate log counts (an event's stream id is read a
     *     moment later, and may fall in the next ms)
     */
    private List<Long> starts(int jobs) {
        List<Long> out = new ArrayList<>();
        for (int id = 1; id <= jobs; id++) {
            String at = field(Integer.toString(id), "claimed_at");
            if (at != null) {
                out.add(Long.parseLong(at));
            }
        }
        out.sort(null);
        return out;
    }

    private long serverMillis() {
        List<?> t = (List<?>) raw().call("TIME");
        return Long.parseLong(text(t.get(0))) * 1000 + Long.parseLong(text(t.get(1))) / 1000;
    }

    private static String text(Object o) {
        return o instanceof byte[] b ? new String(b) : String.valueOf(o);
    }

    private List<Worker> workers(int n, int concurrency, JobHandler handler) {
        List<Worker> ws = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            ws.add(client(b -> b.retainCompleted(retainCompleted())).worker("q", handler).concurrency(concurrency).idlePoll(LONG_POLL).start());
        }
        return ws;
    }

    @Test
    void theRateLimitHoldsInEveryWindowAndIsReachedWithoutSpinning() {
        int max = 50;
        long window = 1000;
        long measured = 3000;
        queue.flowControl().setRateLimit(max, Duration.ofMillis(window));
        List<JobRequest> jobs = new ArrayList<>();
        for (int i = 0; i < 400; i++) {
            jobs.add(new JobRequest(("j" + i).getBytes(), EnqueueOptions.defaults()));
        }
        queue.enqueueAll(jobs);
        long evalBefore = WorkerWakeTest.serverCommandCounts().getOrDefault("evalsha", 0L);
        List<Worker> ws = workers(4, 8, job -> { });
        try {
            await().atMost(Duration.ofSeconds(10)).until(() -> !starts(1).isEmpty());
            long t0 = starts(1).get(0);
            await().atMost(Duration.ofSeconds(15)).pollInterval(Duration.ofMillis(100))
                    .until(() -> serverMillis() >= t0 + measured + 50);
        } finally {
            ws.forEach(Worker::close);
        }
        long evals = WorkerWakeTest.serverCommandCounts().getOrDefault("evalsha", 0L) - evalBefore;
        List<Long> starts = starts(400);
        long t0 = starts.get(0);
        int worst = 0;
        for (int i = 0; i < starts.size(); i++) {
            int inWindow = 0;
            for (int j = i; j < starts.size() && starts.get(j) < starts.get(i) + window; j++) {
                inWindow++;
            }
            worst = Math.max(worst, inWindow);
        }
        long inSpan = starts.stream().filter(t -> t < t0 + measured).count();
        System.out.printf("rate limit %d/%d ms: %d started in the first %d ms (%.1f%% of the limit), worst window %d,"
                + " %d EVALSHA over the run%n", max, window, inSpan, measured, 100.0 * inSpan / (max * measured / window),
                worst, evals);
        assertThat(worst).as("starts in any window of %d ms", window).isLessThanOrEqualTo(max);
        assertThat(inSpan).as("throughput within 10%% of the limit").isGreaterThanOrEqualTo(max * measured / window * 9 / 10);
        // a worker that spun on a limited claim would make thousands of calls a second
        assertThat(evals).as("script calls: settles and claims, no spinning").isLessThan(3 * starts.size() + 4 * 40 * 6);
    }

    @Test
    void aHandlersBackOffHoldsEveryWorkerAndTheJobKeepsItsAttempt() {
        long backOff = 700;
        AtomicBoolean refused = new AtomicBoolean();
        for (int i = 0; i < 6; i++) {
            queue.enqueue("j" + i);
        }
        List<Worker> ws = workers(2, 2, job -> {
            if (refused.compareAndSet(false, true)) {
                throw new RateLimitedException(Duration.ofMillis(backOff));
            }
        });
        try {
            await().atMost(Duration.ofSeconds(15)).until(() -> queue.stats().completed() == 6);
        } finally {
            ws.forEach(Worker::close);
        }
        List<Event> events = events();
        Event returned = events.stream().filter(e -> e.name().equals("returned")).findFirst().orElseThrow();
        List<Event> during = events.stream().filter(e -> e.name().equals("active")
                && e.ms() > returned.ms() && e.ms() < returned.ms() + backOff - 3).toList();   // an event's ms may trail its script's clock
        assertThat(during).as("no job starts in the %d ms after the back-off, on any worker", backOff).isEmpty();
        assertThat(events.stream().filter(e -> e.name().equals("active") && e.ms() >= returned.ms() + backOff - 3))
                .as("work resumes after it").isNotEmpty();
        assertThat(field(returned.id(), "attempts")).as("claimed twice").isEqualTo("2");
        assertThat(field(returned.id(), "spent")).as("the refused attempt was not spent").isEqualTo("1");
        assertThat(stateOf(returned.id())).isEqualTo("done");
    }

    @Test
    void theCapHoldsAcrossWorkersAndAFreedPlaceIsTakenAtOnce() {
        int cap = 3;
        queue.flowControl().setConcurrencyCap(cap);
        for (int i = 0; i < 60; i++) {
            queue.enqueue("j" + i);
        }
        AtomicInteger inFlight = new AtomicInteger();
        AtomicInteger most = new AtomicInteger();
        List<Worker> ws = workers(4, 8, job -> {
            most.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
            try {
                Thread.sleep(10);
            } finally {
                inFlight.decrementAndGet();
            }
        });
        try {
            // an idle poll of 30 s: finishing in time shows that a freed place wakes a claim
            long t = System.nanoTime();
            await().atMost(Duration.ofSeconds(20)).until(() -> queue.stats().completed() == 60);
            System.out.printf("cap %d: 60 jobs of 10 ms in %d ms%n", cap, (System.nanoTime() - t) / 1_000_000);
        } finally {
            ws.forEach(Worker::close);
        }
        assertThat(most.get()).as("handlers running at once across 4 workers of concurrency 8").isEqualTo(cap);
    }

    @Test
    void aDeadWorkersPlacesFreeWhenItsLeasesAreReaped() {
        queue.flowControl().setConcurrencyCap(2);
        for (int i = 0; i < 4; i++) {
            queue.enqueue("j" + i);
        }
        // a worker that dies (as by kill -9) holding both places, under a short lease
        Worker dying = client(b -> { }).worker("q", job -> Thread.sleep(60_000)).concurrency(4)
                .lease(Duration.ofMillis(400)).idlePoll(LONG_POLL).start();
        await().atMost(Duration.ofSeconds(10)).until(() -> queue.stats().active() == 2);
        dying.abandon();
        Worker live = client(b -> { }).worker("q", job -> { }).concurrency(4).idlePoll(LONG_POLL)
                .maintenanceInterval(Duration.ofMillis(200)).start();
        try {
            // its idle poll is 30 s: the reap's wake message, not a poll, lets it claim the freed places
            await().atMost(Duration.ofSeconds(15)).until(() -> queue.stats().completed() == 4);
        } finally {
            live.close();
        }
        assertThat(events().stream().filter(e -> e.name().equals("expired"))).as("two leases reaped").hasSize(2);
    }
}
