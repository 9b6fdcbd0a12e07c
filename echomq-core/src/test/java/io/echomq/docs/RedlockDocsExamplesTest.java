package io.echomq.docs;

import static org.assertj.core.api.Assertions.assertThat;

import io.echomq.server.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The Redlock program of docs/scaling.md, read out of the page and run exactly as it stands, with three real
 * masters' URLs as its arguments.
 */
class RedlockDocsExamplesTest {

    @Test
    void heldOnAMajorityAndReleasedOnEveryMaster() throws Exception {
        List<RedisServer> masters = new ArrayList<>();
        try {
            for (int i = 0; i < 3; i++) {
                masters.add(RedisServer.start());
            }
            String out = ProgramRunner.start(Snippets.named("RedlockQuickStart").get(0),
                    masters.stream().map(RedisServer::url).toArray(String[]::new)).await(Duration.ofSeconds(30));
            assertThat(out).matches("held on a majority, [0-9]+ ms left, token [0-9a-f]{32}\n");
            long left = Long.parseLong(out.replaceAll(".*, ([0-9]+) ms left.*\n", "$1"));
            assertThat(left).as("ttl 30 s less elapsed time and drift (30 s / 100 + 2 ms)")
                    .isPositive().isLessThanOrEqualTo(30_000 - 302);
            for (RedisServer m : masters) {
                try (io.echomq.server.RawRedis raw = io.echomq.server.RawRedis.connect(m.host(), m.port())) {
                    assertThat(raw.call("EXISTS", "emq:lock:{invoice-42}:lock")).as("released on " + m.url())
                            .isEqualTo(0L);
                    assertThat(raw.call("GET", "emq:lock:{invoice-42}:fence")).as("granted on " + m.url())
                            .isNotNull();
                }
            }
        } finally {
            masters.forEach(RedisServer::close);
        }
    }
}
