package io.echomq.internal;

import io.echomq.ConnectionListener;
import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisConnectionStateListener;
import java.net.SocketAddress;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns Lettuce's per-connection state changes into one "lost" and one "back" per outage for a
 * {@link ConnectionListener}.
 *
 * <ol>
 *   <li>Counts the connections down: each {@code onRedisDisconnected} (a channel went inactive) adds one, each
 *       {@code onRedisConnected} (a channel went active, a reconnect included) takes one off while any is down.
 *       The first drop says lost; the count returning to zero says back. Failed reconnect attempts never become
 *       active, so they are silent.</li>
 *   <li>A connection first opened after the watch began connects with nothing down: not counted.</li>
 *   <li>It listens on this engine's own client, so only this client's connections are seen.</li>
 * </ol>
 */
final class ConnectionWatch implements RedisConnectionStateListener {
    private static final Logger LOG = LoggerFactory.getLogger(ConnectionWatch.class);

    private final AbstractRedisClient client;
    private final ConnectionListener listener;
    private final String redactedUrl;
    private int down;   // guarded by this

    ConnectionWatch(AbstractRedisClient client, String redactedUrl, ConnectionListener listener) {
        this.client = client;
        this.listener = listener;
        this.redactedUrl = redactedUrl;
        client.addListener(this);
    }

    @Override
    public void onRedisDisconnected(RedisChannelHandler<?, ?> connection) {
        boolean lost;
        synchronized (this) {
            lost = down++ == 0;
        }
        if (lost) {
            tell(true);
        }
    }

    @Override
    public void onRedisConnected(RedisChannelHandler<?, ?> connection, SocketAddress address) {
        boolean back = false;
        synchronized (this) {
            if (down > 0) {
                back = --down == 0;
            }
        }
        if (back) {
            tell(false);
        }
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
        client.removeListener(this);
    }
}
