package io.echomq.audit;

import java.util.List;

/**
 * The record of operator actions on one server: who did what to which queue or lock, and when.
 *
 * <ol>
 *   <li>{@link #record} appends one record to the stream {@value #KEY} (one {@code XADD}, capped at
 *       about {@value #MAX_ENTRIES} records by {@code MAXLEN ~}, the oldest dropped first). Its time is
 *       the server's: the record's stream id. It is written after the action, by whoever took it,
 *       and never undoes the action: a tool that cannot write it says so and keeps the action's
 *       outcome.</li>
 *   <li>{@link #recent(int)} reads the newest records, newest first; {@link #recent(AuditTarget, int)}
 *       those about one queue or lock, reading back through at most {@value #MAX_ENTRIES} records.</li>
 * </ol>
 *
 * <p>One stream for the whole server, not one per queue, because a record must outlive what it
 * is about: a deleted queue's keys are gone, its deletion's record is not. On a cluster the stream
 * lives on the one node that serves its slot. Obtained from {@code QueueClient.auditTrail()} or
 * {@code LockClient.auditTrail()}, and valid while that client is open; implemented by the
 * clients, not by applications. Thread-safe.
 */
public interface AuditTrail {
    /** The stream that holds the records. */
    String KEY = "emq:audit";
    /** About how many records the stream keeps; older ones are trimmed as new ones come. */
    int MAX_ENTRIES = 10_000;
    /** Longest {@code who} kept, in characters; a longer one is refused. */
    int MAX_WHO = 200;
    /** Longest detail kept, in characters; a longer one is cut, ending in {@code …}. */
    int MAX_DETAIL = 2_000;
    /** Most records one read returns. */
    int MAX_READ = 1_000;
    /** Most job ids {@link #jobsDetail} names. */
    int DETAIL_IDS = 10;

    /**
     * The detail the {@code emq} commands and the dashboard write for an action on several jobs, so that
     * both read alike: {@code 4 jobs, first ids: 2, 5, 8, 11}, or {@code 1 job} when no id is known.
     *
     * @param count    how many jobs the action touched
     * @param firstIds the first of their ids, in the order the action took them; at most
     *                 {@value #DETAIL_IDS} and at most {@code count} are named
     * @return the detail
     * @throws NullPointerException if firstIds is null
     */
    static String jobsDetail(long count, List<String> firstIds) {
        String text = count + (count == 1 ? " job" : " jobs");
        long named = Math.min(Math.min(firstIds.size(), DETAIL_IDS), Math.max(count, 0));
        return named == 0 ? text : text + ", first ids: " + String.join(", ", firstIds.subList(0, (int) named));
    }

    /**
     * Records one action.
     *
     * @param target what it was done to
     * @param action what was done
     * @param who    who did it: not blank, at most {@value #MAX_WHO} characters, no control characters
     * @param detail what it touched, in words; null for none; cut at {@value #MAX_DETAIL} characters
     * @return the record's stream id
     * @throws NullPointerException     if target or action is null
     * @throws IllegalArgumentException if who is null, blank, too long or holds a control character
     * @throws io.echomq.RedisCommandException if Redis fails, {@value #KEY} holds another type, or the
     *     user may not write it
     */
    String record(AuditTarget target, AuditAction action, String who, String detail);

    /**
     * @param limit how many records at most, 1 to {@value #MAX_READ}
     * @return the newest records, newest first; empty when none was written
     * @throws IllegalArgumentException if limit is out of range
     * @throws io.echomq.RedisCommandException if Redis fails or {@value #KEY} holds another type
     */
    List<AuditEntry> recent(int limit);

    /**
     * Reads back from the newest record until {@code limit} records about the target are found, or
     * {@value #MAX_ENTRIES} records were read.
     *
     * @param target the queue or lock
     * @param limit  how many records at most, 1 to {@value #MAX_READ}
     * @return its newest records, newest first
     * @throws NullPointerException     if target is null
     * @throws IllegalArgumentException if limit is out of range
     * @throws io.echomq.RedisCommandException if Redis fails or {@value #KEY} holds another type
     */
    List<AuditEntry> recent(AuditTarget target, int limit);
}
