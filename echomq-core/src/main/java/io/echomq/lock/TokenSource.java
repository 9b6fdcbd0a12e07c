package io.echomq.lock;

import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.HexFormat;

/**
 * Mints lock tokens: 128 bits from a {@code SecureRandom} as 32 lowercase hex characters.
 *
 * <ol>
 *   <li>Unguessable, not merely unique: {@code release(resource, token)} and
 *       {@code renew(resource, token, ttl)} act for whoever presents the token, and
 *       {@code docs/security.md} promises that no other client can release or renew a lock by
 *       guessing it. So the bits come from a cryptographic generator, never a counter or a
 *       {@code java.util.Random}.</li>
 *   <li>Uncontended: one shared {@code SecureRandom} (NativePRNG on Linux) serialises every
 *       thread of the JVM on one monitor and reads {@code /dev/urandom} under it. Instead there
 *       is a fixed stripe of {@code DRBG} instances (NIST SP 800-90A, each seeded from the
 *       system's entropy when created, reseeding as the standard requires); a thread uses the
 *       stripe its id picks. Each instance is thread-safe by itself, so two threads that share a
 *       stripe only take turns.</li>
 *   <li>Unique per grant in practice: two tokens collide with probability about
 *       n²/2<sup>129</sup> for n tokens, for all clients together.</li>
 * </ol>
 *
 * <p>The stripe is fixed at class load (a power of two, at least twice the processors, at most
 * 64), so virtual threads do not each seed a generator of their own.
 */
final class TokenSource {
    private static final HexFormat HEX = HexFormat.of();
    private static final SecureRandom[] STRIPES = stripes(Runtime.getRuntime().availableProcessors());
    private static final int MASK = STRIPES.length - 1;

    private TokenSource() {
    }

    /** @return a fresh token: 128 bits from a {@code SecureRandom}, 32 lowercase hex characters */
    @SuppressWarnings("deprecation")   // Thread.getId: threadId() is JDK 19+, and this builds for 17
    static String next() {
        byte[] bytes = new byte[16];
        STRIPES[(int) Thread.currentThread().getId() & MASK].nextBytes(bytes);
        return HEX.formatHex(bytes);
    }

    /** @return how many generators share the work, for tests */
    static int stripes() {
        return STRIPES.length;
    }

    private static SecureRandom[] stripes(int processors) {
        int twice = 2 * Math.max(1, Math.min(32, processors));
        int n = Integer.highestOneBit(twice - 1) << 1;   // the power of two at or above twice the processors
        SecureRandom[] all = new SecureRandom[n];
        for (int i = 0; i < all.length; i++) {
            all[i] = newGenerator();
        }
        return all;
    }

    private static SecureRandom newGenerator() {
        try {
            return SecureRandom.getInstance("DRBG");
        } catch (NoSuchAlgorithmException e) {
            return new SecureRandom();   // every JDK since 9 has DRBG; this is only a fallback
        }
    }
}
