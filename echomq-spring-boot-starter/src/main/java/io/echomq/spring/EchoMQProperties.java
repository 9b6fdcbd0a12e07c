package io.echomq.spring;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Every {@code echomq.*} property, bound by Spring Boot and described to IDEs through the
 * configuration metadata generated from this class. Holds values only; {@link PropertyChecks}
 * checks them at startup and {@link RedisUrlResolver} picks the URL.
 *
 * <p>Defaults are written as literals so that the metadata shows them; they are the core's own
 * defaults ({@code LockClient.DEFAULT_COMMAND_TIMEOUT} and so on), which a test keeps equal.
 */
@ConfigurationProperties("echomq")
public class EchoMQProperties {
    private final Redis redis = new Redis();
    private final Lock lock = new Lock();
    private final Queue queue = new Queue();
    private final WorkerProperties worker = new WorkerProperties();
    private final Health health = new Health();
    private final Metrics metrics = new Metrics();
    private final Tracing tracing = new Tracing();
    private final SchedulesProperties schedules = new SchedulesProperties();
    private final Template template = new Template();

    /** @return the connection settings */
    public Redis getRedis() {
        return redis;
    }

    /** @return the lock client's settings */
    public Lock getLock() {
        return lock;
    }

    /** @return the queue client's settings */
    public Queue getQueue() {
        return queue;
    }

    /** @return the settings of the workers started for annotated handlers */
    public WorkerProperties getWorker() {
        return worker;
    }

    /** @return the actuator health indicator's settings */
    public Health getHealth() {
        return health;
    }

    /** @return the Micrometer meters' settings */
    public Metrics getMetrics() {
        return metrics;
    }

    /** @return the OpenTelemetry spans' settings */
    public Tracing getTracing() {
        return tracing;
    }

    /** @return the settings of recurring schedules and {@code @EchoSchedule} */
    public SchedulesProperties getSchedules() {
        return schedules;
    }

    /** @return the EchoMQTemplate's settings */
    public Template getTemplate() {
        return template;
    }

    /** Connection settings shared by the lock and the queue clients. */
    public static class Redis {
        /**
         * Redis URL: redis://[user:password@]host[:port][/db], rediss:// for TLS,
         * redis-cluster://host:port[,host:port...] for a cluster (rediss-cluster:// with TLS),
         * redis-sentinel://host:port[,host:port...][/db]#master for a master watched by Sentinel
         * (rediss-sentinel:// with TLS), or redis-socket:///path. When absent, the application's
         * spring.data.redis.* settings are used.
         */
        private String url;

        /** How long one Redis command may take, 1 ms to 1 hour. */
        private Duration commandTimeout = Duration.ofSeconds(10);

        /**
         * PEM file of CA certificates to trust for a rediss:// URL instead of the JVM's default trust
         * store. The server's chain and host name are still verified.
         */
        private Path trustedCertificates;

        public String getUrl() {
            return url;
        }

        public void setUrl(String url) {
            this.url = url;
        }

        public Duration getCommandTimeout() {
            return commandTimeout;
        }

        public void setCommandTimeout(Duration commandTimeout) {
            this.commandTimeout = commandTimeout;
        }

        public Path getTrustedCertificates() {
            return trustedCertificates;
        }

        public void setTrustedCertificates(Path trustedCertificates) {
            this.trustedCertificates = trustedCertificates;
        }
    }

    /** Settings of the LockClient bean. */
    public static class Lock {
        /** Prefix of every lock key; may be empty; no '{' or '}'. */
        private String namespace = "emq:lock:";

        /**
         * Fallback poll of a waiting acquire, jittered by half, 1 ms to 1 minute; waiters are
         * normally woken sooner by the release notification.
         */
        private Duration pollInterval = Duration.ofMillis(500);

        /**
         * The upgrade mode for fenced locks: every fenced grant stores the protocol-2 mark, so
         * that a client of the previous release is refused on every resource this one locked.
         * On while such a client may remain (docs/protocol.md, "How to upgrade"), off after.
         */
        private boolean markFencesForProtocol1;

        /**
         * The label of every holder the LockClient bean makes, shown by {@code emq lock inspect}:
         * 1 to 100 characters of A-Z a-z 0-9 . _ - : @ /. Unset: {@code <host>:<pid>:<spring.application.name>}
         * ({@code app} without a name); empty: no label, plain tokens.
         */
        private String holderLabel;

        public String getNamespace() {
            return namespace;
        }

        public void setNamespace(String namespace) {
            this.namespace = namespace;
        }

        public Duration getPollInterval() {
            return pollInterval;
        }

        public void setPollInterval(Duration pollInterval) {
            this.pollInterval = pollInterval;
        }

        public boolean isMarkFencesForProtocol1() {
            return markFencesForProtocol1;
        }

        public void setMarkFencesForProtocol1(boolean markFencesForProtocol1) {
            this.markFencesForProtocol1 = markFencesForProtocol1;
        }

        public String getHolderLabel() {
            return holderLabel;
        }

        public void setHolderLabel(String holderLabel) {
            this.holderLabel = holderLabel;
        }
    }

    /** Settings of the QueueClient bean. */
    public static class Queue {
        /** Largest payload (and progress value) accepted, in bytes, 1 to 64 MiB. */
        private int maxPayloadBytes = 1048576;

        /**
         * How long a completed job's hash stays readable; zero, the default, deletes it at completion
         * (its result stays in the queue's events stream); at most 365 days. A queue's stored
         * retention wins.
         */
        private Duration retainCompleted = Duration.ZERO;

        /**
         * Replicas that must acknowledge each enqueue before it returns ({@code WAIT}), 0 to 100;
         * 0, the default, waits for none. Fewer acknowledgements throw EnqueueReplicaException. A
         * single server or a Sentinel-watched master only.
         */
        private int waitForReplicas = 0;

        /** How long each enqueue waits for its replicas, shorter than echomq.redis.command-timeout. */
        private Duration replicaTimeout = Duration.ofMillis(200);

        public int getWaitForReplicas() {
            return waitForReplicas;
        }

        public void setWaitForReplicas(int waitForReplicas) {
            this.waitForReplicas = waitForReplicas;
        }

        public Duration getReplicaTimeout() {
            return replicaTimeout;
        }

        public void setReplicaTimeout(Duration replicaTimeout) {
            this.replicaTimeout = replicaTimeout;
        }

        public int getMaxPayloadBytes() {
            return maxPayloadBytes;
        }

        public void setMaxPayloadBytes(int maxPayloadBytes) {
            this.maxPayloadBytes = maxPayloadBytes;
        }

        public Duration getRetainCompleted() {
            return retainCompleted;
        }

        public void setRetainCompleted(Duration retainCompleted) {
            this.retainCompleted = retainCompleted;
        }
    }

    /** Settings of the workers started for @EchoJobHandler methods. */
    public static class WorkerProperties {
        /** Whether @EchoJobHandler methods get a worker when the application context starts. */
        private boolean enabled = true;

        /**
         * How long shutdown waits for running jobs before giving their leases back (the attempt is not
         * spent) and asking their handlers to stop; zero or more. Keep it below
         * spring.lifecycle.timeout-per-shutdown-phase (30 s by default).
         */
        private Duration shutdownGrace = Duration.ofSeconds(20);

        /** Interval between maintenance runs (reaping expired leases, promoting due jobs) across all workers, 10 ms to 1 hour. */
        private Duration maintenanceInterval = Duration.ofSeconds(2);

        /** Longest idle wait without a wake message before a worker looks at its queue again, 10 ms to 1 hour. */
        private Duration idlePoll = Duration.ofSeconds(5);

        /**
         * Whether a lost lease, a timeout, a cancel or a shutdown past its grace also interrupts the
         * handler's thread. Off by default: handlers are asked to stop through the Job's
         * stopRequested() and stopSignal(), because an interrupt closes the socket under a blocking
         * call on a virtual thread and so breaks a pooled JDBC connection the handler borrowed.
         */
        private boolean interruptHandlers;

        /**
         * The workers' name, as their log lines, the dashboard's workers page and emq queue workers show it:
         * 1..100 characters, no control character. Unset: emq-worker-<queue>-<n>. Each worker is still told apart
         * by its id (host, pid and a count).
         */
        private String name;

        public String getName() {
            return name;
        }

        public void setName(String name) {
            this.name = name;
        }

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        public Duration getShutdownGrace() {
            return shutdownGrace;
        }

        public void setShutdownGrace(Duration shutdownGrace) {
            this.shutdownGrace = shutdownGrace;
        }

        public Duration getMaintenanceInterval() {
            return maintenanceInterval;
        }

        public void setMaintenanceInterval(Duration maintenanceInterval) {
            this.maintenanceInterval = maintenanceInterval;
        }

        public Duration getIdlePoll() {
            return idlePoll;
        }

        public void setIdlePoll(Duration idlePoll) {
            this.idlePoll = idlePoll;
        }

        public boolean isInterruptHandlers() {
            return interruptHandlers;
        }

        public void setInterruptHandlers(boolean interruptHandlers) {
            this.interruptHandlers = interruptHandlers;
        }
    }

    /** Settings of the actuator health indicator. */
    public static class Health {
        /**
         * Queues whose counts the health indicator reads, besides those of the @EchoJobHandler
         * methods, which are always read.
         */
        private List<String> queues = new ArrayList<>();

        /** Health is DOWN when a queue has more overdue leases than this; -1 for no limit. */
        private long maxOverdue = -1;

        /** Health is DOWN when a queue has more dead jobs than this; -1 for no limit. */
        private long maxDead = -1;

        public List<String> getQueues() {
            return queues;
        }

        public void setQueues(List<String> queues) {
            this.queues = queues;
        }

        public long getMaxOverdue() {
            return maxOverdue;
        }

        public void setMaxOverdue(long maxOverdue) {
            this.maxOverdue = maxOverdue;
        }

        public long getMaxDead() {
            return maxDead;
        }

        public void setMaxDead(long maxDead) {
            this.maxDead = maxDead;
        }
    }

    /**
     * Micrometer meters of the starter's clients, made when echomq-micrometer is on the class path
     * and the application has a MeterRegistry bean (Spring Boot's actuator makes one).
     */
    public static class Metrics {
        /** Whether the starter's clients record EchoMQ's meters in the application's MeterRegistry. */
        private boolean enabled = true;

        /**
         * Queues whose meters and state gauges are registered at startup, besides those of the
         * @EchoJobHandler methods and of echomq.health.queues, which always are: for example the
         * queues an application only enqueues to.
         */
        private List<String> queues = new ArrayList<>();

        /** @return whether the meters are recorded */
        public boolean isEnabled() {
            return enabled;
        }

        /** @param enabled whether the meters are recorded */
        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        /** @return the queues registered at startup besides the handled and health ones */
        public List<String> getQueues() {
            return queues;
        }

        /** @param queues the queues registered at startup besides the handled and health ones */
        public void setQueues(List<String> queues) {
            this.queues = queues;
        }
    }

    /**
     * OpenTelemetry spans of the starter's clients, made when echomq-opentelemetry is on the class
     * path and the application has an OpenTelemetry bean.
     */
    public static class Tracing {
        /** Whether the starter's clients make spans for enqueues and handled jobs. */
        private boolean enabled = true;

        /** Whether lock acquires and holds make spans too; a busy lock makes many short spans. */
        private boolean lockSpans = false;

        /** @return whether spans are made */
        public boolean isEnabled() {
            return enabled;
        }

        /** @param enabled whether spans are made */
        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        /** @return whether lock spans are made */
        public boolean isLockSpans() {
            return lockSpans;
        }

        /** @param lockSpans whether lock spans are made */
        public void setLockSpans(boolean lockSpans) {
            this.lockSpans = lockSpans;
        }
    }

    /** Settings of recurring schedules: the catch-up threshold and the @EchoSchedule upsert at startup. */
    public static class SchedulesProperties {
        /**
         * A fire time more than this before the server's now is missed and follows its schedule's
         * missed-fire policy; a later one is on time and always fires. 1s to 1d.
         */
        private Duration missedAfter = Duration.ofSeconds(60);

        /**
         * Whether startup removes the schedules of the queues this application has @EchoJobHandler
         * methods for that no @EchoSchedule names, including ones made by code or the CLI there.
         */
        private boolean removeUnknown = false;

        public Duration getMissedAfter() {
            return missedAfter;
        }

        public void setMissedAfter(Duration missedAfter) {
            this.missedAfter = missedAfter;
        }

        public boolean isRemoveUnknown() {
            return removeUnknown;
        }

        public void setRemoveUnknown(boolean removeUnknown) {
            this.removeUnknown = removeUnknown;
        }
    }

    /** Settings of the EchoMQTemplate bean. */
    public static class Template {
        /**
         * When an enqueue inside a Spring transaction is sent: after-commit (a rolled-back
         * transaction leaves no job) or immediate (at once, even if the transaction rolls back).
         * Outside a transaction, and without spring-tx, always at once.
         */
        private TransactionMode transactional = TransactionMode.AFTER_COMMIT;

        public TransactionMode getTransactional() {
            return transactional;
        }

        public void setTransactional(TransactionMode transactional) {
            this.transactional = transactional;
        }
    }

    /** When EchoMQTemplate sends a job enqueued inside a Spring transaction. */
    public enum TransactionMode {
        /** After the transaction commits; dropped if it rolls back. */
        AFTER_COMMIT,
        /** At once, whatever becomes of the transaction. */
        IMMEDIATE
    }
}
