package io.echomq.queue;

import java.time.Instant;
import java.util.Objects;

/**
 * One group of a queue's failures ({@link ErrorGroups}): the failed attempts whose error text
 * starts with the same line, which for a thrown exception names its class and message.
 *
 * @param fingerprint the error's first line, stripped, cut after 200 bytes; {@code (no error text)}
 *                    for an empty error
 * @param count       failed attempts with that first line since the group was first seen (each
 *                    retry is one, as the {@code failed} counter counts them)
 * @param firstSeen   the first of them, server time
 * @param lastSeen    the last of them, server time
 */
public record ErrorGroup(String fingerprint, long count, Instant firstSeen, Instant lastSeen) {
    /**
     * @throws NullPointerException if a value is null
     */
    public ErrorGroup {
        Objects.requireNonNull(fingerprint, "fingerprint");
        Objects.requireNonNull(firstSeen, "firstSeen");
        Objects.requireNonNull(lastSeen, "lastSeen");
    }
}
