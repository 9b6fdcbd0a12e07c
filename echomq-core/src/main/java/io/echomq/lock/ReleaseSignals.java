package io.echomq.lock;

import io.echomq.internal.RedisEngine;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Wakes waiters when a lock is released. The release script publishes on the lock's channel;
 * this class keeps one subscription per channel that has waiters, on the dedicated pub/sub
 * connection, and completes the channel's current signal on every message.
 *
 * <p>A waiter takes the current signal <em>before</em> it tries to acquire, so a release that
 * lands between its failed try and its wait still wakes it.
 */
final class ReleaseSignals {
    private final RedisEngine engine;
    private final Map<String, Channel> channels = new HashMap<>();
    private StatefulRedisPubSubConnection<String, String> connection; // guarded by channels

    private static final class Channel {
        int waiters;
        CompletableFuture<Void> subscribed;
        final AtomicReference<CompletableFuture<Void>> signal = new AtomicReference<>(new CompletableFuture<>());
    }

    /** A waiter's membership of one channel; closing it drops the subscription with the last waiter. */
    final class Waiter implements AutoCloseable {
        private final String name;
        private final Channel channel;

        private Waiter(String name, Channel channel) {
            this.name = name;
            this.channel = channel;
        }

        /** @return completes once the server has confirmed the subscription */
        CompletableFuture<Void> subscribed() {
            return channel.subscribed;
        }

        /** @return completes on the next release message */
        CompletableFuture<Void> signal() {
            return channel.signal.get();
        }

        @Override
        public void close() {
            leave(name, channel);
        }
    }

    ReleaseSignals(RedisEngine engine) {
        this.engine = engine;
    }

    /** Joins the waiters of {@code channel}, subscribing if it is the first. */
    Waiter join(String channel) {
        synchronized (channels) {
            if (connection == null) {
                connection = engine.pubSub();
                connection.addListener(new RedisPubSubAdapter<>() {
                    @Override
                    public void message(String channel, String message) {
                        onMessage(channel);
                    }
                });
            }
            Channel c = channels.computeIfAbsent(channel, k -> new Channel());
            if (c.waiters++ == 0) {
                c.subscribed = connection.async().subscribe(channel).toCompletableFuture();
            }
            return new Waiter(channel, c);
        }
    }

    private void leave(String name, Channel c) {
        synchronized (channels) {
            if (--c.waiters == 0) {
                channels.remove(name);
                connection.async().unsubscribe(name);
                c.signal.get().complete(null);
            }
        }
    }

    private void onMessage(String channel) {
        Channel c;
        synchronized (channels) {
            c = channels.get(channel);
        }
        if (c != null) {
            c.signal.getAndSet(new CompletableFuture<>()).complete(null);
        }
    }
}
