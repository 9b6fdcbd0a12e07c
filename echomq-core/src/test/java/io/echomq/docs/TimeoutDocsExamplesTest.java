package io.echomq.docs;

import static org.assertj.core.api.Assertions.assertThat;

import io.echomq.testkit.RedisExtension;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The timeout programs of docs/queue.md, run exactly as they stand. */
class TimeoutDocsExamplesTest {
    @RegisterExtension
    static final RedisExtension REDIS = new RedisExtension();
    private static final Duration RUN = Duration.ofSeconds(30);

    @Test
    void aHungHandlerIsEndedAtTheTimeoutAndItsJobFailedAsTimeout() throws Exception {
        REDIS.flushAll();
        String out = ProgramRunner.start(Snippets.named("Timeouts").get(0), REDIS.url()).await(RUN);
        assertThat(out).isEqualTo("DEAD true true\nio.echomq.queue.JobTimeoutException: TIMEOUT: job 1 attempt 1 "
                + "ran past its timeout of 200 ms; its handler was asked to stop\n");
    }

    @Test
    void theJobsOwnTimeoutWinsOverTheQueuesDefaultWhichWinsOverTheWorkers() throws Exception {
        REDIS.flushAll();
        String out = ProgramRunner.start(Snippets.named("TimeoutPrecedence").get(0), REDIS.url()).await(RUN);
        assertThat(out).isEqualTo("by-queue DEAD under 300 ms\nby-job COMPLETED under 5000 ms\n"
                + "default 300 ms, cleared true\n");
    }
}
