package io.echomq.queue;

import io.echomq.internal.PendingBucket;
import io.echomq.internal.QueueKeys;
import io.echomq.internal.RedisEngine;
import io.lettuce.core.KeyValue;
import io.lettuce.core.Limit;
import io.lettuce.core.Range;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.StreamMessage;
import io.lettuce.core.XReadArgs;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * {@code awaitResult} of either queue: waits for one job's end, woken by the queue's events
 * stream, never by polling.
 *
 * <ol>
 *   <li>Is handed where the job lives (its partition and its id there); none, for an id beyond
 *       a sharded queue's span, is NOT_FOUND.</li>
 *   <li>On a connection of its own (an {@code XREAD BLOCK} would hold up the client's shared
 *       one), reads the stream's last id and the events setting, then the job's hash: the id read
 *       <em>before</em> the check is where the wait starts, so an end written after the check is
 *       always read, and one written before is seen by the check.</li>
 *   <li>A job whose hash is gone (a completed job is deleted at once by default) is looked up in
 *       the stream, newest first: its completed event carries its result.</li>
 *   <li>Waits with {@code XREAD BLOCK}, at most a second per call, for the job's completed, dead,
 *       cancelled or removed event. When the cap trimmed entries it had not read, it checks the
 *       hash again rather than miss the end.</li>
 * </ol>
 */
final class ResultWaiter {
    private static final long MAX_BLOCK_MS = 1000;
    private static final int PAGE = 500;

    private final RedisClusterAsyncCommands<String, byte[]> cmd;
    private final QueueKeys keys;
    private final String events;
    private final String id;
    private final String shownId;

    private ResultWaiter(RedisClusterAsyncCommands<String, byte[]> cmd, QueueKeys keys, String id, String shownId) {
        this.cmd = cmd;
        this.keys = keys;
        this.events = keys.prefix() + "events";
        this.id = id;
        this.shownId = shownId;
    }

    /**
     * @param at where the job lives, or null when its id names a partition beyond the queue's span
     * @param id the job's id as the user gave it, checked
     */
    static JobResult await(JobHome at, String id, Duration timeout) throws InterruptedException {
        if (at == null) {
            return new JobResult(JobResult.Outcome.NOT_FOUND, id, null, null);
        }
        QueueWire q = at.wire();
        String local = at.localId();
        StatefulConnection<String, byte[]> conn = q.openBinary();
        try {
            return new ResultWaiter(RedisEngine.async(conn), q.keys(), local, id).run(timeout);
        } finally {
            conn.close();
        }
    }

    private JobResult run(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        RedisFuture<List<StreamMessage<String, byte[]>>> lastF = cmd.xrevrange(events, Range.create("-", "+"),
                Limit.from(1));
        RedisFuture<byte[]> capF = cmd.hget(keys.retention(), "events_max");
        List<StreamMessage<String, byte[]>> last = await(lastF, "XREVRANGE");
        byte[] cap = await(capF, "HGET retention");
        if (cap != null && "0".equals(new String(cap, StandardCharsets.US_ASCII).trim())) {
            throw new IllegalStateException("queue " + keys.queue() + " writes no events (events_max 0): "
                    + "awaitResult is woken by them; switch them on with QueueEventSettings");
        }
        String from = last.isEmpty() ? "0-0" : last.get(0).getId();
        JobResult known = check();
        while (known == null) {
            long left = (deadline - System.nanoTime()) / 1_000_000;
            if (left <= 0) {
                return end(JobResult.Outcome.TIMED_OUT, null, null);
            }
            if (Thread.interrupted()) {
                throw new InterruptedException("awaitResult of job " + shownId + " was interrupted");
            }
            RedisFuture<List<StreamMessage<String, byte[]>>> got = cmd.xread(
                    XReadArgs.Builder.block(Math.max(1, Math.min(left, MAX_BLOCK_MS))).count(PAGE),
                    XReadArgs.StreamOffset.from(events, from));
            RedisFuture<List<StreamMessage<String, byte[]>>> head = cmd.xrange(events, Range.create("-", "+"),
                    Limit.from(1));
            List<StreamMessage<String, byte[]>> entries = await(got, "XREAD");
            List<StreamMessage<String, byte[]>> first = await(head, "XRANGE");
            if (entries == null || entries.isEmpty()) {
                continue;
            }
            if (!from.equals("0-0") && !first.isEmpty() && QueueEvents.compare(first.get(0).getId(), from) > 0) {
                known = check();   // the cap trimmed entries this wait had not read: the hash tells
            }
            for (int i = 0; known == null && i < entries.size(); i++) {
                known = ending(entries.get(i));
            }
            from = entries.get(entries.size() - 1).getId();
        }
        return known;
    }

    /**
     * Reads the job's bucket before its hash, in one pipeline, so a claim that moves it between
     * the two is never missed ({@link PendingBucket}).
     *
     * @return the job's end as its hash, or else the stream, tells it; null while it has not ended
     */
    private JobResult check() {
        String bucket = keys.bucket(id);
        CompletableFuture<Boolean> inBucket = bucket == null ? CompletableFuture.completedFuture(false)
                // a bucket of another type (foreign data) holds no job
                : cmd.hexists(bucket, id).toCompletableFuture().exceptionally(wrongType -> false);
        RedisFuture<List<KeyValue<String, byte[]>>> hash = cmd.hmget(keys.job(id), "state", "result", "dead_reason",
                "payload");
        boolean waits = RedisEngine.await(inBucket, "HEXISTS", keys.queue());
        List<KeyValue<String, byte[]>> h = await(hash, "HMGET");
        String state = h.get(0).hasValue() ? text(h.get(0).getValue()) : null;
        if (state == null && !h.get(3).hasValue()) {
            // pending in its bucket when read, or claimed and ended since: the wait reads the end
            return waits ? null : lookBack();
        }
        return switch (state == null ? "pending" : state) {
            case "done" -> end(JobResult.Outcome.COMPLETED, h.get(1).getValueOrElse(null), null);
            case "dead" -> end(JobResult.Outcome.DEAD, null, h.get(2).hasValue() ? text(h.get(2).getValue()) : "");
            case "cancelled" -> end(JobResult.Outcome.CANCELLED, null, "cancelled");
            default -> null;
        };
    }

    /** @return the end the stream keeps for a job whose hash is gone, newest first; NOT_FOUND when none */
    private JobResult lookBack() {
        String before = "+";
        while (true) {
            List<StreamMessage<String, byte[]>> page = await(cmd.xrevrange(events, Range.create("-", before),
                    Limit.from(PAGE)), "XREVRANGE");
            for (StreamMessage<String, byte[]> m : page) {
                if (m.getId().equals(before)) {
                    continue;
                }
                JobResult r = ending(m);
                if (r != null) {
                    return r;
                }
            }
            if (page.size() < PAGE) {
                return end(JobResult.Outcome.NOT_FOUND, null, null);
            }
            before = page.get(page.size() - 1).getId();
        }
    }

    /** @return the end an event tells for this job, or null for any other event */
    private JobResult ending(StreamMessage<String, byte[]> m) {
        byte[] who = m.getBody().get("id");
        if (who == null || !id.equals(text(who))) {
            return null;
        }
        byte[] event = m.getBody().get("event");
        byte[] reason = m.getBody().get("reason");
        return switch (event == null ? "" : text(event)) {
            case "completed" -> end(JobResult.Outcome.COMPLETED, m.getBody().get("result"), null);
            case "dead" -> end(JobResult.Outcome.DEAD, null, reason == null ? "" : text(reason));
            case "cancelled" -> end(JobResult.Outcome.CANCELLED, null, reason == null ? "cancelled" : text(reason));
            case "removed" -> end(JobResult.Outcome.NOT_FOUND, null, null);
            default -> null;
        };
    }

    private JobResult end(JobResult.Outcome outcome, byte[] result, String reason) {
        return new JobResult(outcome, shownId, result, reason);
    }

    private <T> T await(RedisFuture<T> f, String command) {
        return RedisEngine.await(f.toCompletableFuture(), command, keys.queue());
    }

    private static String text(byte[] b) {
        return new String(b, StandardCharsets.UTF_8);
    }
}
