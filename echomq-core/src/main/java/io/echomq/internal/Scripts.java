package io.echomq.internal;

import java.util.List;

/**
 * Every Lua script the library runs, each loaded once per JVM from {@code io/echomq/lua/lock/},
 * {@code io/echomq/lua/queue/} or {@code io/echomq/lua/client/}. A caller names the script object, never its name: messages take
 * {@link LuaScript#label()}.
 */
public final class Scripts {
    /** Fenced acquire: SET NX PX, then on success the next fence, bound to the server clock. */
    public static final LuaScript ACQUIRE = LuaScript.load(LuaScript.LOCK, "acquire", 2);
    /**
     * The try of an acquire that waits: a grant as {@link #ACQUIRE} (or the plain SET NX PX), or, when
     * refused, the resource marked as waited for in the same step.
     */
    public static final LuaScript WAIT_ACQUIRE = LuaScript.load(LuaScript.LOCK, "wait-acquire", 3);
    /** Compare-and-delete by token, publishing a release notification when someone may wait. */
    public static final LuaScript RELEASE = LuaScript.load(LuaScript.LOCK, "release", 3);
    /** Release by token and grant to a waiting acquire of the same client, in one step. */
    public static final LuaScript HANDOFF = LuaScript.load(LuaScript.LOCK, "handoff", 2);
    /** An operator's guarded takeover: the lock given to a new token while its holder is the one seen. */
    public static final LuaScript TAKEOVER = LuaScript.load(LuaScript.LOCK, "takeover", 2);
    /** Compare-and-PEXPIRE by token; keeps the fence key at least as long as the lock. */
    public static final LuaScript RENEW = LuaScript.load(LuaScript.LOCK, "renew", 2);
    /** Holder, remaining ttl and last fence in one read. */
    public static final LuaScript INSPECT = LuaScript.load(LuaScript.LOCK, "inspect", 2);
    /** Write a value only if the writer's fence is not older than the stored one. */
    public static final LuaScript FENCED_WRITE = LuaScript.load(LuaScript.LOCK, "fenced-write", 1);
    /** Redlock: raise a master's fence to at least a lease's fence, never lower it, with an expiry. */
    public static final LuaScript FENCE_RAISE = LuaScript.load(LuaScript.LOCK, "fence-raise", 1);

    /**
     * The arguments of a fence-granting script ({@link #ACQUIRE}, {@link #WAIT_ACQUIRE},
     * {@link #HANDOFF}, {@link #FENCE_RAISE}) in the upgrade mode: {@code args} followed by the
     * optional last argument {@code mark_all} = {@code "1"}, with which every fence granted is
     * stored as the protocol-2 mark (docs/protocol.md, "How to upgrade").
     *
     * @param args the script's other arguments, in order
     * @return a new array: {@code args} and {@code "1"}
     */
    public static String[] withMarkAll(String... args) {
        String[] all = java.util.Arrays.copyOf(args, args.length + 1);
        all[args.length] = "1";
        return all;
    }

    /** Queue: add one or many jobs, with idempotency keys, delays and priorities. */
    public static final LuaScript ENQUEUE = LuaScript.load(LuaScript.QUEUE, "enqueue", 5);
    /**
     * Queue: the compact form of {@link #ENQUEUE} for jobs that all have the default options: the
     * payloads alone, contiguous ids from one read and one write of the sequence, the same job hashes.
     */
    public static final LuaScript ENQUEUE_COMPACT = LuaScript.load(LuaScript.QUEUE, "enqueue-compact", 5);
    /**
     * Queue: the worker's step. Completes the jobs it finished (a group commit), promotes due
     * delayed jobs, then claims up to N jobs, in one call.
     */
    public static final LuaScript CLAIM = LuaScript.load(LuaScript.QUEUE, "claim", 8);
    /** Queue: fenced complete of one or many jobs, alone. */
    public static final LuaScript COMPLETE = LuaScript.load(LuaScript.QUEUE, "complete", 2);
    /** Queue: promote due delayed jobs to pending, alone. */
    public static final LuaScript PROMOTE = LuaScript.load(LuaScript.QUEUE, "promote", 5);
    /** Queue: fenced failure, to a backoff retry or to dead. */
    public static final LuaScript FAIL = LuaScript.load(LuaScript.QUEUE, "fail", 4);
    /** Queue: fenced lease extension of many jobs, active score and (where one exists) lock subkey together. */
    public static final LuaScript EXTEND = LuaScript.load(LuaScript.QUEUE, "extend", 1);
    /** Queue: fenced progress report. */
    public static final LuaScript PROGRESS = LuaScript.load(LuaScript.QUEUE, "progress", 1);
    /** Queue: fenced store of an attempt's result, which its complete's event carries. */
    public static final LuaScript RESULT = LuaScript.load(LuaScript.QUEUE, "result", 1);
    /** Queue: give a lease back without spending the attempt. */
    public static final LuaScript RETURN = LuaScript.load(LuaScript.QUEUE, "return", 4);
    /** Queue: bounded return of expired leases, on the server clock. */
    public static final LuaScript REAP = LuaScript.load(LuaScript.QUEUE, "reap", 5);
    /** Queue: remove a job unless its lease runs or its lock subkey is held (or forced). */
    public static final LuaScript REMOVE = LuaScript.load(LuaScript.QUEUE, "remove", 5);
    /** Queue: move dead jobs back to pending with a fresh budget. */
    public static final LuaScript REDRIVE = LuaScript.load(LuaScript.QUEUE, "redrive", 5);
    /** Queue: delete dead jobs. */
    public static final LuaScript PURGE = LuaScript.load(LuaScript.QUEUE, "purge", 1);
    /** Queue: one snapshot of the counts. */
    public static final LuaScript STATS = LuaScript.load(LuaScript.QUEUE, "stats", 6);
    /** Queue: pause or resume claims, for every client at once. */
    public static final LuaScript PAUSE = LuaScript.load(LuaScript.QUEUE, "pause", 4);
    /** Queue: cancel one job: pending or delayed, removed; running, its attempt ended and its holder told. */
    public static final LuaScript CANCEL = LuaScript.load(LuaScript.QUEUE, "cancel", 7);
    /** Queue: one page of the jobs in one state, from a cursor. Read-only. */
    public static final LuaScript LIST = LuaScript.load(LuaScript.QUEUE, "list", 2);
    /** Queue: set the pending layout (LIST or ZSET), moving the wait LIST into the ZSET for the latter. */
    public static final LuaScript LAYOUT = LuaScript.load(LuaScript.QUEUE, "layout", 4);
    /** Queue: pause or resume one fair group. */
    public static final LuaScript GROUP = LuaScript.load(LuaScript.QUEUE, "group", 3);
    /** Queue: the atomic first step of deleting a queue: refuse while jobs are active, else drop its sets. */
    public static final LuaScript DELETE = LuaScript.load(LuaScript.QUEUE, "delete", 9);
    /** Queue: record (or remove) one worker's expiring heartbeat in the queue's bounded set of live workers. */
    public static final LuaScript HEARTBEAT = LuaScript.load(LuaScript.QUEUE, "heartbeat", 2);
    /** Queue: sample the completed and failed counters once per server minute into a bounded history. */
    public static final LuaScript THROUGHPUT = LuaScript.load(LuaScript.QUEUE, "throughput", 2);
    /** Sharded queue: raise (or read) the partition count's high-water mark. */
    public static final LuaScript PARTITIONS = LuaScript.load(LuaScript.QUEUE, "partitions", 1);
    /** Schedules: create or replace one recurring schedule, keeping its next fire time when its timing is unchanged. */
    public static final LuaScript SCHEDULE_UPSERT = LuaScript.load(LuaScript.QUEUE, "schedule-upsert", 1);
    /** Schedules: remove one recurring schedule. */
    public static final LuaScript SCHEDULE_REMOVE = LuaScript.load(LuaScript.QUEUE, "schedule-remove", 1);
    /** Schedules: the server's now and the due schedules with their definitions. */
    public static final LuaScript SCHEDULE_DUE = LuaScript.load(LuaScript.QUEUE, "schedule-due", 1);
    /** Schedules: compare-and-set of a schedule's next fire time, after its jobs were enqueued. */
    public static final LuaScript SCHEDULE_ADVANCE = LuaScript.load(LuaScript.QUEUE, "schedule-advance", 1);

    /** Every client, once when it connects: which commands of its scripts the ACL user may not run. */
    public static final LuaScript PERMISSIONS = LuaScript.load(LuaScript.CLIENT, "permissions", 1);

    private Scripts() {
    }

    /** @return the lock side's scripts: what a {@code LockClient} and a {@code RedlockClient} run */
    public static List<LuaScript> lockSide() {
        return all().stream().filter(s -> s.side().equals(LuaScript.LOCK)).toList();
    }

    /** @return the queue side's scripts: what a {@code QueueClient} and its workers run */
    public static List<LuaScript> queueSide() {
        return all().stream().filter(s -> s.side().equals(LuaScript.QUEUE)).toList();
    }

    /** @return every script above, for the header checks in the tests */
    public static List<LuaScript> all() {
        return List.of(ACQUIRE, WAIT_ACQUIRE, RELEASE, HANDOFF, TAKEOVER, RENEW, INSPECT, FENCED_WRITE,
                ENQUEUE, ENQUEUE_COMPACT, CLAIM, COMPLETE, PROMOTE, FAIL, EXTEND, PROGRESS, RESULT, RETURN, REAP, REMOVE, REDRIVE, PURGE, STATS,
                PARTITIONS, FENCE_RAISE, SCHEDULE_UPSERT, SCHEDULE_REMOVE, SCHEDULE_DUE, SCHEDULE_ADVANCE, PAUSE,
                CANCEL, LIST, DELETE, LAYOUT, GROUP, HEARTBEAT, THROUGHPUT, PERMISSIONS);
    }
}
