package io.echomq.queue;

import io.echomq.internal.Checks;
import io.echomq.internal.QueueKeys;
import io.echomq.internal.RedisEngine;
import io.lettuce.core.KeyValue;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Whether a queue writes its events stream {@code emq:{q}:events}, how long the stream may grow,
 * and whether enqueues write events too; stored with the queue, as the fields
 * {@code events_max} and {@code events_enqueued} of {@code emq:{q}:retention}, so that every
 * client's scripts agree ({@link #store}, {@link #read}). Immutable; each {@code with…} returns a copy.
 *
 * <ul>
 *   <li><b>On by default:</b> a queue that stores nothing writes events, capped at
 *       {@link #DEFAULT_MAX_LENGTH} entries (BullMQ's default).</li>
 *   <li><b>The cap</b> is {@code XADD … MAXLEN ~ N}: Redis trims whole blocks, so the stream holds
 *       at least N entries and a little more. A reader that falls further behind is told so
 *       ({@link QueueEventListener#onGap}).</li>
 *   <li><b>Enqueued events</b> are off by default: they double the stream's traffic of a
 *       producer-heavy queue, and most consumers want outcomes.</li>
 * </ul>
 */
public final class QueueEventSettings {
    /** Entries kept by default. */
    public static final long DEFAULT_MAX_LENGTH = 10_000;
    /** Largest cap accepted. */
    public static final long MAX_LENGTH = 10_000_000;

    private final long maxLength;
    private final boolean enqueued;

    private QueueEventSettings(long maxLength, boolean enqueued) {
        this.maxLength = maxLength;
        this.enqueued = enqueued;
    }

    /** @return the defaults: on, {@link #DEFAULT_MAX_LENGTH} entries, no enqueued events */
    public static QueueEventSettings defaults() {
        return new QueueEventSettings(DEFAULT_MAX_LENGTH, false);
    }

    /** @return events off: the queue's scripts write none */
    public static QueueEventSettings off() {
        return new QueueEventSettings(0, false);
    }

    /**
     * @param max the stream's cap, 1..{@link #MAX_LENGTH}; 0 switches events off
     * @throws IllegalArgumentException if out of range
     */
    public QueueEventSettings withMaxLength(long max) {
        if (max < 0 || max > MAX_LENGTH) {
            throw new IllegalArgumentException("events max length must be in 0.." + MAX_LENGTH + ", was " + max);
        }
        return new QueueEventSettings(max, enqueued);
    }

    /** @param on whether each enqueued job writes an {@code enqueued} event (only while events are on) */
    public QueueEventSettings withEnqueued(boolean on) {
        return new QueueEventSettings(maxLength, on);
    }

    /** @return whether the queue writes events (a cap above 0) */
    public boolean enabled() {
        return maxLength > 0;
    }

    /** @return the stream's cap; 0 when events are off */
    public long maxLength() {
        return maxLength;
    }

    /** @return whether enqueues write events */
    public boolean enqueued() {
        return enqueued;
    }

    /**
     * Stores the settings with queue {@code queue} (for a sharded queue, name each partition,
     * {@code <q>#<i>}). Takes effect at every client's next script call.
     *
     * @throws IllegalArgumentException if an argument is null or the queue name is invalid
     * @throws io.echomq.RedisCommandException if Redis fails
     */
    public void store(QueueClient client, String queue) {
        Checks.notNull(client, "client");
        QueueKeys keys = QueueKeys.of(queue);
        Map<String, byte[]> fields = new LinkedHashMap<>();
        fields.put("events_max", Long.toString(maxLength).getBytes(StandardCharsets.US_ASCII));
        fields.put("events_enqueued", enqueued ? QueueWire.ONE : QueueWire.ZERO);
        RedisEngine.await(RedisEngine.async(client.context().engine().binary()).hset(keys.retention(), fields)
                .toCompletableFuture(), "HSET retention", keys.queue());
    }

    /**
     * @return the settings stored with queue {@code queue}, or {@link #defaults()} where it stores
     *     none (a stored cap that is no number reads as the default, as the scripts read it)
     * @throws IllegalArgumentException if an argument is null or the queue name is invalid
     * @throws io.echomq.RedisCommandException if Redis fails, or the settings key is no hash
     */
    public static QueueEventSettings read(QueueClient client, String queue) {
        Checks.notNull(client, "client");
        QueueKeys keys = QueueKeys.of(queue);
        List<KeyValue<String, byte[]>> h = RedisEngine.await(RedisEngine.async(client.context().engine().binary())
                .hmget(keys.retention(), "events_max", "events_enqueued").toCompletableFuture(),
                "HMGET retention", keys.queue());
        long max = DEFAULT_MAX_LENGTH;
        if (h.get(0).hasValue()) {
            try {
                max = Math.max(0, (long) Double.parseDouble(QueueWire.text(h.get(0).getValue())));
            } catch (NumberFormatException e) {
                max = DEFAULT_MAX_LENGTH;
            }
        }
        boolean enq = h.get(1).hasValue() && "1".equals(QueueWire.text(h.get(1).getValue()));
        return new QueueEventSettings(max, enq);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof QueueEventSettings s && s.maxLength == maxLength && s.enqueued == enqueued;
    }

    @Override
    public int hashCode() {
        return Long.hashCode(maxLength) * 31 + (enqueued ? 1 : 0);
    }

    @Override
    public String toString() {
        return "QueueEventSettings[maxLength=" + maxLength + ", enqueued=" + enqueued + "]";
    }
}
