package io.echomq.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.echomq.RedisCommandException;
import io.echomq.lock.Lease;
import io.echomq.lock.LockClient;
import io.echomq.lock.LockWaitTimeoutException;
import io.echomq.queue.SettleOutcome;
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
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Scenario 7: a soak. A steady producer (100 jobs/s), two workers and two lock contenders (each through its own
 * client) run behind a {@link FaultProxy} that cuts, black-holes and delays their connections every few seconds.
 * Completed jobs are kept for the whole run, so every job's final state is read from its own hash and the
 * stale-completion check compares each reported completion with what the server kept. Every 5 s a sample records
 * Redis memory ({@code INFO memory}), the key count ({@code DBSIZE}), the jobs enqueued so far, this JVM's heap after
 * a GC, and the job and lock latencies of the last window.
 *
 * <p>At the end: nothing lost and nothing dead (no handler fails), no double grant between the contenders (both
 * history checkers), and no growth, bounded in absolute terms (see docs/reliability.md):
 * <ul>
 *   <li>keys: every enqueued job keeps exactly one hash for the run once claimed, and waits as one field of a
 *       pending bucket before (each bucket is counted as the jobs it holds), so that count less the jobs
 *       enqueued counts everything else; it must stay within {@link #OTHER_KEYS_SPREAD} of its first value;</li>
 *   <li>Redis memory: the least-squares slope of {@code used_memory} against jobs enqueued may not exceed the
 *       measured {@code MEMORY USAGE} of a kept job hash by more than {@link #BYTES_PER_JOB_MARGIN} bytes;</li>
 *   <li>heap: the slope of this JVM's heap after GC against jobs enqueued stays under {@link #HEAP_PER_JOB} bytes
 *       (the test's own history of each job is part of it).</li>
 * </ul>
 *
 * <p>Runs 90 s by default, so CI stays within budget; {@code -Demq.soak.seconds=N} or {@code EMQ_SOAK_SECONDS=N}
 * runs it longer.
 */
@Tag("soak")
class Scenario7SoakTest {
    @RegisterExtension
    static final RedisExtension REDIS = new RedisExtension();

    private static final String QUEUE = "s7";
    private static final String RESOURCE = "s7-lock";
    private static final int JOBS_PER_TICK = 10;     // every 100 ms: 100 jobs/s
    private static final long SAMPLE_EVERY_MS = 5_000;
    private static final int CONTENDERS = 2;
    /** How far the count of keys other than job hashes may move: two workers' leases and queue structures. */
    private static final long OTHER_KEYS_SPREAD = 40;
    /** Bytes per job Redis may use beyond a kept job hash's own {@code MEMORY USAGE} (dict and expiry entries). */
    private static final long BYTES_PER_JOB_MARGIN = 128;
    /** Most heap bytes per job; the test's own history keeps about 0.5 KiB per job. */
    private static final long HEAP_PER_JOB = 1_024;

    /** One sample of the resources and latencies. */
    private record Sample(long second, long enqueued, long usedMemory, long keys, long heap, long jobP50,
                          long jobP99, long lockP99) {
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
             QueueClient workers = QueueClient.builder().redisUrl(proxy.url())
                     .retainCompleted(Duration.ofSeconds(seconds + 3_600))   // kept for the whole run and check
                     .commandTimeout(Duration.ofSeconds(2)).build();
             LockClient locks = lockClient(proxy);
             LockClient locks2 = lockClient(proxy);
             RawRedis raw = RawRedis.connect(REDIS.server().host(), REDIS.server().port())) {
            Queue q = producer.queue(QUEUE);
            WorkerListener listener = new WorkerListener() {
                @Override
                public void onSettled(Job job, SettleOutcome outcome, Throwable error) {
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
            List<Thread> contenders = new ArrayList<>();
            List<LockClient> lockClients = List.of(locks, locks2);
            for (int i = 0; i < CONTENDERS; i++) {
                LockClient c = lockClients.get(i);
                String holder = "locker-" + i;
                Thread t = new Thread(() -> lockLoop(c, holder, locksHistory, lockLatencies, lockErrors, running),
                        "s7-" + holder);
                t.start();
                contenders.add(t);
            }

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
                    samples.add(sample(raw, start, jobs.enqueuedIds().size(), jobLatencies, lockLatencies));
                    nextSample += TimeUnit.MILLISECONDS.toNanos(SAMPLE_EVERY_MS);
                }
                TimeUnit.MILLISECONDS.sleep(100);   // the producer's own pace, not a wait for a condition
            }
            proxy.heal();
            running.set(false);
            for (Thread t : contenders) {
                t.join(TimeUnit.SECONDS.toMillis(30));
            }
            await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(200)).until(() -> {
                QueueStats s = q.stats();
                return s.drained() && s.completed() + s.dead() >= jobs.enqueuedIds().size();
            });
            for (Worker w : running2) {
                w.shutdown(Duration.ofSeconds(10));
            }
            QueueHistory.Report report = jobs.check(Reliability.finals(REDIS.url(), QUEUE, jobs.enqueuedIds()));
            LockHistory.Report lockReport = locksHistory.check();
            long hashBytes = meanJobHashBytes(raw, jobs.enqueuedIds());
            List<Sample> steady = samples.subList(Math.min(1, samples.size()), samples.size());   // warm-up left out
            long otherKeysMin = steady.stream().mapToLong(x -> x.keys() - x.enqueued()).min().orElse(0);
            long otherKeysMax = steady.stream().mapToLong(x -> x.keys() - x.enqueued()).max().orElse(0);
            double memoryPerJob = slope(steady, Sample::usedMemory);
            double heapPerJob = slope(steady, Sample::heap);
            Reliability.report(7, Reliability.figures("name", "soak", "seconds", seconds, "jobs",
                    report.enqueued(), "cuts", cuts, "black_holes", blackHoles, "delays", delays, "claims",
                    report.claims(), "done", report.done(), "dead", report.dead(), "lost", report.lost(),
                    "refused", report.refused(), "completions_reported", report.completed(),
                    "completions_unanswered", report.unreported(),
                    "lock_contenders", CONTENDERS, "lock_grants", lockReport.grants(),
                    "lock_errors", lockErrors.get(), "samples", samples.size(),
                    "other_keys_min", otherKeysMin, "other_keys_max", otherKeysMax,
                    "job_hash_bytes", hashBytes, "used_memory_bytes_per_job", Math.round(memoryPerJob),
                    "heap_bytes_per_job", Math.round(heapPerJob),
                    "job_p99_ms_max", samples.stream().mapToLong(Sample::jobP99).max().orElse(0),
                    "violations", report.violations().size() + lockReport.violations().size()));
            assertThat(report.violations()).isEmpty();
            assertThat(lockReport.violations()).isEmpty();
            assertThat(report.lost()).isZero();
            assertThat(report.dead()).as("dead jobs, where no handler fails").isZero();
            assertThat(report.done()).isEqualTo(report.enqueued());
            assertThat(lockReport.grants()).as("grants to be checked for overlap").isGreaterThan(100);
            assertThat(samples).hasSizeGreaterThanOrEqualTo(4);
            // No growth, in absolute terms; the bounds are explained in docs/reliability.md.
            assertThat(otherKeysMax - otherKeysMin).as("spread of keys other than job hashes")
                    .isLessThanOrEqualTo(OTHER_KEYS_SPREAD);
            assertThat(memoryPerJob).as("Redis bytes per job, a kept job hash being %d", hashBytes)
                    .isLessThanOrEqualTo(hashBytes + BYTES_PER_JOB_MARGIN);
            assertThat(heapPerJob).as("heap bytes per job").isLessThanOrEqualTo(HEAP_PER_JOB);
        }
    }

    private static LockClient lockClient(FaultProxy proxy) {
        return LockClient.builder().redisUrl(proxy.url()).commandTimeout(Duration.ofSeconds(2))
                .pollInterval(Duration.ofMillis(50)).build();
    }

    /** The least-squares slope of a series against the jobs enqueued at each sample, in units per job. */
    private static double slope(List<Sample> s, java.util.function.ToLongFunction<Sample> f) {
        int n = s.size();
        if (n < 2) {
            return 0;
        }
        double mx = s.stream().mapToLong(Sample::enqueued).average().orElse(0);
        double my = s.stream().mapToLong(f).average().orElse(0);
        double num = 0;
        double den = 0;
        for (Sample x : s) {
            num += (x.enqueued() - mx) * (f.applyAsLong(x) - my);
            den += (x.enqueued() - mx) * (x.enqueued() - mx);
        }
        return den == 0 ? 0 : num / den;
    }

    /** The mean {@code MEMORY USAGE} of up to 200 job hashes spread over the run. */
    private static long meanJobHashBytes(RawRedis raw, List<String> ids) {
        long sum = 0;
        int n = 0;
        int step = Math.max(1, ids.size() / 200);
        for (int i = 0; i < ids.size(); i += step) {
            Object bytes = raw.call("MEMORY", "USAGE", "emq:{" + QUEUE + "}:job:" + ids.get(i), "SAMPLES", "0");
            if (bytes instanceof Long b) {
                sum += b;
                n++;
            }
        }
        return n == 0 ? 0 : sum / n;
    }

    private static Sample sample(RawRedis raw, long start, long enqueued, ConcurrentLinkedQueue<Long> jobLatencies,
                                 ConcurrentLinkedQueue<Long> lockLatencies) {
        String info = (String) raw.call("INFO", "memory");
        long used = 0;
        for (String line : info.split("\r?\n")) {
            if (line.startsWith("used_memory:")) {
                used = Long.parseLong(line.substring("used_memory:".length()).trim());
            }
        }
        long keys = jobEquivalentKeys(raw);
        System.gc();
        long heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
        long[] job = drain(jobLatencies);
        long[] lock = drain(lockLatencies);
        Sample s = new Sample(TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start), enqueued, used, keys, heap,
                percentile(job, 50), percentile(job, 99), percentile(lock, 99));
        System.out.println("SOAK t=" + s.second() + "s enqueued=" + enqueued + " used_memory=" + used + " keys="
                + keys + " heap=" + heap
                + " job_p50_ms=" + s.jobP50() + " job_p99_ms=" + s.jobP99() + " lock_p99_ms=" + s.lockP99());
        return s;
    }

    /**
     * @return {@code DBSIZE}, with each pending bucket counted as the jobs it holds: a job with the default
     *     options waits as a field of {@code emq:{q}:pb:<n>} until its claim writes its hash (docs/protocol.md,
     *     "Pending buckets"), so every enqueued job counts once, whether it has its hash yet or not
     */
    private static long jobEquivalentKeys(RawRedis raw) {
        long keys = (Long) raw.call("DBSIZE");
        String cursor = "0";
        do {
            List<?> page = (List<?>) raw.call("SCAN", cursor, "MATCH", "emq:{" + QUEUE + "}:pb:*", "COUNT", "1000");
            cursor = page.get(0).toString();
            for (Object bucket : (List<?>) page.get(1)) {
                keys += (Long) raw.call("HLEN", bucket.toString()) - 1;
            }
        } while (!cursor.equals("0"));
        return keys;
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

    private static void lockLoop(LockClient locks, String holder, LockHistory history, ConcurrentLinkedQueue<Long> latencies,
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
                    history.grant(new LockHistory.Grant(holder, lease.fence(), sent, granted, stopped));
                }
                TimeUnit.MILLISECONDS.sleep(random.nextLong(5, 20));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
