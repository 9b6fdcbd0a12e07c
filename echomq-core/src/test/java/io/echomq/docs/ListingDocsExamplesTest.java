package io.echomq.docs;

import static org.assertj.core.api.Assertions.assertThat;

import io.echomq.testkit.RedisExtension;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The listing, retention and delete program of docs/queue.md, run exactly as it stands. */
class ListingDocsExamplesTest {
    @RegisterExtension
    static final RedisExtension REDIS = new RedisExtension();

    @Test
    void listingWalksThreePagesThenDeletesTheQueue() throws Exception {
        REDIS.flushAll();
        String out = ProgramRunner.start(Snippets.named("ListingAndRetention").get(0), REDIS.url())
                .await(Duration.ofSeconds(30));
        // the five jobs' pending bucket (they wait with no hash of their own), the wait list, seq,
        // the retention settings and the protocol mark
        assertThat(out).isEqualTo("1 pending\n2 pending\n3 pending\n4 pending\n5 pending\n"
                + "3 pages; deleted true, 5 keys\n");
        assertThat(REDIS.raw().call("DBSIZE")).isEqualTo(0L);
    }
}
