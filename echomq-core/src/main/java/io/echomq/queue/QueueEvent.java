package io.echomq.queue;

import java.util.Map;

/**
 * One entry of a queue's events stream {@code emq:{q}:events}, as {@link QueueEvents} reads it,
 * or the reader's own notice that it may have missed entries ({@link #isGap()}).
 *
 * <p>The names a script writes (docs/protocol.md, "Events"): {@code enqueued} (only when the
 * queue's {@link QueueEventSettings#enqueued()} is on), {@code active}, {@code completed},
 * {@code retrying}, {@code dead}, {@code expired} (a reaped lease), {@code returned},
 * {@code progress}, {@code removed}, {@code cancelled}. {@code retrying}, {@code dead} and
 * {@code cancelled} carry a {@code reason} field; every entry carries {@code event}, {@code id} and
 * {@code attempt} (0 when the job had none).
 *
 * @param streamId the entry's stream id ({@code <ms>-<seq>}); pass the last one seen to
 *     {@link QueueEvents#open} to resume after it. For a gap notice, the first id still kept.
 * @param event    the event's name, or {@link #GAP} for a gap notice
 * @param jobId    the job's id ({@code ""} for a gap notice)
 * @param attempt  the attempt the event is about (0 when none)
 * @param fields   every field of the entry, {@code event}, {@code id} and {@code attempt} included,
 *     as text (unmodifiable); for a gap notice, {@code after} (the last id the reader had seen) and
 *     {@code first} (the stream's first id kept)
 */
public record QueueEvent(String streamId, String event, String jobId, long attempt, Map<String, String> fields) {
    /** The name of the reader's gap notice; no script writes it. */
    public static final String GAP = "gap";

    /** @return whether this is the reader's notice that entries after its last id were trimmed */
    public boolean isGap() {
        return GAP.equals(event);
    }

    /** @return the field {@code reason} (retrying: the error; dead, cancelled: why), or null */
    public String reason() {
        return fields.get("reason");
    }
}
