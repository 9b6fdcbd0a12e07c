package io.echomq.docs;

import static org.assertj.core.api.Assertions.assertThat;

import io.echomq.testkit.RedisExtension;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The programs of docs/observability.md (the hook implemented by hand; following a queue's events), read out of the page and run as they stand. */
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

    @Test
    void theEventsProgramFollowsAQueueAndResumesAfterTheIdItKept() throws Exception {
        REDIS.flushAll();
        String out = ProgramRunner.start(Snippets.named("FollowQueueEvents").get(0), REDIS.url())
                .await(Duration.ofSeconds(30));
        assertThat(out).isEqualTo("active job 1\ncompleted job 1\nretrying job 2: smtp down\n");
    }
}
