package io.echomq.queue;

import io.echomq.internal.Checks;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * A queue's default timeout in Redis: the field {@code timeout_ms} of the HASH
 * {@code emq:{q}:settings}.
 *
 * <ol>
 *   <li>Checks a new default before anything is sent, and writes it with one {@code HSET} per
 *       queue, or per partition of a sharded queue's mark ({@link #write}).</li>
 *   <li>Reads it back ({@link #read}; a sharded queue's from its partition 0), and removes it
 *       ({@link #clear}, one {@code HDEL} per queue or partition).</li>
 * </ol>
 *
 * <p>The claim script reads the same field for each job claimed without a timeout of its own
 * ({@code includes/claim.lua}) and hands it to the worker in its reply; this part only stores it.
 * Each call takes the lines to the partitions a queue spans (one for a plain queue), so both
 * kinds of queue share one code path.
 */
final class DefaultTimeoutStore {
    /** The field of {@code emq:{q}:settings} that holds the default, in ms. */
    static final String FIELD = "timeout_ms";

    private DefaultTimeoutStore() {
    }

    /** @throws IllegalArgumentException if the timeout is out of range; nothing is written */
    static void write(List<QueueWire> span, Duration timeout) {
        byte[] ms = Long.toString(Checks.ttlMillis(timeout, EnqueueOptions.MAX_TIMEOUT, "default timeout"))
                .getBytes(StandardCharsets.US_ASCII);
        for (QueueWire w : span) {
            w.await(w.async().hset(w.keys().settings(), FIELD, ms).toCompletableFuture(), "HSET settings");
        }
    }

    /** @return the stored default; empty when none is stored, or when it is not an integer in 1 ms..1 day */
    static Optional<Duration> read(List<QueueWire> span) {
        QueueWire w = span.get(0);
        byte[] v = w.await(w.async().hget(w.keys().settings(), FIELD).toCompletableFuture(), "HGET settings");
        if (v == null || v.length == 0 || v.length > 8) {
            return Optional.empty();
        }
        String text = new String(v, StandardCharsets.US_ASCII);
        if (!text.matches("[1-9][0-9]*") || Long.parseLong(text) > EnqueueOptions.MAX_TIMEOUT.toMillis()) {
            return Optional.empty();   // the claim ignores it too
        }
        return Optional.of(Duration.ofMillis(Long.parseLong(text)));
    }

    /** @return whether a default was stored (for a sharded queue: in any partition) */
    static boolean clear(List<QueueWire> span) {
        boolean cleared = false;
        for (QueueWire w : span) {
            cleared |= w.<Long>await(w.async().hdel(w.keys().settings(), FIELD).toCompletableFuture(),
                    "HDEL settings") == 1L;
        }
        return cleared;
    }
}
