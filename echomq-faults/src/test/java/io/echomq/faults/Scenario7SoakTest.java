package io.echomq.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.echomq.RedisCommandException;
import io.echomq.lock.Lease;
import io.echomq.lock.LockClient;
import io.echomq.lock.LockWaitTimeoutException;
import io.echomq.queue.AckOutcome;
import io.echomq.queue.EnqueueResult;
import io.echomq.queue.Job;
import io.echomq.queue.JobRequest;
import io.echomq.queue.Queue;
import io.echomq.queue.QueueClient;
import io.echomq.queue.QueueStats;
import io.echomq.queue.Worker;
import io.echomq.queue.WorkerListener;
import io.echomq.testkit.FaultProxy;
import io.echomq.testkit.LockHistory;
import io.echomq.testkit.QueueHistory;
import io.echomq.server.RawRedis;
import io.echomq.testkit.RedisExtension;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Scenario 7: a soak. A steady producer (100 jobs/s), two workers and a lock contender run behind a
 * {@link FaultProxy} that cuts, black-holes and delays their connections every few seconds. Every 5 s a sample
 * records Redis memory ({@code INFO memory}), the key count ({@code DBSIZE}), this JVM's heap after a GC, and the
 * job and lock latencies of the last window. At the end: nothing lost (both history checkers), and no growth: the
 * second half's mean of each series stays within a tolerance of the first half's (see docs/reliability.md).
 *
 * <p>Runs 90 s by default, so CI stays within budget; {@code -Demq.soak.seconds=N} or {@code EMQ_SOAK_SECONDS=N}
 * runs it longer.
 */
class Scenario7SoakTest {
    @RegisterExtension
    static final RedisExtension REDIS = new RedisExtension();

    private static final String QUEUE = "s7";
    private static final String RESOURCE = "s7-lock";
    private static final int JOBS_PER_TICK = 10;     // every 100 ms: 100 jobs/s
    private static final Duration RETAIN = Duration.ofSeconds(5);
    private static final long SAMPLE_EVERY_MS = 5_000;

    /** One sample of the resources and latencies. */
    private record Sample(long second, long usedMemory, long keys, long heap, long jobP50, long jobP99,
                          long lockP99) {
    }

    private static long seconds() {
        String env = System.getenv("EMQ_SOAK_SECONDS");
        long fromEnv = env == null || env.isBlank() ? 90 : Long.parseLong(env.trim());
        return Long.getLong("emq.soak.seconds", fromEnv);
    }

    @Test
    @Timeout(value = 4, unit = TimeUnit.HOURS)   // the real bound is seconds() + the drain wait below
    void steadyLoadWithFaultsLosesNothingAndDoesNotGrow() throws Exception {
        long seconds = seconds();
        QueueHistory jobs = new QueueHistory();
        LockHistory locksHistory = new LockHistory();
        ConcurrentLinkedQueue<Long> jobLatencies = new ConcurrentLinkedQueue<>();
        ConcurrentLinkedQueue<Long> lockLatencies = new ConcurrentLinkedQueue<>();
        AtomicBoolean running = new AtomicBoolean(true);
        AtomicLong lockErrors = new AtomicLong();
        List<Sample> samples = new ArrayList<>();
        long cuts = 0;
        long blackHoles = 0;
        long delays = 0;
        try (FaultProxy proxy = FaultProxy.start(REDIS.server());
             QueueClient producer = QueueClient.create(REDIS.url());
             QueueClient workers = QueueClient.builder().redisUrl(proxy.url()).retainCompleted(RETAIN)
                     .commandTimeout(Duration.ofSeconds(2)).build();
             LockClient locks = LockClient.builder().redisUrl(proxy.url()).commandTimeout(Duration.ofSeconds(2))
                     .pollInterval(Duration.ofMillis(50)).build();
             RawRedis raw = RawRedis.connect(REDIS.server().host(), REDIS.server().port())) {
            Queue q = producer.queue(QUEUE);
            WorkerListener listener = new WorkerListener() {
                @Override
                public void onSettled(Job job, AckOutcome outcome, Throwable error) {
                    jobs.settled(job.id(), job.attempt(), outcome.name());
                }
            };
            List<Worker> running2 = new ArrayList<>();
            for (int i = 0; i < 2; i++) {
                running2.add(workers.worker(QUEUE, job -> {
                    jobs.claimed(job.id(), job.attempt());
                    jobLatencies.add(System.nanoTime() - Long.parseLong(job.payloadUtf8()));
                    TimeUnit.MILLISECONDS.sleep(2);
                }).concurrency(4).lease(Duration.ofSeconds(1)).maintenanceInterval(Duration.ofMillis(500))
                        .idlePoll(Duration.ofMillis(500)).listener(listener).start());
            }
            Thread contender = new Thread(() -> lockLoop(locks, locksHistory, lockLatencies, lockErrors, running),
                    "s7-locker");
            contender.start();

            long start = System.nanoTime();
            long end = start + TimeUnit.SECONDS.toNanos(seconds);
            long nextFault = start + TimeUnit.SECONDS.toNanos(3);
            long nextSample = start + TimeUnit.MILLISECONDS.toNanos(SAMPLE_EVERY_MS);
            ThreadLocalRandom random = ThreadLocalRandom.current();
            while (System.nanoTime() < end) {
                String now = Long.toString(System.nanoTime());
                jobs.enqueued(q.enqueueAll(new ArrayList<>(Collections.nCopies(JOBS_PER_TICK, JobRequest.of(now))))
                        .stream().map(EnqueueResult::id).toList());
                if (System.nanoTime() >= nextFault) {
                    int kind = random.nextInt(10);
                    if (kind < 6) {
                        proxy.cutAll();
                        cuts++;
                    } else if (kind < 8) {
                        proxy.blackHole(Duration.ofMillis(500));   // shorter than the 1 s lease: renewals recover
                        blackHoles++;
                    } else {
                        proxy.delay(Duration.ofMillis(20));
                        delays++;
                    }
                    nextFault = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(random.nextLong(3_000, 6_000));
                } else if (random.nextInt(10) == 0) {
                    proxy.delay(Duration.ZERO);   // delays last about a second
                }
                if (System.nanoTime() >= nextSample) {
                    samples.add(sample(raw, start, jobLatencies, lockLatencies));
                    nextSample += TimeUnit.MILLISECONDS.toNanos(SAMPLE_EVERY_MS);
                }
                TimeUnit.MILLISECONDS.sleep(100);   // the producer's own pace, not a wait for a condition
            }
            proxy.heal();
            running.set(false);
            contender.join(TimeUnit.SECONDS.toMillis(30));
            await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(200)).until(() -> {
                QueueStats s = q.stats();
                return s.drained() && s.completed() + s.dead() >= jobs.enqueuedIds().size();
            });
            for (Worker w : running2) {
                w.shutdown(Duration.ofSeconds(10));
            }
            AtomicLong unreported = new AtomicLong();
            QueueHistory.Report report = jobs.check(finalsOrDone(jobs, q.stats(), unreported));
            LockHistory.Report lockReport = locksHistory.check();
            Growth keys = growth(samples, Sample::keys);
            Growth memory = growth(samples, Sample::usedMemory);
            Growth heap = growth(samples, Sample::heap);
            Reliability.report(7, Reliability.figures("name", "soak", "seconds", seconds, "jobs",
                    report.enqueued(), "cuts", cuts, "black_holes", blackHoles, "delays", delays, "claims",
                    report.claims(), "done", report.done(), "dead", report.dead(), "lost", report.lost(),
                    "refused", report.refused(), "completions_unreported", unreported.get(),
                    "lock_grants", lockReport.grants(), "lock_errors", lockErrors.get(),
                    "samples", samples.size(), "keys_first_half", keys.first, "keys_second_half", keys.second,
                    "used_memory_first_half", memory.first, "used_memory_second_half", memory.second,
                    "heap_first_half", heap.first, "heap_second_half", heap.second,
                    "job_p99_ms_max", samples.stream().mapToLong(Sample::jobP99).max().orElse(0),
                    "violations", report.violations().size() + lockReport.violations().size()));
            assertThat(report.violations()).isEmpty();
            assertThat(lockReport.violations()).isEmpty();
            assertThat(report.lost()).isZero();
            assertThat(samples).hasSizeGreaterThanOrEqualTo(4);
            // No unbounded growth; the tolerances are explained in docs/reliability.md.
            assertThat(keys.second).isLessThanOrEqualTo(keys.first * 3 / 2 + 200);
            assertThat(memory.second).isLessThanOrEqualTo(memory.first * 5 / 4 + (1 << 20));
            assertThat(heap.second).isLessThanOrEqualTo(heap.first * 3 / 2 + (16L << 20));
        }
    }

    /** Mean of the first and second half of a series, the first sample (warm-up) left out. */
    private record Growth(long first, long second) {
    }

    private static Growth growth(List<Sample> samples, java.util.function.ToLongFunction<Sample> f) {
        List<Sample> s = samples.subList(Math.min(1, samples.size()), samples.size());
        int half = s.size() / 2;
        return new Growth(mean(s.subList(0, half), f), mean(s.subList(half, s.size()), f));
    }

    private static long mean(List<Sample> s, java.util.function.ToLongFunction<Sample> f) {
        return s.isEmpty() ? 0 : (long) s.stream().mapToLong(f).average().orElse(0);
    }

    /**
     * Final states for the check. Completed hashes expire after {@link #RETAIN}, so a job whose hash is gone is done
     * if a completion of it was reported accepted. A completion whose reply was lost on a cut connection is not
     * reported (the worker cannot know), so a missing hash without a report counts as done only when the server's
     * own count proves it: {@code completed + dead} equals the jobs enqueued (each job completes at most once, and
     * nothing else deletes a job hash in this test). Otherwise those jobs stay missing, and the check calls them lost.
     */
    private static Map<String, QueueHistory.Final> finalsOrDone(QueueHistory jobs, QueueStats stats,
                                                                 AtomicLong unreported) throws Exception {
        Map<String, QueueHistory.Final> finals = Reliability.finals(REDIS.url(), QUEUE, jobs.enqueuedIds());
        Map<String, Long> completedBy = jobs.acceptedCompletions();
        boolean countsProveDone = stats.drained() && stats.completed() + stats.dead() == jobs.enqueuedIds().size();
        Map<String, QueueHistory.Final> out = new HashMap<>();
        finals.forEach((id, f) -> {
            if (f.state() != null) {
                out.put(id, f);
            } else if (completedBy.containsKey(id)) {
                out.put(id, new QueueHistory.Final("done", completedBy.get(id)));
            } else if (countsProveDone) {
                unreported.incrementAndGet();
                out.put(id, new QueueHistory.Final("done", 0));
            } else {
                out.put(id, f);
            }
        });
        return out;
    }

    private static Sample sample(RawRedis raw, long start, ConcurrentLinkedQueue<Long> jobLatencies,
                                 ConcurrentLinkedQueue<Long> lockLatencies) {
        String info = (String) raw.call("INFO", "memory");
        long used = 0;
        for (String line : info.split("\r?\n")) {
            if (line.startsWith("used_memory:")) {
                used = Long.parseLong(line.substring("used_memory:".length()).trim());
            }
        }
        long keys = (Long) raw.call("DBSIZE");
        System.gc();
        long heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
        long[] job = drain(jobLatencies);
        long[] lock = drain(lockLatencies);
        Sample s = new Sample(TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start), used, keys, heap,
                percentile(job, 50), percentile(job, 99), percentile(lock, 99));
        System.out.println("SOAK t=" + s.second() + "s used_memory=" + used + " keys=" + keys + " heap=" + heap
                + " job_p50_ms=" + s.jobP50() + " job_p99_ms=" + s.jobP99() + " lock_p99_ms=" + s.lockP99());
        return s;
    }

    private static long[] drain(ConcurrentLinkedQueue<Long> q) {
        List<Long> out = new ArrayList<>();
        Long v;
        while ((v = q.poll()) != null) {
            out.add(v);
        }
        return out.stream().mapToLong(Long::longValue).sorted().toArray();
    }

    private static long percentile(long[] sorted, int p) {
        if (sorted.length == 0) {
            return 0;
        }
        int i = (int) Math.min(sorted.length - 1, Math.ceil(sorted.length * p / 100.0) - 1);
        return TimeUnit.NANOSECONDS.toMillis(sorted[Math.max(0, i)]);
    }

    private static void lockLoop(LockClient locks, LockHistory history, ConcurrentLinkedQueue<Long> latencies,
                                 AtomicLong errors, AtomicBoolean running) {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        try {
            while (running.get()) {
                long sent = System.nanoTime();
                Lease lease;
                try {
                    lease = locks.acquire(RESOURCE, Duration.ofMillis(500), Duration.ofSeconds(1));
                } catch (LockWaitTimeoutException | RedisCommandException e) {
                    errors.incrementAndGet();
                    TimeUnit.MILLISECONDS.sleep(random.nextLong(10, 50));   // back off, as a caller would
                    continue;
                }
                long granted = System.nanoTime();
                latencies.add(granted - sent);
                long stopped = lease.validUntilNanos();
                try {
                    TimeUnit.MILLISECONDS.sleep(random.nextLong(1, 10));
                    stopped = Math.min(stopped, System.nanoTime());
                    lease.release();
                } catch (RedisCommandException e) {
                    errors.incrementAndGet();
                } finally {
                    history.grant(new LockHistory.Grant("soak", lease.fence(), sent, granted, stopped));
                }
                TimeUnit.MILLISECONDS.sleep(random.nextLong(5, 20));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
