package io.echomq.bench;

import io.echomq.bench.loop.LoadLoop;
import io.echomq.queue.Job;
import io.echomq.queue.JobRequest;
import io.echomq.queue.Queue;
import io.echomq.queue.QueueClient;
import io.echomq.queue.QueueEventSettings;
import io.echomq.queue.QueueLayout;
import io.echomq.queue.SettleOutcome;
import io.echomq.queue.Worker;
import io.echomq.queue.WorkerListener;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Our side of {@code emq bench queue}, on one {@link QueueClient}:
 *
 * <ol>
 *   <li>{@link #compared}: what BullMQ measures too, each round on fresh queues: a warm-up round
 *       of a fifth of the jobs, the bulk enqueue with the Redis bytes per pending job, then one
 *       worker draining them;</li>
 *   <li>{@link #idle}: the commands per second a started worker sends to an empty queue;</li>
 *   <li>{@link #depth}: claim+complete+enqueue cycles per second at depth 1,000 and at a deep
 *       depth, in alternating windows.</li>
 * </ol>
 *
 * <p>Every queue is opened in the asked pending layout and with the asked events setting.
 */
final class OurQueue {
    static final Duration LEASE = QueueBench.LEASE;
    static final int SHALLOW = QueueBench.SHALLOW;

    /** The settings of a run, as {@link QueueBench} parsed them. */
    record Settings(int batch, int concurrency, QueueLayout layout, boolean events, int depthThreads, int seconds,
                    int idleSeconds) {
    }

    /**
     * The figures of {@link #compared}: rates, bytes per job, the CPU per job of the enqueue and
     * of the drain, and the commands the server ran during the drain.
     */
    record Compared(double enqueuePerS, double bytesPerJob, double processPerS, PhaseCpu enqueueCpu,
                    PhaseCpu processCpu, java.util.Map<String, CommandStats.Stat> processCommands) {
    }

    private final QueueClient client;
    private final BenchServer server;
    private final Settings settings;
    private final PrintWriter err;
    /** What the last {@link #process} measured, from its worker's start until its last job settled. */
    private PhaseCpu.Measured lastDrain;

    OurQueue(QueueClient client, BenchServer server, Settings settings, PrintWriter err) {
        this.client = client;
        this.server = server;
        this.settings = settings;
        this.err = err;
    }

    /** Warm-up, bulk enqueue of {@code jobs} on queue {@code name}, bytes per job, then the drain. */
    Compared compared(String name, int jobs) throws InterruptedException {
        int warm = Math.max(1, jobs / 5);
        progress("bench: echomq, warm-up round of %,d jobs…", warm);
        enqueue(open(name + "-warm"), warm);
        process(name + "-warm", warm);
        server.deleteKeys("emq:{" + name + "-warm}");

        progress("bench: echomq, bulk enqueue of %,d jobs…", jobs);
        Queue q = open(name);
        progress("bench: echomq, pending layout %s (read back from the queue)", q.layout().wireName());
        server.awaitLazyFree();
        long before = server.infoLong("memory", "used_memory");
        PhaseCpu.Start enqueueStart = PhaseCpu.start(server);
        double enqueuePerS = enqueue(q, jobs);
        PhaseCpu enqueueCpu = enqueueStart.stop(jobs).cpu();
        long after = server.infoLong("memory", "used_memory");
        double bytesPerJob = (after - before) / (double) jobs;

        progress("bench: echomq, one worker at concurrency %d drains them…", settings.concurrency());
        double processPerS = process(name, jobs);
        server.deleteKeys("emq:{" + name + "}");
        return new Compared(enqueuePerS, bytesPerJob, processPerS, enqueueCpu, lastDrain.cpu(), lastDrain.commands());
    }

    /** @return the commands per second of a started worker on the empty queue {@code name} */
    double idle(String name) throws InterruptedException {
        progress("bench: echomq, an idle worker watched for %d s…", settings.idleSeconds());
        try (Worker worker = client.worker(name, job -> { }).start()) {
            TimeUnit.SECONDS.sleep(1);   // let its first claim and subscription settle
            long before = server.infoLong("stats", "total_commands_processed");
            long start = System.nanoTime();
            TimeUnit.SECONDS.sleep(settings.idleSeconds());
            long after = server.infoLong("stats", "total_commands_processed");
            double elapsed = (System.nanoTime() - start) / 1e9;
            return Math.max(0, after - before - 1) / elapsed;   // - 1: our own first INFO
        } finally {
            server.deleteKeys("emq:{" + name + "}");
        }
    }

    /**
     * @return claim cycles per second at depth 1,000 and at {@code depth}: {shallow, deep}. Both
     *     queues stay filled and the windows alternate (shallow, deep, shallow, deep), so that a
     *     change in the machine's load during the run falls on both.
     */
    double[] depth(String name, int depth) throws InterruptedException {
        Queue small = fill(name + "-d" + SHALLOW, SHALLOW);
        Queue big = fill(name + "-d" + depth, depth);
        double[] s = new double[2];
        double[] d = new double[2];
        for (int round = 0; round < 2; round++) {
            s[round] = cycles(small, SHALLOW);
            d[round] = cycles(big, depth);
        }
        server.deleteKeys("emq:{" + name + "-d");
        return new double[] {(s[0] + s[1]) / 2, (d[0] + d[1]) / 2};
    }

    /** @return the queue {@code name}, set to the asked layout and events before anything is enqueued */
    private Queue open(String name) {
        if (!settings.events()) {
            QueueEventSettings.off().store(client, name);
        }
        Queue q = client.queue(name);
        if (settings.layout() != QueueLayout.LIST) {
            q.setLayout(settings.layout());
        }
        return q;
    }

    private double enqueue(Queue q, int n) {
        long start = System.nanoTime();
        List<JobRequest> chunk = new ArrayList<>(settings.batch());
        for (int i = 0; i < n; i++) {
            chunk.add(JobRequest.of(payload(i)));
            if (chunk.size() == settings.batch() || i == n - 1) {
                q.enqueueAll(chunk);
                chunk = new ArrayList<>(settings.batch());
            }
        }
        return n * 1e9 / (System.nanoTime() - start);
    }

    private static byte[] payload(int i) {
        return ("{\"i\":" + i + "}").getBytes(StandardCharsets.UTF_8);
    }

    private double process(String queue, int n) throws InterruptedException {
        CountDownLatch done = new CountDownLatch(n);
        PhaseCpu.Start cpu = PhaseCpu.start(server);
        long start = System.nanoTime();
        try (Worker worker = client.worker(queue, job -> { }).concurrency(settings.concurrency()).lease(LEASE)
                .listener(new WorkerListener() {
                    @Override
                    public void onSettled(Job job, SettleOutcome outcome, Throwable error) {
                        if (outcome == SettleOutcome.COMPLETED) {
                            done.countDown();
                        }
                    }
                }).start()) {
            if (!done.await(600, TimeUnit.SECONDS)) {
                throw new IllegalStateException("the worker did not finish " + n + " jobs in 600 s ("
                        + done.getCount() + " left)");
            }
            double perS = n * 1e9 / (System.nanoTime() - start);
            lastDrain = cpu.stop(n);
            return perS;
        }
    }

    private Queue fill(String queue, int pending) {
        Queue q = open(queue);
        progress("bench: echomq, filling a queue to %,d pending…", pending);
        List<JobRequest> fill = new ArrayList<>(10_000);
        for (int i = 0; i < pending; i++) {
            fill.add(JobRequest.of(payload(i)));
            if (fill.size() == 10_000 || i == pending - 1) {
                q.enqueueAll(fill);
                fill = new ArrayList<>(10_000);
            }
        }
        return q;
    }

    /** Claim+complete+enqueue cycles per second on {@code q}, whose depth each cycle restores. */
    private double cycles(Queue q, int pending) throws InterruptedException {
        progress("bench: echomq, claim+complete+enqueue at depth %,d, %d threads…", pending, settings.depthThreads());
        byte[] body = payload(0);
        LoadLoop.Stats s = LoadLoop.run(settings.depthThreads(), Duration.ofSeconds(1),
                Duration.ofSeconds(Math.max(1, settings.seconds() / 2)), t -> {
                    long start = System.nanoTime();
                    Job job = q.claim(LEASE).orElseThrow(() -> new IllegalStateException("queue ran dry"));
                    long latency = System.nanoTime() - start;
                    if (job.complete() != SettleOutcome.COMPLETED) {
                        throw new IllegalStateException("complete refused for " + job);
                    }
                    q.enqueue(body);
                    return latency;
                });
        return s.perSecond();
    }

    private void progress(String format, Object... args) {
        err.printf(format + "%n", args);
        err.flush();
    }
}
