package io.echomq.docs;

import static org.assertj.core.api.Assertions.assertThat;

import io.echomq.testkit.RedisExtension;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The cluster program of docs/scaling.md, read out of the page and run exactly as it stands with the test server's
 * URL as its argument: on the cluster passes a {@code redis-cluster://} URL of three masters, otherwise one server,
 * which the same calls serve too.
 */
class ScalingDocsExamplesTest {
    @RegisterExtension
    static final RedisExtension REDIS = new RedisExtension();

    @Test
    void theLockIsTakenAndReleasedAndTheJobEnqueued() throws Exception {
        REDIS.flushAll();
        String out = ProgramRunner.start(Snippets.named("ClusterQuickStart").get(0), REDIS.url())
                .await(Duration.ofSeconds(30));
        // the server as INFO server names it (Redis or Valkey), and a cluster says so
        String product = REDIS.servers().get(0).product();
        assertThat(out).startsWith(RedisExtension.clusterMode() ? product + " Cluster " : product + " ").endsWith("\n");
        assertThat(REDIS.raw().call("EXISTS", "emq:lock:{invoice-42}:lock")).isEqualTo(0L);
        assertThat((String) REDIS.raw().call("GET", "emq:lock:{invoice-42}:fence")).as("the grant's fence was kept")
                .matches("[1-9][0-9]*");
        assertThat(REDIS.raw().call("LLEN", "emq:{emails}:wait")).isEqualTo(1L);
    }
}
