package io.echomq.bench;

import io.echomq.queue.JobRequest;
import io.echomq.queue.Queue;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

/**
 * The producers of {@code emq bench soak}: keep one queue fed at the rate its worker drains it,
 * with its pending count bounded. Each producer thread reads the pending count, and while it is
 * under the top-up mark enqueues a bulk call of {@code batch} small jobs; above the mark it waits
 * a millisecond and reads again. So the queue never runs dry (the worker runs at full rate) and
 * never holds more than about the mark plus a bulk call per producer (the pending jobs do not
 * grow the memory). A producer that fails stops the others; {@link #close} rethrows its error.
 */
final class SoakFeeder implements AutoCloseable {
    private final Queue queue;
    private final int batch;
    private final long topUp;
    private final List<Thread> threads = new ArrayList<>();
    private final AtomicReference<RuntimeException> failure = new AtomicReference<>();
    private volatile boolean running = true;

    private SoakFeeder(Queue queue, int batch, long topUp) {
        this.queue = queue;
        this.batch = batch;
        this.topUp = topUp;
    }

    /**
     * Starts {@code producers} daemon threads feeding {@code queue}.
     *
     * @param batch jobs per bulk enqueue call
     * @param topUp the pending count under which a producer enqueues
     */
    static SoakFeeder start(Queue queue, int producers, int batch, long topUp) {
        SoakFeeder f = new SoakFeeder(queue, batch, topUp);
        for (int i = 0; i < producers; i++) {
            Thread t = new Thread(f::feed, "emq-soak-producer-" + i);
            t.setDaemon(true);
            f.threads.add(t);
            t.start();
        }
        return f;
    }

    /** @return the error that stopped a producer, or null while none failed */
    RuntimeException failure() {
        return failure.get();
    }

    private void feed() {
        List<JobRequest> chunk = new ArrayList<>(batch);
        byte[] body = "{\"soak\":1}".getBytes(StandardCharsets.UTF_8);
        for (int i = 0; i < batch; i++) {
            chunk.add(JobRequest.of(body));
        }
        try {
            while (running) {
                if (queue.stats().pending() < topUp) {
                    queue.enqueueAll(chunk);
                } else {
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
                }
            }
        } catch (RuntimeException e) {
            failure.compareAndSet(null, e);
            running = false;
        }
    }

    /**
     * Stops the producers and waits for them.
     *
     * @throws RuntimeException the error that stopped a producer, if one failed
     */
    @Override
    public void close() throws InterruptedException {
        running = false;
        for (Thread t : threads) {
            t.join(TimeUnit.SECONDS.toMillis(30));
        }
        RuntimeException e = failure.get();
        if (e != null) {
            throw e;
        }
    }
}
