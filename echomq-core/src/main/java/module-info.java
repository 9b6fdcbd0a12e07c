/**
 * EchoMQ core: the lock API ({@code io.echomq.lock}) and shared types ({@code io.echomq}) over
 * Lettuce. The engine in {@code io.echomq.internal} is not exported.
 */
module io.echomq.core {
    requires lettuce.core;
    requires org.slf4j;
    requires io.netty.transport;
    requires io.netty.handler;
    requires io.netty.buffer;

    exports io.echomq;
    exports io.echomq.lock;
    exports io.echomq.queue;
    exports io.echomq.observe;
    exports io.echomq.audit;

    // Kinds of recurring schedule beyond the fixed interval (cron: the echomq-cron module).
    uses io.echomq.queue.FireTimesProvider;
}
