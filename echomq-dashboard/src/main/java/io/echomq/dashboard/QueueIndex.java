package io.echomq.dashboard;

import io.echomq.queue.ErrorGroup;
import io.echomq.queue.ErrorGroups;
import io.echomq.queue.QueueClient;
import io.echomq.queue.QueueDirectory;
import io.echomq.queue.QueueOperations;
import io.echomq.queue.ThroughputHistory;
import io.echomq.queue.WorkerDirectory;
import io.echomq.queue.WorkerInfo;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.SortedSet;
import java.util.concurrent.TimeUnit;

/**
 * The queues the dashboard knows, and the door to one of them.
 *
 * <ol>
 *   <li>Keeps the last {@link QueueDirectory#names()} walk, renewed in the background once it is
 *       older than {@link #MAX_AGE}: the walk visits every key of the server (a second or more at
 *       a few million keys), so no view waits for it longer than {@link #FIRST_WAIT}: the first
 *       view starts the first walk, in the background, and waits for it at most that long; a
 *       view that finds it still running gets no walk, which its page says. At most one walk
 *       runs at a time.</li>
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
    /** The longest a view waits for the first walk before it is shown without one. */
    static final Duration FIRST_WAIT = Duration.ofMillis(100);

    private final QueueClient client;
    private final QueueDirectory directory;
    private final WorkerDirectory workers;
    private final ThroughputHistory history;
    private final ErrorGroups errors;
    private final long maxAgeMillis;
    private final long firstWaitNanos;
    private Walk last;                 // guarded by this
    private boolean refreshing;        // guarded by this
    private long startedNanos;         // guarded by this: when the running walk started
    private RuntimeException failure;  // guarded by this: why the first walk failed, for the next view

    /** One walk: the names found, how long it took, and when it ended (System.nanoTime). */
    record Walk(SortedSet<String> names, long tookMillis, long endedNanos) {
        long ageMillis() {
            return (System.nanoTime() - endedNanos) / 1_000_000;
        }
    }

    /** @param maxAge how long a walk's answer is shown; {@link #MAX_AGE} but in tests */
    QueueIndex(QueueClient client, Duration maxAge) {
        this(client, maxAge, FIRST_WAIT);
    }

    /**
     * @param maxAge    how long a walk's answer is shown; {@link #MAX_AGE} but in tests; zero walks at
     *                  every view, which then waits for its walk
     * @param firstWait the longest a view waits for the first walk; {@link #FIRST_WAIT} but in tests
     */
    QueueIndex(QueueClient client, Duration maxAge, Duration firstWait) {
        this.client = client;
        this.directory = QueueDirectory.of(client);
        this.workers = WorkerDirectory.of(client);
        this.history = ThroughputHistory.of(client);
        this.errors = ErrorGroups.of(client);
        this.maxAgeMillis = maxAge.toMillis();
        this.firstWaitNanos = firstWait.toNanos();
    }

    /**
     * @return the last walk; empty while the first walk runs past {@link #FIRST_WAIT}. A view that
     *     finds the last walk older than the maximum age gets it while one new walk runs in the
     *     background for the next views; with a maximum age of zero every view waits for a new walk.
     * @throws RuntimeException what the first walk failed with, once, so that the view reports it;
     *     the next view walks again
     */
    synchronized Optional<Walk> walk() {
        if (maxAgeMillis == 0) {
            last = scan();
            return Optional.of(last);
        }
        if (last == null) {
            if (failure != null && !refreshing) {
                RuntimeException e = failure;
                failure = null;
                throw e;
            }
            if (!refreshing) {
                launch();
            }
            long end = System.nanoTime() + firstWaitNanos;
            while (last == null && refreshing) {
                long left = end - System.nanoTime();
                if (left <= 0) {
                    return Optional.empty();
                }
                try {
                    TimeUnit.NANOSECONDS.timedWait(this, left);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return Optional.empty();
                }
            }
            return Optional.ofNullable(last);
        }
        if (last.ageMillis() >= maxAgeMillis && !refreshing) {
            launch();
        }
        return Optional.of(last);
    }

    /** @return how long the walk that runs now has run, in ms */
    synchronized long runningMillis() {
        return refreshing ? (System.nanoTime() - startedNanos) / 1_000_000 : 0;
    }

    /** Starts a walk on a thread of its own; the caller holds this object's monitor. */
    private void launch() {
        refreshing = true;
        startedNanos = System.nanoTime();
        Thread t = new Thread(() -> {
            Walk fresh = null;
            RuntimeException failed = null;
            try {
                fresh = scan();
            } catch (RuntimeException e) {
                failed = e;
                LOG.log(System.Logger.Level.WARNING, "the walk of the keyspace for queues failed: " + e.getMessage());
            } finally {
                synchronized (this) {
                    if (fresh != null) {
                        last = fresh;
                    } else if (last == null) {
                        failure = failed;
                    }
                    refreshing = false;
                    notifyAll();
                }
            }
        }, "emq-dashboard-walk");
        t.setDaemon(true);
        t.start();
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
     * @return the server's clock now (one {@code TIME}), to tell how long a job has run
     * @throws io.echomq.RedisCommandException if Redis fails
     */
    java.time.Instant serverTime() {
        return workers.serverTime();
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

    /** @return the server's audit trail, read and written through this index's client */
    io.echomq.audit.AuditTrail auditTrail() {
        return client.auditTrail();
    }

    /**
     * @param name an opened queue's name
     * @return its top {@value ErrorsPanel#SHOWN} errors, the most counted first
     */
    List<ErrorGroup> topErrors(String name) {
        return errors.top(name, ErrorsPanel.SHOWN);
    }
}
