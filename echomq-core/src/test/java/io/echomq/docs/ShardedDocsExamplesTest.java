package io.echomq.docs;

import static org.assertj.core.api.Assertions.assertThat;

import io.echomq.testkit.RedisExtension;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The sharded-queue program of docs/scaling.md, read out of the page and run exactly as it stands. */
class ShardedDocsExamplesTest {
    @RegisterExtension
    static final RedisExtension REDIS = new RedisExtension();

    @Test
    void bothJobsAreShippedAndCountedOverTheSixPartitions() throws Exception {
        REDIS.flushAll();
        List<String> out = ProgramRunner.start(Snippets.named("ShardedQuickStart").get(0), REDIS.url())
                .await(Duration.ofSeconds(30)).lines().toList();
        assertThat(out).hasSize(3);
        // sku 7 went round-robin (the first job of its partition); sku 8 by key, maybe into the same partition
        assertThat(out.subList(0, 2)).anyMatch(l -> l.matches("shipping [0-5]-1: \\{\"sku\":7}"))
                .anyMatch(l -> l.matches("shipping [0-5]-[12]: \\{\"sku\":8}"));
        assertThat(out.get(2)).matches("[0-5]-1: 2 completed over 6 partitions");
    }
}
