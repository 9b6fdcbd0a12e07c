package io.echomq.queue;

import io.echomq.internal.Scripts;
import io.lettuce.core.MapScanCursor;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.ValueScanCursor;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * A queue's fair groups ({@code docs/flow-control.md}; keys in {@code docs/protocol.md}, "Groups"):
 * a job enqueued {@link EnqueueOptions#withGroup with a group} waits in its group, the claim takes
 * the groups in turn, and at most k of one group's jobs run at once.
 *
 * <ol>
 *   <li>Sets and reads k, the per-group concurrency: the field {@code group_max} of the HASH
 *       {@code emq:{q}:flow}, 1 when absent ({@link #setMax}, {@link #max}).</li>
 *   <li>Pauses and resumes one group ({@link #pause}, {@link #resume}: {@code group-3.lua}).</li>
 *   <li>Counts one group ({@link #count}) and lists them a bounded page at a time
 *       ({@link #list}: {@code HSCAN}/{@code SSCAN} pages, never a whole key in one call).</li>
 * </ol>
 *
 * <p>A {@link ShardedQueue}'s partitions each keep their own groups: k and the rotation apply per
 * partition, and a setting, pause or resume is written to every partition. For k to hold across
 * the whole sharded queue, send a group's jobs to one partition (its group as the partition key).
 * Every method throws {@link io.echomq.RedisCommandException} when Redis fails.
 */
public final class FairGroups {
    /** The settings HASH's field that holds k. */
    static final String MAX_FIELD = "group_max";
    /** Most groups one {@link #list} page may ask for. */
    public static final int MAX_PAGE = 1000;

    private final List<QueueWire> partitions;

    FairGroups(List<QueueWire> partitions) {
        this.partitions = partitions;
    }

    /**
     * Sets k. A raise reaches a group that is full at its next settle; a cut applies at once.
     *
     * @param k at least 1
     * @throws IllegalArgumentException if {@code k < 1}; nothing is written
     */
    public void setMax(int k) {
        if (k < 1) {
            throw new IllegalArgumentException("the per-group concurrency must be at least 1, was " + k);
        }
        byte[] v = QueueWire.num(k);
        for (QueueWire w : partitions) {
            w.await(w.async().hset(flowKey(w), MAX_FIELD, v).toCompletableFuture(), "HSET flow");
        }
    }

    /** @return k as the claim reads it (partition 0's): 1 when absent or not an integer of at least 1 */
    public int max() {
        QueueWire w = partitions.get(0);
        byte[] v = w.await(w.async().hget(flowKey(w), MAX_FIELD).toCompletableFuture(), "HGET flow");
        String text = v == null ? "" : new String(v, StandardCharsets.US_ASCII);
        if (!text.matches("[0-9]{1,9}") || Integer.parseInt(text) < 1) {
            return 1;
        }
        return Integer.parseInt(text);
    }

    /**
     * Pauses a group: no claim serves it until {@link #resume}; its running jobs settle as usual.
     *
     * @return whether this call paused it (false: it already was)
     * @throws IllegalArgumentException if the key breaks {@link GroupKeys#check}'s rule
     */
    public boolean pause(String group) {
        return run("pause", group);
    }

    /**
     * Resumes a paused group: it rejoins the rotation when it has a ready job and a free place.
     *
     * @return whether this call resumed it (false: it was not paused)
     * @throws IllegalArgumentException if the key breaks {@link GroupKeys#check}'s rule
     */
    public boolean resume(String group) {
        return run("resume", group);
    }

    /**
     * @return the group's counts, summed over the partitions (all zero and not paused for a group
     *     the queue does not know)
     * @throws IllegalArgumentException if the key breaks {@link GroupKeys#check}'s rule
     */
    public GroupCount count(String group) {
        GroupKeys.check(group);
        long waiting = 0;
        long active = 0;
        boolean paused = false;
        for (QueueWire p : partitions) {
            GroupCount c = counts(p, List.of(group)).get(0);
            waiting += c.waiting();
            active += c.active();
            paused |= c.paused();
        }
        return new GroupCount(group, waiting, active, paused);
    }

    /**
     * One page of groups: first those with ready jobs, then those with only active jobs, then the
     * paused ones with neither; each group once per partition. Not a snapshot: a group that
     * changes while the pages are read may be listed twice or not at all, as with {@code SCAN}.
     *
     * @param cursor null or empty for the first page, else the {@link GroupPage#next} of the last
     * @param limit  1..{@link #MAX_PAGE}, a hint of how many groups a page holds (a small
     *               registry is returned whole)
     * @throws IllegalArgumentException if the limit is out of range or the cursor is not one this
     *     class gave
     */
    public GroupPage list(String cursor, int limit) {
        if (limit < 1 || limit > MAX_PAGE) {
            throw new IllegalArgumentException("limit must be in 1.." + MAX_PAGE + ", was " + limit);
        }
        String[] at = (cursor == null || cursor.isEmpty() ? "0:w:0" : cursor).split(":", -1);
        if (at.length != 3 || !at[0].matches("[0-9]{1,4}") || !"wap".contains(at[1]) || at[1].length() != 1
                || !at[2].matches("[0-9]{1,20}") || Integer.parseInt(at[0]) >= partitions.size()) {
            throw new IllegalArgumentException("not a group cursor: '" + cursor + "'");
        }
        int part = Integer.parseInt(at[0]);
        char phase = at[1].charAt(0);
        QueueWire w = partitions.get(part);
        String prefix = w.keys().prefix();
        ScanArgs args = ScanArgs.Builder.limit(limit);
        Set<String> names = new LinkedHashSet<>();
        String next;
        boolean finished;
        if (phase == 'p') {
            ValueScanCursor<byte[]> page = w.await(w.async().sscan(prefix + "group:paused",
                    ScanCursor.of(at[2]), args).toCompletableFuture(), "SSCAN");
            page.getValues().forEach(v -> names.add(new String(v, StandardCharsets.US_ASCII)));
            next = page.getCursor();
            finished = page.isFinished();
        } else {
            String key = prefix + (phase == 'w' ? "group:waiting" : "group:active");
            MapScanCursor<String, byte[]> page = w.await(w.async().hscan(key, ScanCursor.of(at[2]), args)
                    .toCompletableFuture(), "HSCAN");
            names.addAll(page.getMap().keySet());
            next = page.getCursor();
            finished = page.isFinished();
        }
        List<GroupCount> out = new ArrayList<>();
        for (GroupCount c : counts(w, new ArrayList<>(names))) {
            boolean listedBefore = (phase == 'a' && c.waiting() > 0)
                    || (phase == 'p' && (c.waiting() > 0 || c.active() > 0));
            if (!listedBefore) {
                out.add(c);
            }
        }
        String nextCursor;
        if (!finished) {
            nextCursor = part + ":" + phase + ":" + next;
        } else if (phase != 'p') {
            nextCursor = part + ":" + (phase == 'w' ? 'a' : 'p') + ":0";
        } else {
            nextCursor = part + 1 < partitions.size() ? (part + 1) + ":w:0" : null;
        }
        return new GroupPage(out, nextCursor);
    }

    private static List<GroupCount> counts(QueueWire w, List<String> names) {
        String prefix = w.keys().prefix();
        List<CompletableFuture<byte[]>> waiting = new ArrayList<>();
        List<CompletableFuture<byte[]>> active = new ArrayList<>();
        List<CompletableFuture<Boolean>> paused = new ArrayList<>();
        for (String g : names) {
            waiting.add(w.async().hget(prefix + "group:waiting", g).toCompletableFuture());
            active.add(w.async().hget(prefix + "group:active", g).toCompletableFuture());
            paused.add(w.async().sismember(prefix + "group:paused", QueueWire.bytes(g)).toCompletableFuture());
        }
        List<GroupCount> out = new ArrayList<>();
        for (int i = 0; i < names.size(); i++) {
            out.add(new GroupCount(names.get(i), number(w.await(waiting.get(i), "HGET")),
                    number(w.await(active.get(i), "HGET")), w.await(paused.get(i), "SISMEMBER")));
        }
        return out;
    }

    private static long number(byte[] v) {
        if (v == null) {
            return 0;
        }
        try {
            return Math.max(0, Long.parseLong(new String(v, StandardCharsets.US_ASCII)));
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    private boolean run(String op, String group) {
        GroupKeys.check(group);
        boolean changed = false;
        for (QueueWire w : partitions) {
            String prefix = w.keys().prefix();
            String[] keys = {prefix + "group:paused", prefix + "groups", w.keys().wake()};
            long c = w.<Long>await(w.run(Scripts.GROUP, ScriptOutputType.INTEGER, keys, w.prefix(),
                    QueueWire.bytes(op), QueueWire.bytes(group), w.publish()), Scripts.GROUP.label());
            changed |= c == 1L;
        }
        return changed;
    }

    private static String flowKey(QueueWire w) {
        return w.keys().flow();
    }
}
