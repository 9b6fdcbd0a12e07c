package io.echomq.docs;

import static org.assertj.core.api.Assertions.assertThat;

import io.echomq.server.RawRedis;
import io.echomq.testkit.SentinelGroup;
import java.time.Duration;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The Sentinel program of docs/scaling.md, read out of the page and run exactly as it stands with the Sentinel URL
 * of a real master, replica and three sentinels as its argument.
 */
@Tag("sentinel")
class SentinelDocsExamplesTest {
    @Test
    void theLockIsTakenWithAReplicaAcknowledgingAndTheJobEnqueuedOnTheMaster() throws Exception {
        try (SentinelGroup group = SentinelGroup.start()) {
            String out = ProgramRunner.start(Snippets.named("SentinelQuickStart").get(0), group.url())
                    .await(Duration.ofSeconds(30));
            assertThat(out).matches("fence [1-9][0-9]*\n");
            try (RawRedis master = group.connect(group.master())) {
                assertThat(master.call("EXISTS", "emq:lock:{invoice-42}:lock")).isEqualTo(0L);
                assertThat(master.call("LLEN", "emq:{emails}:wait")).isEqualTo(1L);
            }
        }
    }
}
