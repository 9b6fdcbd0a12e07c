package io.echomq.internal;

import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Wakes waiters when a message arrives on a pub/sub channel: a lock's release channel, or a
 * queue's wake channel. Keeps one subscription per channel that has waiters, on the engine's
 * dedicated pub/sub connection, and completes the channel's current signal on every message.
 *
 * <p>A waiter takes the current signal <em>before</em> it tries (to acquire, to claim), so a
 * message that lands between its failed try and its wait still wakes it.
 */
public final class ChannelSignals {
    private final RedisEngine engine;
    private final Map<String, Channel> channels = new HashMap<>();
    private StatefulRedisPubSubConnection<String, String> connection; // guarded by channels

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
    }

    /** Joins the waiters of {@code channel}, subscribing if it is the first. */
    public Waiter join(String channel) {
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
