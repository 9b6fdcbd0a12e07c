package io.echomq.testkit;

import io.echomq.server.RawRedis;
import io.echomq.server.RedisServer;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * A primary {@link RedisServer} with one replica, for failover tests. The replica reaches the primary through a
 * {@link FaultProxy} ({@link #link()}), so a test can cut, delay or black-hole replication alone while clients still
 * reach the primary directly.
 *
 * <ol>
 *   <li>{@link #start()} starts both servers, points the replica at the primary ({@code REPLICAOF}) and waits until
 *       the first sync is done.</li>
 *   <li>{@link #awaitSync(Duration)} waits until the replica has applied everything the primary has written.</li>
 *   <li>{@link #failover()} promotes the replica with {@code REPLICAOF NO ONE}, as a sentinel or an operator would
 *       after losing the primary; clients are then pointed at {@link #replica()}.</li>
 * </ol>
 *
 * <p>Replication in Redis is asynchronous: whatever the primary acknowledged but the replica had not received when
 * the failover happens is gone from the new primary. That is the point of this class. Not thread-safe.
 */
public final class ReplicaPair implements AutoCloseable {

    private static final Duration SYNC_TIMEOUT = Duration.ofSeconds(10);

    private final RedisServer primary;
    private final RedisServer replica;
    private final FaultProxy link;
    private boolean failedOver;

    private ReplicaPair(RedisServer primary, RedisServer replica, FaultProxy link) {
        this.primary = primary;
        this.replica = replica;
        this.link = link;
    }

    /**
     * Starts a primary and a replica with the default binary and settings, and waits (at most 10 seconds) for the
     * replica's first sync.
     *
     * @return the running pair; close it when done
     * @throws IllegalStateException if a server does not start, or the replica does not sync in time
     */
    public static ReplicaPair start() {
        // Redis 7 syncs replicas diskless after a 5 s delay by default (to batch replicas): no need here.
        RedisServer primary = RedisServer.builder().config("repl-diskless-sync-delay", "0").start();
        FaultProxy link = null;
        RedisServer replica = null;
        try {
            link = FaultProxy.start(primary);
            replica = RedisServer.builder().config("repl-timeout", "60").start();
            try (RawRedis r = RawRedis.connect(replica.host(), replica.port())) {
                r.call("REPLICAOF", link.host(), Integer.toString(link.port()));
            }
            ReplicaPair pair = new ReplicaPair(primary, replica, link);
            pair.awaitSync(SYNC_TIMEOUT);
            return pair;
        } catch (RuntimeException e) {
            if (replica != null) {
                replica.close();
            }
            if (link != null) {
                link.close();
            }
            primary.close();
            throw e;
        }
    }

    /** @return the primary; clients write here until {@link #failover()} */
    public RedisServer primary() {
        return primary;
    }

    /** @return the replica; after {@link #failover()} it is the new primary */
    public RedisServer replica() {
        return replica;
    }

    /** @return the proxy that carries replication from the primary to the replica */
    public FaultProxy link() {
        return link;
    }

    /**
     * Waits until the replica's link is up and its replication offset has reached the primary's offset as read at
     * the start of the call.
     *
     * @param timeout the longest wait
     * @throws IllegalStateException if the replica has not caught up within {@code timeout}, or after
     *         {@link #failover()}
     * @throws java.io.UncheckedIOException if a server cannot be reached
     */
    public void awaitSync(Duration timeout) {
        if (failedOver) {
            throw new IllegalStateException("the replica was promoted; there is nothing to sync");
        }
        long deadline = System.nanoTime() + timeout.toNanos();
        try (RawRedis p = RawRedis.connect(primary.host(), primary.port());
             RawRedis r = RawRedis.connect(replica.host(), replica.port())) {
            long target = Long.parseLong(field((String) p.call("INFO", "replication"), "master_repl_offset"));
            while (true) {
                String info = (String) r.call("INFO", "replication");
                String offset = field(info, "slave_repl_offset");
                if ("up".equals(field(info, "master_link_status")) && offset != null
                        && Long.parseLong(offset) >= target) {
                    return;
                }
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("replica " + replica.url() + " did not reach offset " + target
                            + " of " + primary.url() + " within " + timeout.toMillis() + " ms; replica says:\n" + info);
                }
                try {
                    TimeUnit.MILLISECONDS.sleep(10); // polling the server, no condition to wait on
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("interrupted while waiting for the replica", e);
                }
            }
        }
    }

    /**
     * Promotes the replica: {@code REPLICAOF NO ONE}. The old primary keeps running (stop it, or just stop using
     * it); the replica keeps what it had received and accepts writes from now on.
     *
     * @throws IllegalStateException if called twice
     * @throws RawRedis.ErrorReply if the replica refuses the command
     * @throws java.io.UncheckedIOException if the replica cannot be reached
     */
    public void failover() {
        if (failedOver) {
            throw new IllegalStateException("already failed over");
        }
        try (RawRedis r = RawRedis.connect(replica.host(), replica.port())) {
            r.call("REPLICAOF", "NO", "ONE");
        }
        failedOver = true;
    }

    /** @return whether {@link #failover()} has run */
    public boolean failedOver() {
        return failedOver;
    }

    /** Stops both servers and the link. Idempotent; never throws. */
    @Override
    public void close() {
        replica.close();
        link.close();
        primary.close();
    }

    @Override
    public String toString() {
        return "ReplicaPair[primary=" + primary.url() + ", replica=" + replica.url() + " via " + link.url() + "]";
    }

    static String field(String info, String name) {
        for (String line : info.split("\r?\n")) {
            if (line.startsWith(name + ":")) {
                return line.substring(name.length() + 1).trim();
            }
        }
        return null;
    }
}
