package io.echomq.queue;

import java.util.Locale;

/**
 * Where a queue keeps its pending jobs of priority 0. The layout is stored with the queue, in the
 * key {@code emq:{q}:layout}, and every script that makes a job pending reads it there, so every
 * client, whatever its configuration, follows it. Set it with {@link QueueOperations#setLayout};
 * {@code docs/queue.md} ("Pending layout") says when to use which.
 *
 * <p>The claim order is the same in both: higher priority first, then the oldest first within a
 * priority ({@code docs/protocol.md}, "Claim order"), and every claim of this library reads both
 * layouts.
 */
public enum QueueLayout {
    /**
     * The default: a pending job of priority 0 waits in the LIST {@code emq:{q}:wait} (an O(1)
     * enqueue and claim at any depth, and about half the bytes of a ZSET entry); any other
     * priority in the pending ZSET. A consumer that only pops the pending ZSET's head
     * ({@code ZPOPMIN emq:{q}:pending}) sees none of the priority-0 jobs.
     */
    LIST,
    /**
     * Every pending job, priority 0 included, waits in the pending ZSET {@code emq:{q}:pending},
     * scored {@code seq - priority * 2^42}: a consumer that pops the ZSET's head with
     * {@code ZPOPMIN} gets every job, in claim order. Costs an O(log n) enqueue and claim, and
     * more memory per pending job, than {@link #LIST}.
     */
    ZSET;

    /** @return the name stored in Redis and taken by {@code emq queue layout}: {@code list} or {@code zset} */
    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * @param text {@code list} or {@code zset}, in any case
     * @return the layout it names
     * @throws IllegalArgumentException if text is null or names no layout
     */
    public static QueueLayout parse(String text) {
        for (QueueLayout l : values()) {
            if (l.wireName().equalsIgnoreCase(text == null ? "" : text)) {
                return l;
            }
        }
        throw new IllegalArgumentException("unknown layout '" + text + "': expected list or zset");
    }
}
