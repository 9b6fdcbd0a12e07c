package io.echomq.docs;

import static org.assertj.core.api.Assertions.assertThat;

import io.echomq.testkit.RedisExtension;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The pause, resume and cancel program and the pending layout program of docs/queue.md, run exactly as they stand. */
class ControlDocsExamplesTest {
    @RegisterExtension
    static final RedisExtension REDIS = new RedisExtension();
    private static final Duration RUN = Duration.ofSeconds(30);

    @Test
    void pauseStopsTheClaimAndCancelAnswersEachCase() throws Exception {
        REDIS.flushAll();
        String out = ProgramRunner.start(Snippets.named("PauseAndCancel").get(0), REDIS.url()).await(RUN);
        assertThat(out).isEqualTo("paused true, claimed false\nCANCELLED SIGNALLED CANCELLED true\n");
    }

    @Test
    void theLayoutSwitchMovesTheWaitingJobAndTheNextGoesStraightToTheZset() throws Exception {
        REDIS.flushAll();
        String out = ProgramRunner.start(Snippets.named("PendingLayout").get(0), REDIS.url()).await(RUN);
        assertThat(out).isEqualTo("ZSET moved 1, pending 2\n");
        assertThat(REDIS.raw().call("ZCARD", "emq:{reports}:pending")).isEqualTo(2L);
        assertThat(REDIS.raw().call("EXISTS", "emq:{reports}:wait")).isEqualTo(0L);
    }
}
