package io.echomq.docs;

import static org.assertj.core.api.Assertions.assertThat;

import io.echomq.testkit.RedisExtension;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The programs of docs/flow-control.md, run exactly as they stand. */
class FlowDocsExamplesTest {
    @RegisterExtension
    static final RedisExtension REDIS = new RedisExtension();
    private static final Duration RUN = Duration.ofSeconds(30);

    @Test
    void theCapAndTheRateLimitHoldAWorkerOfEightSlots() throws Exception {
        REDIS.flushAll();
        String out = ProgramRunner.start(Snippets.named("FlowControlQuickStart").get(0), REDIS.url()).await(RUN);
        assertThat(out).isEqualTo("limit 5/1000ms, cap 2\n10 jobs, at most 2 at once, over a second: true\n");
    }

    @Test
    void aHandlersBackOffReturnsTheJobUnspentAndHoldsTheQueue() throws Exception {
        REDIS.flushAll();
        String out = ProgramRunner.start(Snippets.named("HandlerBackOff").get(0), REDIS.url()).await(RUN);
        assertThat(out).isEqualTo("ran after the hold: true, attempt 2, attempts spent 1\n");
    }
}
