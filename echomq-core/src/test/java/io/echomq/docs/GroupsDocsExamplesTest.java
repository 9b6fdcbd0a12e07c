package io.echomq.docs;

import static org.assertj.core.api.Assertions.assertThat;

import io.echomq.testkit.RedisExtension;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The fair groups program of docs/flow-control.md, run exactly as it stands. */
class GroupsDocsExamplesTest {
    @RegisterExtension
    static final RedisExtension REDIS = new RedisExtension();

    @Test
    void theSmallCustomerIsServedBeforeTheBigCustomersBacklogAndAPausedGroupAfterItsResume() throws Exception {
        REDIS.flushAll();
        String out = ProgramRunner.start(Snippets.named("FairGroupsExample").get(0), REDIS.url())
                .await(Duration.ofSeconds(30));
        assertThat(out).isEqualTo("GroupCount[group=customer-big, waiting=4, active=0, paused=false]\n"
                + "[big-1, small-1, big-2, big-3, big-4]\nlate-1\n");
    }
}
