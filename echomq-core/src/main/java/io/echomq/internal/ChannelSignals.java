package io.echomq.internal;

import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Wakes waiters when a message arrives on a pub/sub channel: a lock's release channel, or a
 * queue's wake channel. Keeps one subscription per channel that has waiters, on the engine's
 * dedicated pub/sub connection, and completes the channel's current signal on every message.
 *
 * <p>A waiter takes the current signal <em>before</em> it tries (to acquire, to claim), so a
 * message that lands between its failed try and its wait still wakes it.
 *
 * <p>The subscription matches the engine's {@link RedisEngine#publishMode()}: {@code SUBSCRIBE}
 * for {@code PUBLISH}, {@code SSUBSCRIBE} for {@code SPUBLISH} (a Redis 7 or Valkey cluster, where Lettuce
 * sends it to the master that owns the channel's slot). When that master gives the slot away, the
 * server ends the sharded subscription ({@code sunsubscribe}); a channel that still has waiters is
 * then subscribed again, which Lettuce routes to the new owner once its topology has caught up.
 * Waiters never depend on a message alone: each also polls, so a message lost in that gap costs
 * one poll interval, not a hang.
 */
public final class ChannelSignals {
    private static final Logger LOG = LoggerFactory.getLogger(ChannelSignals.class);
    private static final long RESUBSCRIBE_PAUSE_MS = 100;

    private final RedisEngine engine;
    private final boolean sharded;
    // A ReentrantLock, not a monitor: the first join opens the pub/sub connection while holding it,
    // and a virtual thread that waits on the network inside synchronized pins its carrier on Java
    // 21 to 23.
    private final ReentrantLock lock = new ReentrantLock();
    private final Map<String, Channel> channels = new HashMap<>();           // guarded by lock
    private StatefulRedisPubSubConnection<String, String> connection;        // guarded by lock

    private static final class Channel {
        int waiters;
        CompletableFuture<Void> subscribed;
        final AtomicReference<CompletableFuture<Void>> signal = new AtomicReference<>(new CompletableFuture<>());
    }

    /** A waiter's membership of one channel; closing it drops the subscription with the last waiter. */
    public final class Waiter implements AutoCloseable {
        private final String name;
        private final Channel channel;

        private Waiter(String name, Channel channel) {
            this.name = name;
            this.channel = channel;
        }

        /** @return completes once the server has confirmed the subscription */
        public CompletableFuture<Void> subscribed() {
            return channel.subscribed;
        }

        /** @return completes on the next release message */
        public CompletableFuture<Void> signal() {
            return channel.signal.get();
        }

        /** Leaves the channel; the last waiter to leave drops the subscription. */
        @Override
        public void close() {
            leave(name, channel);
        }
    }

    /** @param engine whose pub/sub connection carries the subscriptions */
    public ChannelSignals(RedisEngine engine) {
        this.engine = engine;
        this.sharded = "SPUBLISH".equals(engine.publishMode());
    }

    /** Joins the waiters of {@code channel}, subscribing if it is the first. */
    public Waiter join(String channel) {
        lock.lock();
        try {
            if (connection == null) {
                connection = engine.pubSub();
                connection.addListener(new RedisPubSubAdapter<>() {
                    @Override
                    public void message(String channel, String message) {
                        onMessage(channel);
                    }

                    @Override
                    public void smessage(String shardChannel, String message) {
                        onMessage(shardChannel);
                    }

                    @Override
                    public void sunsubscribed(String shardChannel, long count) {
                        onShardUnsubscribed(shardChannel);
                    }
                });
            }
            Channel c = channels.computeIfAbsent(channel, k -> new Channel());
            if (c.waiters++ == 0) {
                c.subscribed = subscribe(channel);
            }
            return new Waiter(channel, c);
        } finally {
            lock.unlock();
        }
    }

    private CompletableFuture<Void> subscribe(String channel) {
        return (sharded ? connection.async().ssubscribe(channel) : connection.async().subscribe(channel))
                .toCompletableFuture();
    }

    /**
     * The server ended a sharded subscription: we asked for it (the last waiter left), or the slot
     * moved to another master. In the second case, subscribe again after a pause that lets the
     * topology refresh (triggered by the MOVED that the move causes) catch up, and wake the waiters
     * so that they look at once instead of missing a message sent meanwhile.
     */
    private void onShardUnsubscribed(String channel) {
        Channel c;
        lock.lock();
        try {
            c = channels.get(channel);
        } finally {
            lock.unlock();
        }
        if (c == null) {
            return;
        }
        c.signal.getAndSet(new CompletableFuture<>()).complete(null);
        CompletableFuture.runAsync(() -> resubscribe(channel, c),
                CompletableFuture.delayedExecutor(RESUBSCRIBE_PAUSE_MS, TimeUnit.MILLISECONDS));
    }

    private void resubscribe(String channel, Channel c) {
        lock.lock();
        try {
            if (channels.get(channel) != c) {
                return;   // every waiter left meanwhile
            }
            subscribe(channel).whenComplete((ok, failure) -> {
                if (failure != null) {
                    LOG.debug("SSUBSCRIBE {} failed, trying again: {}", channel, failure.toString());
                    CompletableFuture.runAsync(() -> resubscribe(channel, c),
                            CompletableFuture.delayedExecutor(RESUBSCRIBE_PAUSE_MS, TimeUnit.MILLISECONDS));
                }
            });
        } finally {
            lock.unlock();
        }
    }

    private void leave(String name, Channel c) {
        lock.lock();
        try {
            if (--c.waiters == 0) {
                channels.remove(name);
                if (sharded) {
                    connection.async().sunsubscribe(name);
                } else {
                    connection.async().unsubscribe(name);
                }
                c.signal.get().complete(null);
            }
        } finally {
            lock.unlock();
        }
    }

    private void onMessage(String channel) {
        Channel c;
        lock.lock();
        try {
            c = channels.get(channel);
        } finally {
            lock.unlock();
        }
        if (c != null) {
            c.signal.getAndSet(new CompletableFuture<>()).complete(null);
        }
    }
}
