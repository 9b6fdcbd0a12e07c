package io.echomq;

/**
 * Told when a client's link to Redis goes down and when it is back, once per outage, however many connections the
 * client holds and however many reconnect attempts the outage takes. Register it with
 * {@link io.echomq.queue.QueueClient#connectionListener(ConnectionListener)}.
 *
 * <p>An outage begins when one of the client's open connections drops (closed by the server, the network, or a
 * proxy) and ends when every connection that dropped is connected again. On a Redis Cluster it also ends once
 * every one of the 16384 slots is served again by a master the client reaches: a master killed for good, its
 * replica promoted in its place, is one outage from the kill to the promotion, not an outage that never ends, and
 * the failed node's links, still retrying, are not reported again. A connection the client closes on purpose
 * (its own close, a link to a node that left the cluster, a read of the cluster's topology) is no drop.
 * Callbacks run on a Lettuce thread: keep them quick, never block, never call Redis from them. A callback that
 * throws is logged and otherwise ignored.
 */
public interface ConnectionListener {
    /**
     * A connection dropped; the client keeps trying to reconnect (commands fail meanwhile).
     *
     * @param redactedUrl the server's URL without credentials
     */
    void onLost(String redactedUrl);

    /**
     * Every connection that dropped is connected again, or, on a Redis Cluster, every slot is served again.
     *
     * @param redactedUrl the server's URL without credentials
     */
    void onBack(String redactedUrl);
}
