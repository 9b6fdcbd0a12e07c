package io.echomq.lock;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Tokens keep their published form, and many threads minting at once never repeat one. */
class TokenSourceTest {
    @Test
    void aTokenIs32LowercaseHexCharacters() {
        for (int i = 0; i < 1_000; i++) {
            assertThat(TokenSource.next()).matches("[0-9a-f]{32}");
        }
    }

    @Test
    void threadsSharingStripesNeverMintTheSameToken() throws Exception {
        int threads = TokenSource.stripes() * 2;   // every stripe shared by two threads at least
        Set<String> seen = ConcurrentHashMap.newKeySet();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            for (int t = 0; t < threads; t++) {
                pool.submit(() -> {
                    Set<String> mine = new HashSet<>();
                    for (int i = 0; i < 5_000; i++) {
                        mine.add(TokenSource.next());
                    }
                    seen.addAll(mine);
                });
            }
        } finally {
            pool.shutdown();
            assertThat(pool.awaitTermination(60, TimeUnit.SECONDS)).isTrue();
        }
        assertThat(seen).hasSize(threads * 5_000);
    }

    @Test
    void theStripeIsAPowerOfTwoOfAtLeastTwoGenerators() {
        int n = TokenSource.stripes();
        assertThat(n).isGreaterThanOrEqualTo(2).isLessThanOrEqualTo(64);
        assertThat(Integer.bitCount(n)).isEqualTo(1);
    }
}
