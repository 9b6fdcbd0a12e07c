package io.echomq.lock;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The Java snippet of docs/scaling.md "## Redlock", verbatim apart from the server URLs, run on
 * three real masters.
 */
class RedlockDocsExamplesTest {

    @Test
    void howItWorks() throws Exception {
        try (RedlockMastersFixture masters = new RedlockMastersFixture(3)) {
            String url1 = masters.urls().get(0);
            String url2 = masters.urls().get(1);
            String url3 = masters.urls().get(2);
            Duration seen;
            // --- docs/scaling.md "How it works" ---
            try (RedlockClient redlock = RedlockClient.builder()
                    .redisUrls(List.of(url1, url2, url3))
                    .masterTimeout(Duration.ofMillis(200))   // one command on one master; keep it well under the ttl
                    .retryDelay(Duration.ofMillis(200))      // between attempts of acquire(), jittered ±50%
                    .build()) {

                try (Lease lease = redlock.acquire("invoice-42", Duration.ofSeconds(30), Duration.ofSeconds(5))) {
                    Duration left = lease.remaining();   // ttl − elapsed − drift: how long you may rely on it
                    // ... work for less than that, or renew() ...
                    seen = left;
                    assertThat(masters.getOnEach("emq:lock:{invoice-42}:lock")).containsOnly(lease.token());
                }                                        // close() releases on every master
            }
            // --- end ---
            assertThat(seen).isPositive().isLessThan(Duration.ofSeconds(30).minusMillis(302));
            assertThat(masters.getOnEach("emq:lock:{invoice-42}:lock")).containsExactly(null, null, null);
        }
    }
}
