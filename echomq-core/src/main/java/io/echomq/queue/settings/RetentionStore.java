package io.echomq.queue;

import io.lettuce.core.KeyValue;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One queue's retention settings in Redis, the HASH {@code emq:{q}:retention}.
 *
 * <ol>
 *   <li>Writes all four fields in one {@code HSET} ({@link #write}): {@code done_max},
 *       {@code done_age_ms}, {@code dead_max}, {@code dead_age_ms}.</li>
 *   <li>Reads them back ({@link #read}); empty when the queue stores none.</li>
 * </ol>
 *
 * <p>The scripts that add to the done index and the dead set read the same fields
 * ({@code includes/complete.lua}, {@code includes/dead-cap.lua}); this part only stores them.
 */
final class RetentionStore {
    private final QueueWire wire;

    RetentionStore(QueueWire wire) {
        this.wire = wire;
    }

    void write(QueueRetention r) {
        Map<String, byte[]> fields = new LinkedHashMap<>();
        fields.put("done_max", QueueWire.num(r.doneMax()));
        fields.put("done_age_ms", QueueWire.num(r.doneAge().toMillis()));
        fields.put("dead_max", QueueWire.num(r.deadMax()));
        fields.put("dead_age_ms", QueueWire.num(r.deadAge().toMillis()));
        wire.await(wire.async().hset(wire.keys().retention(), fields).toCompletableFuture(), "HSET retention");
    }

    /** @return the stored settings; a field that is absent or no integer reads as its default */
    Optional<QueueRetention> read() {
        List<KeyValue<String, byte[]>> h = wire.await(wire.async().hmget(wire.keys().retention(), "done_max",
                "done_age_ms", "dead_max", "dead_age_ms").toCompletableFuture(), "HMGET retention");
        if (h.stream().noneMatch(KeyValue::hasValue)) {
            return Optional.empty();
        }
        return Optional.of(QueueRetention.of(
                field(h.get(0), QueueRetention.DEFAULT_DONE_MAX),
                field(h.get(1), QueueRetention.DEFAULT_DONE_AGE.toMillis()),
                field(h.get(2), QueueRetention.DEFAULT_DEAD_MAX),
                field(h.get(3), QueueRetention.DEFAULT_DEAD_AGE.toMillis())));
    }

    private static long field(KeyValue<String, byte[]> kv, long otherwise) {
        if (!kv.hasValue()) {
            return otherwise;
        }
        try {
            return Math.max(0, Long.parseLong(new String(kv.getValue(), StandardCharsets.US_ASCII)));
        } catch (NumberFormatException e) {
            return otherwise;
        }
    }
}
