package io.echomq.queue;

import io.echomq.MonotonicClock;
import io.echomq.RedisCommandException;
import io.echomq.internal.ChannelSignals;
import io.echomq.internal.Checks;
import io.echomq.internal.EngineConnector;
import io.echomq.internal.PermissionCheck;
import io.echomq.internal.QueueKeys;
import io.echomq.internal.RedisEngine;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The entry point of the EchoMQ job queue on one Redis or Valkey server: hands out
 * {@link Queue}s and {@link Worker}s that share its connections.
 *
 * <pre>{@code
 * try (QueueClient client = QueueClient.create("redis://127.0.0.1:6379")) {
 *     client.queue("emails").enqueue("hello");
 *     try (Worker worker = client.worker("emails", job -> send(job.payloadUtf8()))
 *             .concurrency(8).lease(Duration.ofSeconds(30)).start()) {
 *         ...
 *     }
 * }
 * }</pre>
 *
 * <p>Thread-safe; one client serves a whole process. {@link #close()} shuts down the workers it
 * started (gracefully, returning unfinished leases) and then its connections.
 */
public final class QueueClient implements AutoCloseable {
    /** Default largest payload: 1 MiB. */
    public static final int DEFAULT_MAX_PAYLOAD_BYTES = 1 << 20;
    /** Largest payload limit that may be configured: 64 MiB. */
    public static final int MAX_PAYLOAD_LIMIT = 64 << 20;
    /**
     * Default time a completed job's hash is kept (state {@code done}): zero, it is deleted at
     * completion, so the keys a queue holds do not grow with its throughput. The job's result and
     * its completion stay readable in the queue's capped events stream (the {@code completed}
     * event, which {@code awaitResult} reads). A queue keeps completed hashes only when asked:
     * its stored {@link QueueRetention}, or a client's {@link Builder#retainCompleted}.
     */
    public static final Duration DEFAULT_RETAIN_COMPLETED = Duration.ZERO;
    /** Default timeout of one Redis command. */
    public static final Duration DEFAULT_COMMAND_TIMEOUT = RedisEngine.DEFAULT_COMMAND_TIMEOUT;

    private final RedisEngine engine;
    private final QueueContext context;
    private final Map<String, Queue> queues = new ConcurrentHashMap<>();
    private final List<Worker> workers = new CopyOnWriteArrayList<>();
    private final List<Scheduler> schedulers = new CopyOnWriteArrayList<>();

    private QueueClient(Builder b, RedisEngine engine) {
        this.engine = engine;
        this.context = new QueueContext(engine, b.clock, new ChannelSignals(engine), b.instrumentation,
                b.maxPayloadBytes, b.retainCompleted.toMillis(), b.missedFiresAfter.toMillis(), b.replicaWait);
    }

    /**
     * Connects with every default.
     *
     * @param redisUrl {@code redis://[user:password@]host[:port][/db]}, {@code rediss://…}, or a
     *     cluster: {@code redis-cluster://host:port[,host:port…]}, or a master watched by Sentinel:
     *     {@code redis-sentinel://host:port[,host:port…][/db]#master} (see {@code docs/scaling.md})
     * @throws IllegalArgumentException if the URL is malformed
     * @throws RedisCommandException if the server cannot be reached, refuses the credentials, or fails the TLS handshake
     */
    public static QueueClient create(String redisUrl) {
        return builder().redisUrl(redisUrl).build();
    }

    /** @return a builder; {@link Builder#redisUrl} is required */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Opens a plain (unsharded) queue. The first call for a name reads the queue's partition mark
     * (one round trip) and refuses a queue that is sharded: its jobs live in the partitions, where
     * a plain queue of the same name would never see them. {@link #open(String)} opens either kind.
     *
     * @param name 1..256 bytes of UTF-8 without '{', '}', whitespace or control characters, not
     *     ending with {@code #<digits>} (the suffix of a sharded queue's partitions)
     * @return the queue of that name (the same instance for the same name)
     * @throws IllegalArgumentException if the name is invalid
     * @throws IllegalStateException if the queue is sharded (a partition count is stored for it), or
     *     its mark holds something other than a count
     * @throws RedisCommandException if Redis fails while the mark is read
     */
    public Queue queue(String name) {
        QueueKeys keys = QueueKeys.ofUserName(name);
        Queue known = queues.get(keys.queue());
        if (known != null) {
            return known;
        }
        int stored = PartitionSpan.read(context, name);
        if (stored > 0) {
            throw new IllegalStateException("queue " + name + " is sharded into " + stored + " partitions: open it "
                    + "with open(\"" + name + "\") or shardedQueue(\"" + name + "\", " + stored + ")");
        }
        return plain(keys);
    }

    /**
     * Opens a queue as it is stored: the sharded queue when a partition count is stored for
     * {@code name} (spreading enqueues over that count), else the plain queue. One round trip.
     *
     * @param name as for {@link #queue(String)}
     * @return a {@link ShardedQueue} or a {@link Queue}
     * @throws IllegalArgumentException if the name is invalid
     * @throws IllegalStateException if the mark holds something other than a count
     * @throws RedisCommandException if Redis fails
     */
    public QueueOperations open(String name) {
        QueueKeys keys = QueueKeys.ofUserName(name);
        int stored = PartitionSpan.read(context, name);
        if (stored > 0) {
            return ShardedQueue.ofStored(context, name, stored);
        }
        return plain(keys);
    }

    /** @return the plain queue of {@code keys}, the same instance for the same name */
    private Queue plain(QueueKeys keys) {
        return queues.computeIfAbsent(keys.queue(), n -> new Queue(new Partition(context, keys)));
    }

    /**
     * @param name as for {@link #queue(String)}
     * @return the partition count stored for a sharded queue, or 0 for a queue that is not sharded
     * @throws IllegalArgumentException if the name is invalid
     * @throws IllegalStateException if the mark holds something other than a count
     * @throws RedisCommandException if Redis fails
     */
    public int storedPartitions(String name) {
        QueueKeys.ofUserName(name);
        return PartitionSpan.read(context, name);
    }

    /**
     * Starts configuring a worker for the queue of that name as it is stored, as {@link #open(String)}
     * opens it: a sharded queue's worker claims from every partition (as {@link #worker(ShardedQueue,
     * JobHandler)}), a plain queue's from the queue. One round trip, to read the queue's partition mark;
     * nothing runs until {@link Worker.Builder#start()}. A name that is not sharded when the worker is
     * built is worked as a plain queue for the worker's life.
     *
     * @param queueName the queue to work
     * @param handler   the code run for each job
     * @throws IllegalArgumentException if the name is invalid or the handler null
     * @throws IllegalStateException if the queue's partition mark holds something other than a count
     * @throws RedisCommandException if Redis fails while the mark is read
     */
    public Worker.Builder worker(String queueName, JobHandler handler) {
        Checks.notNull(handler, "handler");
        QueueKeys keys = QueueKeys.ofUserName(queueName);
        int stored = PartitionSpan.read(context, queueName);
        QueueFacade queue = stored > 0 ? ShardedQueue.ofStored(context, queueName, stored) : plain(keys);
        return new Worker.Builder(context, workers, queue.claimSource(), handler);
    }

    /**
     * Opens a queue split into {@code partitions} partitions ({@link ShardedQueue}), declaring the
     * count in the queue's mark {@code emq:{<name>}:partitions} (one round trip; keep the instance).
     * A name used sharded must not also be used as a plain {@link #queue(String)}: the two share
     * no keys, so a plain producer's jobs would never reach sharded workers.
     *
     * @param name as for {@link #queue(String)}
     * @param partitions 1..{@link ShardedQueue#MAX_PARTITIONS}; enqueue spreads over this many,
     *     claims span the highest count any client declared
     * @throws IllegalArgumentException if the name or count is invalid
     * @throws IllegalStateException if the mark holds something other than a valid count
     * @throws RedisCommandException if Redis fails
     */
    public ShardedQueue shardedQueue(String name, int partitions) {
        return ShardedQueue.open(context, name, partitions);
    }

    /**
     * Starts configuring a worker that claims from every partition of a sharded queue, starting
     * one partition further on each claim round so that none starves; nothing runs until
     * {@link Worker.Builder#start()}.
     *
     * @param queue   the sharded queue to work, from this client
     * @param handler the code run for each job
     * @throws IllegalArgumentException if either is null, or the queue is another client's
     */
    public Worker.Builder worker(ShardedQueue queue, JobHandler handler) {
        Checks.notNull(queue, "queue");
        Checks.notNull(handler, "handler");
        if (queue.context() != context) {
            throw new IllegalArgumentException("queue " + queue.name() + " belongs to another QueueClient");
        }
        return new Worker.Builder(context, workers, queue.claimSource(), handler);
    }

    /**
     * Opens the recurring schedules of a queue (one round trip: a sharded queue keeps them with its
     * partition 0). Keep the instance.
     *
     * @param queueName as for {@link #queue(String)}; a plain or a sharded queue
     * @throws IllegalArgumentException if the name is invalid
     * @throws IllegalStateException if the queue's partition mark holds something other than a count
     * @throws RedisCommandException if Redis fails
     */
    public Schedules schedules(String queueName) {
        Partition target = QueueFacade.of(open(queueName)).span().get(0);
        return new Schedules(context.maxPayloadBytes(), queueName, target);
    }

    /**
     * Starts a {@link Scheduler} that fires the schedules of these queues, for deployments with no
     * worker of them; {@link #close()} stops it.
     *
     * @param poll the longest sleep between two looks, 1 ms..10 min ({@link Scheduler#DEFAULT_POLL})
     * @param queueNames one or more queue names
     * @throws IllegalArgumentException if the poll or a name is invalid, or no name is given
     * @throws RedisCommandException if Redis fails while the queues are opened
     */
    public Scheduler scheduler(Duration poll, String... queueNames) {
        Scheduler s = Scheduler.start(this::schedules, poll, queueNames);
        schedulers.add(s);
        return s;
    }

    /**
     * @return the server's product and version, for example {@code Redis 7.0.15 (SPUBLISH: yes)}, or
     *     {@code Redis Cluster 7.0.15 (3 masters, SPUBLISH: yes)}
     * @throws io.echomq.RedisCommandException if Redis fails
     */
    public String serverDescription() {
        return engine.describe();
    }

    /**
     * Sets the listener told once when this client's connection to Redis drops and once when it is back (see
     * {@link io.echomq.ConnectionListener}), replacing any earlier one. Closing the client stops the listener
     * first, so its own closes are not reported.
     *
     * @param listener the listener, or {@code null} to stop listening
     */
    public void connectionListener(io.echomq.ConnectionListener listener) {
        engine.connectionListener(listener);
    }

    /**
     * @return the audit trail of this client's server ({@link io.echomq.audit.AuditTrail}), over this client's
     *     connection: valid while the client is open, and the same records whichever client reads them
     */
    public io.echomq.audit.AuditTrail auditTrail() {
        return new io.echomq.internal.AuditStream(engine);
    }

    /** Stops every worker (each with its grace) and scheduler started from this client, then closes the connections. */
    @Override
    public void close() {
        for (Worker w : workers) {
            w.close();
        }
        for (Scheduler s : schedulers) {
            s.close();
        }
        engine.close();
    }

    /** @return what this client's queues, workers and schedules are built with */
    QueueContext context() {
        return context;
    }


    /** Configures a {@link QueueClient}. Not thread-safe; build once. */
    public static final class Builder {
        private String redisUrl;
        private Duration commandTimeout = DEFAULT_COMMAND_TIMEOUT;
        private int maxPayloadBytes = DEFAULT_MAX_PAYLOAD_BYTES;
        private Duration retainCompleted = DEFAULT_RETAIN_COMPLETED;
        private MonotonicClock clock = MonotonicClock.SYSTEM;
        private java.nio.file.Path trustedCertificates;
        private QueueInstrumentation instrumentation = QueueInstrumentation.NONE;
        private Duration missedFiresAfter = Schedules.MISSED_AFTER;
        private ReplicaWait replicaWait;

        private Builder() {
        }

        /**
         * Makes every enqueue of this client wait until {@code replicas} replicas have acknowledged
         * it: after the enqueue scripts of a call ({@code enqueue}, {@code enqueueAll}, a sharded
         * queue's, a schedule's fire excluded), the client sends {@code WAIT replicas timeout} on
         * the same connection. With fewer acknowledgements the call throws
         * {@link EnqueueReplicaException}, which holds the jobs' results: they exist on the primary,
         * and a failover before they replicate could lose them (docs/scaling.md, "What a failover
         * can lose"). Claims and settles do not wait.
         *
         * <p>{@code WAIT} holds up the client's shared connection while it waits, so with a replica
         * down every enqueue waits the whole timeout and the client's other commands queue behind
         * it: keep the timeout short. For a single server or a Sentinel-watched master; a
         * {@code redis-cluster://} client refuses it at {@link #build()}. An ACL user needs
         * {@code +wait}.
         *
         * @param replicas how many replicas must acknowledge, 1..100; 0 turns the wait off (the default)
         * @param timeout  how long each wait may take, 1 ms..1 minute, and shorter than the command timeout
         *     (checked at {@link #build()})
         * @throws IllegalArgumentException if either is out of range
         */
        public Builder waitForReplicas(int replicas, Duration timeout) {
            if (replicas < 0 || replicas > 100) {
                throw new IllegalArgumentException("waitForReplicas replicas must be in 0..100, was " + replicas);
            }
            Checks.ttlMillis(timeout, Duration.ofMinutes(1), "waitForReplicas timeout");
            this.replicaWait = replicas == 0 ? null : new ReplicaWait(replicas, timeout);
            return this;
        }

        /**
         * @param instrumentation told of enqueues, first claims' waits, settled attempts and reaped
         *     leases of every queue and worker of this client (see {@link QueueInstrumentation}
         *     and {@code echomq-micrometer}); default {@link QueueInstrumentation#NONE}, which
         *     costs nothing. Whatever it throws is logged once per method and ignored.
         * @throws IllegalArgumentException if null
         */
        public Builder instrumentation(QueueInstrumentation instrumentation) {
            this.instrumentation = GuardedQueueInstrumentation.of(instrumentation);
            return this;
        }

        /**
         * Trusts, for a {@code rediss://} or {@code rediss-cluster://} URL, the CA certificates in
         * this PEM file instead of the JVM's default trust store: for a server whose certificate a
         * private CA signed. The server's chain and host name are still verified.
         *
         * @param pemFile a readable PEM file holding one or more X.509 CA certificates
         * @throws IllegalArgumentException if the file is null, unreadable, or holds no certificate
         */
        public Builder trustedCertificates(java.nio.file.Path pemFile) {
            this.trustedCertificates = io.echomq.internal.TlsTrust.check(pemFile);
            return this;
        }

        /**
         * @param redisUrl the server to use (required): {@code redis://…}, {@code rediss://…},
         *     {@code redis-socket://…}, a cluster, {@code redis-cluster://host:port[,host:port…]}, or a master
         *     watched by Sentinel, {@code redis-sentinel://host:port[,host:port…][/db]#master}
         * @throws IllegalArgumentException if null or malformed (checked now, as LockClient's builder does)
         */
        public Builder redisUrl(String redisUrl) {
            io.echomq.internal.RedisUrls.parseAny(Checks.notNull(redisUrl, "redisUrl"));
            this.redisUrl = redisUrl;
            return this;
        }

        /**
         * @param timeout how long one command may take, 1 ms..1 hour
         * @throws IllegalArgumentException if out of range
         */
        public Builder commandTimeout(Duration timeout) {
            Checks.ttlMillis(timeout, Duration.ofHours(1), "commandTimeout");
            this.commandTimeout = timeout;
            return this;
        }

        /**
         * @param bytes the largest payload (and progress value) accepted, 1..{@link #MAX_PAYLOAD_LIMIT}
         * @throws IllegalArgumentException if out of range
         */
        public Builder maxPayloadBytes(int bytes) {
            if (bytes < 1 || bytes > MAX_PAYLOAD_LIMIT) {
                throw new IllegalArgumentException("maxPayloadBytes must be in 1.." + MAX_PAYLOAD_LIMIT + ", was " + bytes);
            }
            this.maxPayloadBytes = bytes;
            return this;
        }

        /**
         * @param retain how long a completed job's hash stays readable (state {@code done}),
         *     and a cancelled job's; zero, the default ({@link #DEFAULT_RETAIN_COMPLETED}), deletes
         *     it at completion (a running job that is cancelled keeps its hash until its lease
         *     would have ended). At most 365 days. No count cap: at a steady rate the kept hashes
         *     number rate × retain. A queue that stores its own {@link QueueRetention}
         *     ({@link QueueOperations#setRetention}) uses that instead for completed jobs.
         * @throws IllegalArgumentException if null, negative or too long
         */
        public Builder retainCompleted(Duration retain) {
            Checks.notNull(retain, "retainCompleted");
            if (retain.isNegative() || retain.compareTo(Duration.ofDays(365)) > 0) {
                throw new IllegalArgumentException("retainCompleted must be in 0..365 days, was " + retain);
            }
            this.retainCompleted = retain;
            return this;
        }

        /**
         * Sets the catch-up threshold of every schedule this client's workers, {@link Scheduler}s and
         * {@link Schedules#fireDue()} fire: a fire time more than this before the server's now is
         * <em>missed</em> and follows its schedule's {@link MissedFires} policy; a later one is on
         * time and always fires. A longer threshold lets a scheduler down for longer catch up every
         * fire time as on time; a shorter one applies the policy sooner. Clients that fire the same
         * queue should agree on it: each one applies its own to the runs it makes.
         *
         * <pre>{@code
         * QueueClient.builder().redisUrl(url).missedFiresAfter(Duration.ofMinutes(5)).build();
         * }</pre>
         *
         * @param threshold 1 s..1 day; default {@link Schedules#MISSED_AFTER} (60 s)
         * @throws IllegalArgumentException if null or out of range
         */
        public Builder missedFiresAfter(Duration threshold) {
            Checks.ttlMillis(threshold, Duration.ofDays(1), "missedFiresAfter");
            if (threshold.compareTo(Duration.ofSeconds(1)) < 0) {
                throw new IllegalArgumentException("missedFiresAfter must be at least 1 s, was " + threshold);
            }
            this.missedFiresAfter = threshold;
            return this;
        }

        /**
         * @param clock the monotonic clock for every local time read of the queues and workers of
         *     this client: lease deadlines, renewal timing and shutdown's waits (tests inject one).
         *     It must advance with real time for a worker's shutdown to end its grace on time.
         * @throws IllegalArgumentException if null
         */
        public Builder clock(MonotonicClock clock) {
            this.clock = Checks.notNull(clock, "clock");
            return this;
        }

        /**
         * Connects.
         *
         * @throws IllegalArgumentException if the URL is missing or malformed, trusted certificates were given for a URL that is not rediss://, or the waitForReplicas timeout is not shorter than the command timeout
         * @throws RedisCommandException if the server cannot be reached, refuses the credentials, or fails the TLS handshake
         * @throws io.echomq.MissingPermissionsException if the ACL user may not run a command the queue scripts run
         * @throws UnsupportedOperationException if {@link #waitForReplicas} is set on a {@code redis-cluster://} URL
         */
        public QueueClient build() {
            if (redisUrl == null) {
                throw new IllegalArgumentException("redisUrl is required");
            }
            if (replicaWait != null && replicaWait.timeout().compareTo(commandTimeout) >= 0) {
                throw new IllegalArgumentException("waitForReplicas timeout " + replicaWait.timeout()
                        + " must be shorter than the command timeout " + commandTimeout);
            }
            io.echomq.internal.TlsTrust.checkScheme(redisUrl, trustedCertificates);
            RedisEngine engine = EngineConnector.connect(redisUrl, commandTimeout, trustedCertificates);
            try {
                if (replicaWait != null && engine.isCluster()) {
                    // WAIT counts the writes of the connection it is sent on; the cluster client sends
                    // a keyless WAIT to a node of its own choosing, which need not be the queue's master.
                    throw new UnsupportedOperationException("waitForReplicas is not supported on a "
                            + "redis-cluster:// URL yet");
                }
                // Opened now, never lazily: the first lazy open could otherwise happen on a Lettuce
                // event-loop thread (a worker's maintenance callback), which deadlocks with a
                // dispatcher that holds the engine's monitor while its connect waits on that loop.
                engine.binary();
                PermissionCheck.forQueues(engine);
            } catch (RuntimeException e) {
                engine.close();
                throw e;
            }
            return new QueueClient(this, engine);
        }
    }
}
