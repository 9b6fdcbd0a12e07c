package io.echomq.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.echomq.testkit.RedisExtension;
import io.lettuce.core.api.StatefulConnection;
import io.netty.channel.Channel;
import io.netty.handler.flush.FlushConsolidationHandler;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Every connection of the engine coalesces its flushes ({@link FlushCoalescing#resources()}),
 * and that changes nothing a caller can see: each command gets its own reply, in order, from many
 * threads at once, and a lone command is answered without anything else to push it out.
 */
class FlushConsolidationTest {
    @RegisterExtension
    static final RedisExtension REDIS = new RedisExtension();

    @Test
    @Tag("standalone-only")   // reads the channel of a single-server connection
    void everyConnectionOfTheEngineHasTheHandlerAtTheHeadOfItsPipeline() {
        try (RedisEngine engine = EngineConnector.connect(REDIS.url(), Duration.ofSeconds(10))) {
            List<StatefulConnection<?, ?>> all = List.of(engine.main(), engine.pipelined(), engine.pubSub(),
                    engine.binary());
            for (StatefulConnection<?, ?> c : all) {
                Channel channel = EndpointReadiness.channelOf(c);
                assertThat(channel).as("channel of %s", c).isNotNull();
                assertThat(channel.pipeline().first()).as("head handler of %s", c)
                        .isInstanceOf(FlushConsolidationHandler.class);
                assertThat(channel.pipeline().get(FlushCoalescing.FLUSH_CONSOLIDATION)).isNotNull();
            }
        }
    }

    @Test
    void aLoneCommandIsAnsweredWithoutAnyOtherTraffic() throws Exception {
        try (RedisEngine engine = EngineConnector.connect(REDIS.url(), Duration.ofSeconds(10))) {
            for (int i = 0; i < 50; i++) {
                // one at a time: each must be flushed on its own, never left waiting for a batch
                assertThat(engine.commands().set("lone:{k}", "v" + i).get(5, TimeUnit.SECONDS)).isEqualTo("OK");
                assertThat(engine.commands().get("lone:{k}").get(5, TimeUnit.SECONDS)).isEqualTo("v" + i);
            }
        }
    }

    @Test
    void manyThreadsOnOneConnectionEachGetTheirOwnRepliesInOrder() throws Exception {
        int threads = 16;
        int rounds = 2_000;
        try (RedisEngine engine = EngineConnector.connect(REDIS.url(), Duration.ofSeconds(10))) {
            ExecutorService pool = Executors.newFixedThreadPool(threads);
            try {
                List<Future<Integer>> done = new ArrayList<>();
                for (int t = 0; t < threads; t++) {
                    String key = "coalesce:{t" + t + "}";
                    done.add(pool.submit(() -> {
                        int checked = 0;
                        for (int i = 0; i < rounds; i++) {
                            // async, two in flight per thread on one connection: in order, each
                            // reply matched to its command
                            CompletableFuture<Long> incr = engine.commands().incr(key).toCompletableFuture();
                            CompletableFuture<String> get = engine.commands().get(key).toCompletableFuture();
                            long n = incr.get(10, TimeUnit.SECONDS);
                            assertThat(n).isEqualTo(i + 1);
                            assertThat(get.get(10, TimeUnit.SECONDS)).isEqualTo(Long.toString(i + 1));
                            // and the binary connection, sent once the write is known done
                            CompletableFuture<byte[]> bin = RedisEngine.async(engine.binary()).get(key)
                                    .toCompletableFuture();
                            assertThat(new String(bin.get(10, TimeUnit.SECONDS), StandardCharsets.UTF_8))
                                    .isEqualTo(Long.toString(i + 1));
                            checked++;
                        }
                        return checked;
                    }));
                }
                int total = 0;
                for (Future<Integer> f : done) {
                    total += f.get(120, TimeUnit.SECONDS);
                }
                assertThat(total).isEqualTo(threads * rounds);
            } finally {
                pool.shutdownNow();
            }
        }
    }
}
