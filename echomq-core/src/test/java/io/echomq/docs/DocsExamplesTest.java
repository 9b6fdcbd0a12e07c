package io.echomq.docs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.echomq.testkit.RedisExtension;
import java.time.Duration;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
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
            long[] first = fences(out, "took invoice-42, fence (\\d+)\nwaited for invoice-42, fence (\\d+)\n", s);
            assertThat(REDIS.raw().call("EXISTS", "emq:lock:{invoice-42}:lock")).as(s.toString()).isEqualTo(0L);
            // Run again on the same server: nothing was left held, so it neither waits nor fails.
            String again = ProgramRunner.start(s, REDIS.url()).await(RUN);
            long[] second = fences(again, "took invoice-42, fence (\\d+)\nwaited for invoice-42, fence (\\d+)\n", s);
            // fences are bound to the server's clock, not 1, 2, 3: each grant's is above every earlier one
            assertThat(first[1]).isGreaterThan(first[0]);
            assertThat(second[0]).isGreaterThan(first[1]);
            assertThat(second[1]).isGreaterThan(second[0]);
        }
    }

    @Test
    @Tag("standalone-only")   // the program asks for waitForReplicas, which a cluster URL refuses (docs/scaling.md)
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
        long fence = fences(out, "myapp:lock:\\{invoice-42\\}:lock held, fence (\\d+)\n", "LockSettings")[0];
        assertThat(REDIS.raw().call("GET", "myapp:lock:{invoice-42}:fence")).isEqualTo(Long.toString(fence));
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
    void codeWrittenAgainstLocksRunsOnTheClientItIsGiven() throws Exception {
        String out = ProgramRunner.start(Snippets.named("OneContract").get(0), REDIS.url()).await(RUN);
        long fence = fences(out, "report locked on emq:lock:\\{report\\}:lock, fence (\\d+)\n", "OneContract")[0];
        assertThat(REDIS.raw().call("GET", "emq:lock:{report}:fence")).isEqualTo(Long.toString(fence));
        assertThat(REDIS.raw().call("EXISTS", "emq:lock:{report}:lock")).as("released at the end of the try").isEqualTo(0L);
    }

    @Test
    void theLockAdapterIsReentrantOwnedByItsThreadAndReleasesAtTheLastUnlock() throws Exception {
        String out = ProgramRunner.start(Snippets.named("LockAdapter").get(0), REDIS.url()).await(RUN);
        long[] fences = fences(out, "holds 2, fence (\\d+)\nanother thread: IllegalMonitorStateException\n"
                + "tryLock: fence (\\d+)\n", "LockAdapter");
        assertThat(fences[1]).as("a second grant after the release").isGreaterThan(fences[0]);
        assertThat(REDIS.raw().call("EXISTS", "emq:lock:{invoice-42}:lock")).as("released at the last unlock")
                .isEqualTo(0L);
    }

    @Test
    void fencedWriteIsWrittenWithTheLeasesFence() throws Exception {
        String out = ProgramRunner.start(Snippets.named("FencedWrite").get(0), REDIS.url()).await(RUN);
        long fence = fences(out, "WRITTEN FencedValue\\[value=42, fence=(\\d+)\\]\n", "FencedWrite")[0];
        assertThat(fence).as("the lease's fence, a clock-bound number").isPositive();
        assertThat(REDIS.raw().call("EXISTS", "emq:lock:{sku-7}:lock")).isEqualTo(0L);
    }

    /** @return the numbers the groups of {@code pattern} match in {@code out}, which must match it whole */
    static long[] fences(String out, String pattern, Object what) {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile(pattern).matcher(out);
        assertThat(m.matches()).as(what + " printed " + out).isTrue();
        long[] numbers = new long[m.groupCount()];
        for (int i = 0; i < numbers.length; i++) {
            numbers[i] = Long.parseLong(m.group(i + 1));
        }
        return numbers;
    }
}
