package io.echomq;

/**
 * Told when a client's link to Redis goes down and when it is back, once per outage, however many connections the
 * client holds and however many reconnect attempts the outage takes. Register it with
 * {@link io.echomq.queue.QueueClient#connectionListener(ConnectionListener)}.
 *
 * <p>An outage begins when one of the client's open connections drops (closed by the server, the network, or a
 * proxy) and ends when every connection that dropped is connected again. Connections the client closes itself
 * while it shuts down also end as drops, so stop listening before closing the client. Callbacks run on a Lettuce
 * event-loop thread: keep them quick, never block, never call Redis from them. A callback that throws is logged
 * and otherwise ignored.
 */
public interface ConnectionListener {
    /**
     * A connection dropped; the client keeps trying to reconnect (commands fail meanwhile).
     *
     * @param redactedUrl the server's URL without credentials
     */
    void onLost(String redactedUrl);

    /**
     * Every connection that dropped is connected again.
     *
     * @param redactedUrl the server's URL without credentials
     */
    void onBack(String redactedUrl);
}
