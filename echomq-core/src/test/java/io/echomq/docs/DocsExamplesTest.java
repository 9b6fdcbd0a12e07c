package io.echomq.docs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.echomq.testkit.RedisExtension;
import java.time.Duration;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The lock programs of README.md and docs/locks.md, read out of the pages and run exactly as they stand, with the
 * test server's URL as their argument; then what they printed and what they left in Redis.
 */
class DocsExamplesTest {
    @RegisterExtension
    static final RedisExtension REDIS = new RedisExtension();
    private static final Duration RUN = Duration.ofSeconds(30);

    @BeforeEach
    void flush() {
        REDIS.flushAll();
    }

    @Test
    void quickStartTakesTheLockTwiceAndLeavesItFree() throws Exception {
        for (DocSnippets.Snippet s : Snippets.named("LockQuickStart")) {
            REDIS.flushAll();
            String out = ProgramRunner.start(s, REDIS.url()).await(RUN);
            assertThat(out).as(s.toString()).isEqualTo("took invoice-42, fence 1\nwaited for invoice-42, fence 2\n");
            assertThat(REDIS.raw().call("EXISTS", "emq:lock:{invoice-42}:lock")).as(s.toString()).isEqualTo(0L);
            // Run again on the same server: nothing was left held, so it neither waits nor fails.
            String again = ProgramRunner.start(s, REDIS.url()).await(RUN);
            assertThat(again).isEqualTo("took invoice-42, fence 3\nwaited for invoice-42, fence 4\n");
        }
    }

    @Test
    void optionsBehaveAsTheirCommentsSay() throws Exception {
        String out = ProgramRunner.start(Snippets.named("LockOptions").get(0), REDIS.url()).await(RUN);
        assertThat(out.lines().toList()).hasSize(3);
        assertThat(out.lines().limit(2)).containsExactly("plain: fenced=false", "watched: watchdog=true");
        assertThat(out.lines().toList().get(2)).startsWith("not acked: Lock 'report' was granted but only 0 of 1");
        assertThat(REDIS.raw().call("EXISTS", "emq:lock:{report}:lock")).as("the unacked grant was released")
                .isEqualTo(0L);
    }

    @Test
    void settingsTakeEffect() throws Exception {
        String out = ProgramRunner.start(Snippets.named("LockSettings").get(0), REDIS.url()).await(RUN);
        assertThat(out).isEqualTo("myapp:lock:{invoice-42}:lock held, fence 1\n");
        assertThat(REDIS.raw().call("GET", "myapp:lock:{invoice-42}:fence")).isEqualTo("1");
        assertThat(REDIS.raw().call("EXISTS", "myapp:lock:{invoice-42}:lock")).isEqualTo(0L);
    }

    @Test
    void aLostLeaseStopsTheWork() throws Exception {
        ProgramRunner.Run run = ProgramRunner.start(Snippets.named("LossStopsWork").get(0), REDIS.url());
        await().atMost(RUN).until(() -> Long.valueOf(1).equals(REDIS.raw().call("EXISTS",
                "emq:lock:{report}:lock")));
        REDIS.raw().call("DEL", "emq:lock:{report}:lock");   // the lease is gone: its next renewal finds out
        String out = run.await(RUN);
        assertThat(out).isEqualTo("report stopped: the lease was lost\n");
    }

    @Test
    void fencedWriteIsWrittenWithTheLeasesFence() throws Exception {
        String out = ProgramRunner.start(Snippets.named("FencedWrite").get(0), REDIS.url()).await(RUN);
        assertThat(out).isEqualTo("WRITTEN FencedValue[value=42, fence=1]\n");
        assertThat(REDIS.raw().call("EXISTS", "emq:lock:{sku-7}:lock")).isEqualTo(0L);
    }
}
