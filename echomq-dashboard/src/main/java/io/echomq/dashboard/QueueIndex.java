package io.echomq.dashboard;

import io.echomq.queue.QueueClient;
import io.echomq.queue.QueueDirectory;
import io.echomq.queue.QueueOperations;
import io.echomq.queue.ThroughputHistory;
import io.echomq.queue.WorkerDirectory;
import io.echomq.queue.WorkerInfo;
import java.util.List;
import java.time.Duration;
import java.util.SortedSet;

/**
 * The queues the dashboard knows, and the door to one of them.
 *
 * <ol>
 *   <li>Keeps the last {@link QueueDirectory#names()} walk, renewed in the background once it is
 *       older than {@link #MAX_AGE}: the walk visits every key of the server (a second or so at a
 *       million keys), so no view but the first may wait for it. At most one walk runs at a
 *       time.</li>
 *   <li>Opens a queue named in a request ({@link #open}): a bad name is a 400, a name no stored
 *       queue has a 404, so that no page reads (or an action writes) a queue that is not there.</li>
 *   <li>Reads a queue's live workers and its throughput history, from the records the workers keep
 *       ({@link WorkerDirectory}, {@link ThroughputHistory}).</li>
 * </ol>
 */
final class QueueIndex {
    private static final System.Logger LOG = System.getLogger(QueueIndex.class.getName());
    /** How long a walk's answer is shown before the next view walks again (the default). */
    static final Duration MAX_AGE = Duration.ofSeconds(10);

    private final QueueClient client;
    private final QueueDirectory directory;
    private final WorkerDirectory workers;
    private final ThroughputHistory history;
    private final long maxAgeMillis;
    private Walk last;
    private boolean refreshing;

    /** One walk: the names found, how long it took, and when it ended (System.nanoTime). */
    record Walk(SortedSet<String> names, long tookMillis, long endedNanos) {
        long ageMillis() {
            return (System.nanoTime() - endedNanos) / 1_000_000;
        }
    }

    /** @param maxAge how long a walk's answer is shown; {@link #MAX_AGE} but in tests */
    QueueIndex(QueueClient client, Duration maxAge) {
        this.client = client;
        this.directory = QueueDirectory.of(client);
        this.workers = WorkerDirectory.of(client);
        this.history = ThroughputHistory.of(client);
        this.maxAgeMillis = maxAge.toMillis();
    }

    /**
     * @return the last walk; the first view (and, with a maximum age of zero, every view) waits for
     *     a new one, and a view that finds the last walk older than the maximum age gets it
     *     while one new walk runs in the background for the next views, so that no view but the
     *     first pays for the walk of a large keyspace
     */
    Walk walk() {
        Walk seen;
        synchronized (this) {
            seen = last;
            if (seen == null || maxAgeMillis == 0) {
                last = scan();
                return last;
            }
            if (seen.ageMillis() < maxAgeMillis || refreshing) {
                return seen;
            }
            refreshing = true;
        }
        Thread t = new Thread(() -> {
            try {
                Walk fresh = scan();
                synchronized (this) {
                    last = fresh;
                }
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.WARNING, "the walk of the keyspace for queues failed: " + e.getMessage());
            } finally {
                synchronized (this) {
                    refreshing = false;
                }
            }
        }, "emq-dashboard-walk");
        t.setDaemon(true);
        t.start();
        return seen;
    }

    private Walk scan() {
        long start = System.nanoTime();
        SortedSet<String> names = directory.names();
        long end = System.nanoTime();
        return new Walk(names, (end - start) / 1_000_000, end);
    }

    /** @return how long a walk's answer is shown, in seconds */
    long maxAgeSeconds() {
        return maxAgeMillis / 1000;
    }

    /**
     * @param name a queue's name from a request
     * @return the queue, plain or sharded, as stored
     * @throws HttpError 400 for a name no queue can have, 404 for one no stored queue has
     */
    QueueOperations open(String name) {
        boolean exists;
        try {
            exists = directory.exists(name);
        } catch (IllegalArgumentException e) {
            throw HttpError.badRequest("not a queue name: " + e.getMessage());
        }
        if (!exists) {
            throw HttpError.notFound("no queue named '" + name + "' on this server");
        }
        return client.open(name);
    }

    /**
     * @param name a queue's name from a request
     * @return the queue's schedules (a sharded queue's are its partition 0's)
     * @throws HttpError 400 for a name no queue can have, 404 for one no stored queue has
     */
    io.echomq.queue.Schedules schedules(String name) {
        open(name);
        return client.schedules(name);
    }

    /**
     * @param name a queue's name from a walk or an opened queue (not checked again)
     * @return its live workers; none for a name that is gone or that no queue can have
     */
    List<WorkerInfo> workers(String name) {
        try {
            return workers.list(name);
        } catch (IllegalArgumentException | IllegalStateException e) {
            return List.of();
        }
    }

    /**
     * @param name an opened queue's name
     * @return its throughput over the last {@value ThroughputChart#MINUTES} whole minutes
     */
    ThroughputHistory.Window throughput(String name) {
        return history.lastMinutes(name, ThroughputChart.MINUTES);
    }
}
