package io.echomq.security;

import static org.assertj.core.api.Assertions.assertThat;

import io.echomq.lock.AcquireOptions;
import io.echomq.lock.Lease;
import io.echomq.lock.LockClient;
import io.echomq.testkit.RedisExtension;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Lease tokens are 128 bits from {@link SecureRandom}: 32 lowercase hex characters, never
 * repeated, with every hex digit used in every position over a few thousand tokens, and the only
 * random source on the minting path is a {@code SecureRandom} (read from the code by reflection,
 * for the lock clients, which both mint through the package-private {@code LeaseIssuer}, and for
 * the worker's maintenance token).
 */
class TokenTest {
    private static final int TOKENS = 2000;

    @RegisterExtension
    static final RedisExtension REDIS = new RedisExtension();

    @Test
    void tokensAre32HexDigitsUniqueAndSpreadOverEveryPosition() {
        Set<String> tokens = new HashSet<>();
        boolean[][] seen = new boolean[32][16];
        try (LockClient locks = LockClient.create(REDIS.url())) {
            for (int i = 0; i < TOKENS; i++) {
                AcquireOptions o = i % 2 == 0 ? AcquireOptions.defaults() : AcquireOptions.defaults().plain();
                Lease lease = locks.tryAcquire("token-" + i, Duration.ofSeconds(30), o).orElseThrow();
                String t = lease.token();
                assertThat(t).matches("[0-9a-f]{32}");
                assertThat(tokens.add(t)).as("token %s repeated", t).isTrue();
                for (int p = 0; p < 32; p++) {
                    seen[p][Character.digit(t.charAt(p), 16)] = true;
                }
            }
        }
        // with 2000 uniform tokens, a digit missing from one position has odds of about 32*16*(15/16)^2000
        for (int p = 0; p < 32; p++) {
            for (int d = 0; d < 16; d++) {
                assertThat(seen[p][d]).as("digit %x at position %d", d, p).isTrue();
            }
        }
    }

    @Test
    void theOnlyRandomSourceOnTheMintingPathIsASecureRandom() throws Exception {
        // lock tokens are minted by LeaseIssuer (both lock clients), the worker's maintenance lock
        // token by its Maintenance part
        Class<?> issuer = Class.forName("io.echomq.lock.LeaseIssuer");
        for (Class<?> c : new Class<?>[] {issuer, Class.forName("io.echomq.queue.Maintenance")}) {
            Field f = c.getDeclaredField("RANDOM");
            assertThat(Modifier.isStatic(f.getModifiers())).isTrue();
            f.setAccessible(true);
            assertThat(f.get(null)).as("%s.RANDOM", c.getSimpleName()).isInstanceOf(SecureRandom.class);
        }
    }
}
