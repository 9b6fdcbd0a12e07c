package io.echomq.docs;

import static org.assertj.core.api.Assertions.assertThat;

import io.echomq.testkit.RedisExtension;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The program of docs/observability.md that implements the hook itself, read out of the page and run as it stands. */
class ObservabilityDocsExamplesTest {
    @RegisterExtension
    static final RedisExtension REDIS = new RedisExtension();

    @Test
    void anOwnInstrumentationCountsTheJobsCreated() throws Exception {
        REDIS.flushAll();
        String out = ProgramRunner.start(Snippets.named("OwnInstrumentation").get(0), REDIS.url())
                .await(Duration.ofSeconds(30));
        assertThat(out.strip()).isEqualTo("enqueued 3");
    }
}
