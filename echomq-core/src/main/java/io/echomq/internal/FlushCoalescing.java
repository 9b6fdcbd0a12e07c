package io.echomq.internal;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import io.lettuce.core.resource.NettyCustomizer;
import io.netty.channel.Channel;
import io.netty.handler.flush.FlushConsolidationHandler;
import java.util.concurrent.TimeUnit;

/**
 * The Lettuce resources (event loops, timers) an engine runs on, and their end.
 *
 * <ol>
 *   <li>Builds them with a {@link FlushConsolidationHandler} at the head of every channel's pipeline
 *       ({@link #resources()}).</li>
 *   <li>Shuts down a client and then these resources, which a client created with given resources
 *       leaves running ({@link #shutdown}).</li>
 * </ol>
 *
 * <p>Together because the engine owns the resources it creates: whoever builds them must also be
 * the one place that releases them.
 */
final class FlushCoalescing {
    /** The name of the {@link FlushConsolidationHandler} in every channel's pipeline. */
    static final String FLUSH_CONSOLIDATION = "echomq-flush-consolidation";

    private FlushCoalescing() {
    }

    /**
     * @return Lettuce's default resources (event loops, timers), except that every channel they open
     *     gets a {@link FlushConsolidationHandler} at the head of its pipeline, the side of the socket,
     *     below TLS when there is TLS. Lettuce writes each command with its own flush; from a caller
     *     thread that is one event-loop task and one {@code write()} system call per command, and on
     *     the server one {@code read()} and one {@code write()} per command. The handler lets the
     *     event loop hold back the flushes of the writes it makes while it is reading replies, and
     *     flushes them once, at the end of that read: the commands that callers sent while their
     *     earlier replies were arriving leave in one {@code write()}. With no read in progress a
     *     flush goes out at once, so a lone command is never held back. (Queuing those flushes too,
     *     Netty's {@code consolidateWhenNoReadInProgress}, made 16 threads of lock pairs 10-15%
     *     slower on a quiet 2-core machine, so it is off.) The
     *     resources belong to the engine, which shuts them down on {@link RedisEngine#close()}.
     */
    static ClientResources resources() {
        return DefaultClientResources.builder().nettyCustomizer(new NettyCustomizer() {
            @Override
            public void afterChannelInitialized(Channel channel) {
                // false: with no read in progress a flush goes out at once. true (a flush task queued
                // behind the writes) cost 10-15% of the 16-thread pairs/s on a quiet machine (BENCHMARKS.md)
                channel.pipeline().addFirst(FLUSH_CONSOLIDATION,
                        new FlushConsolidationHandler(FlushConsolidationHandler.DEFAULT_EXPLICIT_FLUSH_AFTER_FLUSHES, false));
            }
        }).build();
    }

    /** Shuts down {@code client}, then {@code resources}, each within two seconds. */
    static void shutdown(AbstractRedisClient client, ClientResources resources) {
        try {
            client.shutdown(0, 2, TimeUnit.SECONDS);
        } finally {
            // ours, not the client's: a client created with given resources leaves them running
            resources.shutdown(0, 2, TimeUnit.SECONDS);
        }
    }
}
