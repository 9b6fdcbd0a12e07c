package io.echomq.docs;

import static org.assertj.core.api.Assertions.assertThat;

import io.echomq.testkit.RedisExtension;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The job results program of docs/queue.md, run exactly as it stands. */
class ResultsDocsExamplesTest {
    @RegisterExtension
    static final RedisExtension REDIS = new RedisExtension();

    @Test
    void aWaiterGetsTheHandlersResultAndATimeoutForAJobStillRetrying() throws Exception {
        REDIS.flushAll();
        String out = ProgramRunner.start(Snippets.named("JobResults").get(0), REDIS.url())
                .await(Duration.ofSeconds(30));
        assertThat(out).isEqualTo("COMPLETED 42\nTIMED_OUT\n");
    }
}
