package io.echomq.queue;

/**
 * Told each event of a queue's events stream by {@link QueueEvents#listen}, on the reader's one
 * thread, in stream order.
 *
 * <p>Both methods are abstract on purpose: a consumer must decide what a gap means to it (reload
 * its view of the queue, alert, …), so that a gap is never skipped by omission. An exception
 * thrown by either method is logged (the first at WARN, later ones at DEBUG) and the reader goes
 * on with the next event.
 */
public interface QueueEventListener {
    /** Told one event, in stream order. */
    void onEvent(QueueEvent event);

    /**
     * Told that events after the last one delivered may have been trimmed by the stream's cap
     * before the reader saw them ({@link QueueEvent#isGap()} is true): the next event delivered
     * is the oldest the stream still keeps.
     */
    void onGap(QueueEvent gap);
}
