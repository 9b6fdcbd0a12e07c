package io.echomq.internal;

import io.echomq.Names;

/**
 * Key naming for one queue. The queue name is the hash tag, so every key of a queue shares one
 * cluster slot: {@code emq:{<q>}:pending}, {@code :wait}, {@code :active}, {@code :due}, {@code :dead},
 * {@code :delayed} (the protocol mark),
 * {@code :seq}, {@code :stats}, {@code :done}, {@code :retention}, {@code :settings}, {@code :layout}, {@code :events} (a STREAM), {@code :wake} (a channel), {@code :job:<id>},
 * {@code :job:<id>:lock}, {@code :pb:<n>} (the pending buckets, {@link PendingBucket}), {@code :idem:<key>}, and the workers' records {@code :workers}, {@code :worker:<id>} and
 * {@code :throughput}. Scripts receive {@link #prefix()} and build job
 * keys from it, which stays in the slot because the prefix carries the tag.
 */
public final class QueueKeys {
    /** The namespace every queue key starts with. */
    public static final String NAMESPACE = "emq:";
    /** Longest queue name accepted, in UTF-8 bytes. */
    public static final int MAX_QUEUE_NAME_BYTES = Names.MAX_QUEUE_BYTES;

    private final String queue;
    private final String prefix;
    private final String[] claimKeys;

    private QueueKeys(String queue) {
        this.queue = queue;
        this.prefix = NAMESPACE + '{' + queue + "}:";
        this.claimKeys = new String[] {pending(), active(), delayed(), dead(), seq(), stats(), wake(), waitList()};
    }

    /**
     * @return the keys of queue {@code name}
     * @throws IllegalArgumentException if the name is null, empty, over 256 bytes, or contains
     *     '{', '}', whitespace or a control character (which would move the hash tag or make the
     *     keys unreadable in the CLI), or an unpaired surrogate (no UTF-8 form)
     */
    public static QueueKeys of(String name) {
        return new QueueKeys(Names.queueOrPartition(name));
    }

    /**
     * Like {@link #of}, for a name given by a user: also refuses a name that ends with
     * {@code #<digits>}, the suffix that names one partition of a sharded queue, so that no user
     * queue can collide with a partition.
     *
     * @return the keys of queue {@code name}
     * @throws IllegalArgumentException as {@link #of}, or if the name ends with {@code #<digits>}
     */
    public static QueueKeys ofUserName(String name) {
        return new QueueKeys(Names.queue(name));
    }

    /**
     * @param queue the sharded (logical) queue's name, as accepted by {@link #ofUserName}
     * @param index the partition, 0 or more
     * @return the keys of partition {@code index}: the queue {@code <queue>#<index>}, whose hash
     *     tag {@code {<queue>#<index>}} puts each partition in its own cluster slot
     * @throws IllegalArgumentException if the name is invalid or the index negative
     */
    public static QueueKeys partition(String queue, int index) {
        ofUserName(queue);
        if (index < 0) {
            throw new IllegalArgumentException("partition index must not be negative, was " + index);
        }
        return new QueueKeys(queue + '#' + index);
    }

    /**
     * @return {@code emq:{<q>}:partitions}: the sharded queue {@code q}'s partition count, the
     *     highest any client has declared (a high-water mark that never goes down)
     */
    public String partitionsMark() {
        return prefix + "partitions";
    }

    /** @return the queue name */
    public String queue() {
        return queue;
    }

    /** @return {@code emq:{<q>}:}, the prefix of every key of the queue */
    public String prefix() {
        return prefix;
    }

    /** @return {@code emq:{<q>}:pending}, the ZSET of pending jobs whose priority is not 0 */
    public String pending() {
        return prefix + "pending";
    }

    /** @return {@code emq:{<q>}:wait}, the LIST of pending jobs of priority 0, oldest first */
    public String waitList() {
        return prefix + "wait";
    }

    /** @return {@code emq:{<q>}:active} */
    public String active() {
        return prefix + "active";
    }

    /** @return {@code emq:{<q>}:due}, the ZSET of delayed jobs by due time */
    public String delayed() {
        return prefix + "due";
    }

    /**
     * @return {@code emq:{<q>}:delayed}, the queue's protocol mark: a STRING holding the wire
     *     protocol its data needs, written by the scripts (lua/includes/protocol.lua). Its name is
     *     the one protocol 1 gave its ZSET of delayed jobs, so that protocol 1's scripts refuse
     *     the queue
     */
    public String protocolMark() {
        return prefix + "delayed";
    }

    /** @return {@code emq:{<q>}:dead} */
    public String dead() {
        return prefix + "dead";
    }

    /** @return {@code emq:{<q>}:done}, the ZSET of the completed jobs the retention keeps; score = finished_at */
    public String done() {
        return prefix + "done";
    }

    /** @return {@code emq:{<q>}:retention}, the HASH of the queue's retention settings */
    public String retention() {
        return prefix + "retention";
    }

    /**
     * @return {@code emq:{<q>}:flow}, the HASH of the queue's flow control: its rate limit, its concurrency cap,
     *     the claims' hold and its groups' {@code group_max}
     */
    public String flow() {
        return prefix + "flow";
    }

    /**
     * @return {@code emq:{<q>}:rate}, the ZSET the rate limit counts claims in (member
     *     {@code <id>:<attempt>}, score the claim's server time in ms)
     */
    public String rate() {
        return prefix + "rate";
    }

    /** @return {@code emq:{<q>}:settings}, the HASH of the queue's other settings: {@code timeout_ms} */
    public String settings() {
        return prefix + "settings";
    }

    /**
     * @return {@code emq:{<q>}:layout}, the STRING {@code zset} while the queue keeps every pending
     *     job in its pending ZSET; absent in the default LIST layout
     */
    public String layout() {
        return prefix + "layout";
    }

    /** @return {@code emq:{<q>}:seq} */
    public String seq() {
        return prefix + "seq";
    }

    /** @return {@code emq:{<q>}:stats} */
    public String stats() {
        return prefix + "stats";
    }

    /** @return {@code emq:{<q>}:wake}, the channel enqueue publishes on */
    public String wake() {
        return prefix + "wake";
    }

    /** @return {@code emq:{<q>}:paused}, present while the queue is paused */
    public String paused() {
        return prefix + "paused";
    }

    /** @return {@code emq:{<q>}:cancel}, the channel a cancel of a running job publishes on */
    public String cancel() {
        return prefix + "cancel";
    }

    /**
     * @return {@code emq:{<q>}:cancelled}, the ZSET that records the last cancellations (id, score
     *     the cancel's server time in ms)
     */
    public String cancelled() {
        return prefix + "cancelled";
    }

    /** @return {@code emq:{<q>}:job:<id>} */
    public String job(String id) {
        return prefix + "job:" + id;
    }

    /**
     * @return {@code emq:{<q>}:pb:<id / 128>}, the pending bucket that holds job {@code id}'s payload while
     *     it waits with no hash of its own ({@link PendingBucket}); null for an id that is not a positive
     *     decimal of at most 15 digits, which is never bucketed
     */
    public String bucket(String id) {
        int n = id.length();
        if (n == 0 || n > 15 || id.charAt(0) == '0') {
            return null;
        }
        for (int i = 0; i < n; i++) {
            char c = id.charAt(i);
            if (c < '0' || c > '9') {
                return null;
            }
        }
        return prefix + "pb:" + Long.parseLong(id) / PendingBucket.IDS;
    }

    /** @return {@code emq:{<q>}:job:<id>:lock}, the lock subkey, which only the ZSET layout's claims write */
    public String lock(String id) {
        return prefix + "job:" + id + ":lock";
    }

    /** @return {@code emq:{<q>}:schedules}, the ZSET of the queue's recurring schedules by next fire time */
    public String schedules() {
        return prefix + "schedules";
    }

    /** @return {@code emq:{<q>}:schedule:<id>}, the HASH that defines one recurring schedule */
    public String schedule(String id) {
        return prefix + "schedule:" + id;
    }

    /** @return {@code emq:{<q>}:workers}, the ZSET of live workers' ids, score = when each one's record expires */
    public String workers() {
        return prefix + "workers";
    }

    /** @return {@code emq:{<q>}:worker:<id>}, the expiring HASH of one worker's heartbeat */
    public String worker(String id) {
        return prefix + "worker:" + id;
    }

    /** @return {@code emq:{<q>}:throughput}, the ZSET of per-minute samples of the counters, score = the minute */
    public String throughput() {
        return prefix + "throughput";
    }

    /**
     * @return {@code emq:{<q>}:errors}, the HASH of the queue's error groups: field = an error's first
     *     line, value = {@code <count>:<first seen ms>:<last seen ms>} (its companion
     *     {@code emq:{<q>}:errors:seen} orders them by last seen for the cap)
     */
    public String errors() {
        return prefix + "errors";
    }

    /** @return the eight keys of {@code claim-8.lua}, in order (a shared array: do not modify) */
    public String[] claimKeys() {
        return claimKeys;
    }

    /** @return the lock resource the reaper and promoter of this queue take once per interval */
    public String maintenanceResource() {
        return "queue:" + queue + ":maintenance";
    }
}
