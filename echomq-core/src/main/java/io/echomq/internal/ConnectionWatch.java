package io.echomq.internal;

import io.echomq.ConnectionListener;
import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisConnectionStateListener;
import java.net.SocketAddress;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns Lettuce's per-connection state changes into one "lost" and one "back" per outage for a
 * {@link ConnectionListener}.
 *
 * <ol>
 *   <li>An outage begins when one of this client's connections drops while none is out: a channel goes inactive
 *       ({@code onRedisDisconnected}) though nobody closed its connection. A connection closed on purpose (by
 *       this client, or by Lettuce for its own topology reads and for links to nodes that left the cluster) is
 *       closed, not dropped, and is no outage.</li>
 *   <li>It ends when every connection that dropped is connected again, or has been closed since (a link nobody
 *       needs any more). Failed reconnect attempts never become active, so they are silent; a connection first
 *       opened while out of an outage is not counted.</li>
 *   <li>On a Redis Cluster it also ends once the cluster serves every slot again ({@link ClusterServing}): a master
 *       killed for good, still listed as failed, keeps its links dropped forever, yet once its replica is promoted
 *       the cluster is up. While out, the watch asks every {@link #CHECK_EVERY_MS} ms, reading the topology afresh
 *       each time, which also shows the promoted replica to the client's routing as soon as it exists.</li>
 *   <li>It listens on this engine's own client, so only this client's connections are seen.</li>
 * </ol>
 */
final class ConnectionWatch implements RedisConnectionStateListener {
    private static final Logger LOG = LoggerFactory.getLogger(ConnectionWatch.class);
    /** While out, how often a cluster's service of every slot is checked. */
    static final long CHECK_EVERY_MS = 250;

    private final AbstractRedisClient client;
    private final ConnectionListener listener;
    private final String redactedUrl;
    private final ClusterServing serving;   // null for one server
    private final Executor later = CompletableFuture.delayedExecutor(CHECK_EVERY_MS, TimeUnit.MILLISECONDS);
    // the connections that dropped in this outage and are not connected again; guarded by this
    private final Set<RedisChannelHandler<?, ?>> dropped = Collections.newSetFromMap(new IdentityHashMap<>());
    private boolean out;        // guarded by this: an outage was told lost and not yet back
    private boolean checking;   // guarded by this: a cluster check is scheduled or running
    private boolean stopped;    // guarded by this

    /** @param serving the cluster's check, or null for one server */
    ConnectionWatch(AbstractRedisClient client, String redactedUrl, ConnectionListener listener,
                    ClusterServing serving) {
        this.client = client;
        this.listener = listener;
        this.redactedUrl = redactedUrl;
        this.serving = serving;
        client.addListener(this);
    }

    @Override
    public void onRedisDisconnected(RedisChannelHandler<?, ?> connection) {
        if (connection.isClosed()) {
            return;   // closed on purpose, not dropped
        }
        boolean lost;
        synchronized (this) {
            if (stopped) {
                return;
            }
            dropped.add(connection);
            lost = !out;
            out = true;
        }
        if (lost) {
            tell(true);
        }
        scheduleCheck();
    }

    @Override
    public void onRedisConnected(RedisChannelHandler<?, ?> connection, SocketAddress address) {
        boolean back;
        synchronized (this) {
            if (!out || stopped) {
                return;
            }
            dropped.remove(connection);
            dropped.removeIf(RedisChannelHandler::isClosed);
            back = dropped.isEmpty();
            if (back) {
                out = false;
            }
        }
        if (back) {
            tell(false);
        }
    }

    /** On a cluster, while out, checks in {@link #CHECK_EVERY_MS} ms whether every slot is served; one at a time. */
    private void scheduleCheck() {
        if (serving == null) {
            return;
        }
        synchronized (this) {
            if (checking || !out || stopped) {
                return;
            }
            checking = true;
        }
        later.execute(this::check);
    }

    private void check() {
        CompletionStage<Boolean> answer;
        try {
            answer = serving.check();
        } catch (RuntimeException unreadable) {
            answer = CompletableFuture.completedFuture(false);   // asked again next time, until stopped
        }
        answer.whenComplete((served, failure) -> {
            boolean back = false;
            synchronized (this) {
                checking = false;
                if (stopped || !out) {
                    return;
                }
                if (Boolean.TRUE.equals(served)) {
                    out = false;
                    dropped.clear();   // links to masters that are gone: they no longer hold the cluster down
                    back = true;
                }
            }
            if (back) {
                tell(false);
            } else {
                scheduleCheck();
            }
        });
    }

    private void tell(boolean lost) {
        try {
            if (lost) {
                listener.onLost(redactedUrl);
            } else {
                listener.onBack(redactedUrl);
            }
        } catch (RuntimeException e) {
            LOG.warn("connection listener failed: {}", e.toString());
        }
    }

    /** Stops the watch: no callback starts afterwards. */
    void stop() {
        synchronized (this) {
            stopped = true;
        }
        client.removeListener(this);
    }
}
