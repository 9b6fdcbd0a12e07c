package io.echomq.internal;

import io.lettuce.core.Delegating;
import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.protocol.DefaultEndpoint;
import io.netty.channel.Channel;
import java.lang.reflect.Field;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Whether a freshly opened Lettuce connection can take its first command yet.
 *
 * <ol>
 *   <li>Waits, briefly, for a new connection's endpoint to become active ({@link #awaitOpen}).</li>
 *   <li>Reads the Netty channel under a single-server connection ({@link #channelOf}), for tests
 *       that look at the pipeline.</li>
 * </ol>
 *
 * <p>Both read one field of Lettuce's {@code DefaultEndpoint} by reflection, so the one fragile
 * dependency on Lettuce's internals lives here, and degrades to "ready" when the field is gone.
 */
final class EndpointReadiness {
    private static final Field ENDPOINT_CHANNEL = endpointChannelField();

    private EndpointReadiness() {
    }

    /**
     * Returns {@code connection} once its endpoint is active. Lettuce completes a connect when the
     * handshake is answered, and activates the endpoint a moment later on its event loop (seen in
     * Lettuce 7.7's debug log: "Connecting … Success" logged before the endpoint's
     * {@code channelActive()}); a command written in between is refused "Currently not connected",
     * because we reject rather than buffer while disconnected. That made about one connect in a
     * thousand fail its first command, mostly with AUTH. {@code isOpen()} does not see this window,
     * so this reads the endpoint's channel (a field of Lettuce's {@code DefaultEndpoint}; Lettuce is
     * an automatic module, so it is readable). Waits at most {@code timeoutMs}, then returns the
     * connection as it is, and the first command fails as it would have. When the field cannot be
     * read (another Lettuce version), it returns at once.
     */
    static <C extends StatefulConnection<?, ?>> C awaitOpen(C connection, long timeoutMs) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        while (!endpointActive(connection) && System.nanoTime() < deadline) {
            LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(200));
        }
        return connection;
    }

    private static Field endpointChannelField() {
        try {
            Field f = DefaultEndpoint.class.getDeclaredField("channel");
            f.setAccessible(true);
            return f;
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null;
        }
    }

    /**
     * @return the Netty channel under a single-server connection, or null when it cannot be read
     *     (a cluster connection, another Lettuce version, or no channel yet); for tests
     */
    static Channel channelOf(StatefulConnection<?, ?> connection) {
        Object endpoint = endpointOf(connection);
        if (endpoint == null) {
            return null;
        }
        try {
            return (Channel) ENDPOINT_CHANNEL.get(endpoint);
        } catch (IllegalAccessException e) {
            return null;
        }
    }

    /** @return false only when the connection's endpoint is known to have no channel yet */
    static boolean endpointActive(StatefulConnection<?, ?> connection) {
        Object endpoint = endpointOf(connection);
        if (endpoint == null) {
            return true;   // e.g. a cluster's writer: its node connections are opened by warm-up
        }
        try {
            return ENDPOINT_CHANNEL.get(endpoint) != null;   // set by notifyChannelActive
        } catch (IllegalAccessException e) {
            return true;
        }
    }

    /** @return the connection's {@code DefaultEndpoint}, or null when it has none or the field is unreadable */
    private static Object endpointOf(StatefulConnection<?, ?> connection) {
        if (ENDPOINT_CHANNEL == null || !(connection instanceof RedisChannelHandler<?, ?> handler)) {
            return null;
        }
        Object writer = handler.getChannelWriter();
        while (writer instanceof Delegating<?> delegating) {
            writer = delegating.getDelegate();
        }
        return writer instanceof DefaultEndpoint ? writer : null;
    }
}
