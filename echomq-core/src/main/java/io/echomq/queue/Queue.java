package io.echomq.queue;

import io.echomq.internal.Checks;
import io.echomq.internal.LuaScript;
import io.echomq.internal.QueueKeys;
import io.echomq.internal.RedisEngine;
import io.echomq.internal.Scripts;
import io.lettuce.core.ScoredValue;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;

/**
 * One named job queue: enqueue, claim under a lease, and the operator's calls (stats, reap,
 * promote, remove, dead letters). Every state change is one Lua script on the server, on the
 * server's clock; see {@code docs/protocol.md} for the keys and {@code docs/queue.md} for usage.
 *
 * <pre>{@code
 * Queue emails = client.queue("emails");
 * String id = emails.enqueue("{\"to\":\"ada@example.com\"}");
 * Optional<Job> job = emails.claim(Duration.ofSeconds(30));
 * job.ifPresent(j -> { send(j.payloadUtf8()); j.complete(); });
 * }</pre>
 *
 * <p>Obtained from {@link QueueClient#queue(String)}; thread-safe; lives as long as its client.
 * Every method checks its arguments before Redis is touched and throws
 * {@link IllegalArgumentException} for bad ones, and throws {@link io.echomq.RedisCommandException}
 * when Redis fails.
 */
public final class Queue implements QueueOperations {
    /** Shortest lease accepted. */
    public static final Duration MIN_LEASE = Duration.ofMillis(20);
    /** Longest lease accepted; longer jobs extend. */
    public static final Duration MAX_LEASE = Duration.ofDays(1);
    /** Most jobs one {@link #claim(int, Duration)} may ask for. */
    public static final int MAX_CLAIM = 1000;
    /** Most entries one reap, promote, redrive, purge or dead listing handles. */
    public static final int MAX_BATCH = 10_000;
    /** Jobs per script call in {@link #enqueueAll}; the calls of one bulk are pipelined. */
    static final int ENQUEUE_CHUNK = 1000;
    /** Due delayed jobs promoted by each claim call. */
    static final int PROMOTE_PER_CLAIM = 100;
    /** Most completes one claim-8 call carries: the bound of a worker's group commit. */
    static final int MAX_ACKS = 256;
    /** The ack code of claim-8 and complete-2 for a job key that holds another type than a hash. */
    static final long ACK_NOT_A_HASH = -5;

    private static final byte[] EMPTY = new byte[0];
    private static final byte[] ONE = {'1'};
    private static final byte[] ZERO = {'0'};

    private final QueueClient client;
    private final QueueKeys keys;
    private final String logicalName;   // the sharded queue's name for a partition, else the queue's name
    private final String idPrefix;      // "<partition>-" for a partition, else ""
    private final RedisEngine engine;
    private final StatefulConnection<String, byte[]> conn;   // opened when the client is built
    private final byte[] prefix;
    private final byte[] publish;   // PUBLISH, or SPUBLISH on a Redis 7 cluster: how the scripts wake workers
    private final String[] enqueueKeys;
    private final String[] failKeys;
    private final String[] completeKeys;
    private final String[] promoteKeys;
    private final String[] activeKey;
    private final String[] returnKeys;
    private final String[] reapKeys;
    private final String[] removeKeys;
    private final String[] redriveKeys;
    private final String[] deadKey;
    private final String[] statsKeys;

    Queue(QueueClient client, QueueKeys keys, RedisEngine engine) {
        this(client, keys, engine, keys.queue(), "");
    }

    /** A partition of a sharded queue: its jobs carry {@code idPrefix} and {@code logicalName}. */
    Queue(QueueClient client, QueueKeys keys, RedisEngine engine, String logicalName, String idPrefix) {
        this.client = client;
        this.keys = keys;
        this.logicalName = logicalName;
        this.idPrefix = idPrefix;
        this.engine = engine;
        this.conn = engine.binary();
        this.prefix = keys.prefix().getBytes(StandardCharsets.UTF_8);
        this.publish = bytes(engine.publishMode());
        this.enqueueKeys = new String[] {keys.pending(), keys.delayed(), keys.seq(), keys.wake(), keys.waitList()};
        this.failKeys = new String[] {keys.active(), keys.delayed(), keys.dead(), keys.stats()};
        this.completeKeys = new String[] {keys.active(), keys.stats()};
        this.promoteKeys = new String[] {keys.pending(), keys.delayed(), keys.seq(), keys.wake(), keys.waitList()};
        this.activeKey = new String[] {keys.active()};
        this.returnKeys = new String[] {keys.active(), keys.pending(), keys.wake(), keys.waitList()};
        this.reapKeys = new String[] {keys.active(), keys.pending(), keys.dead(), keys.wake(), keys.waitList()};
        this.removeKeys = new String[] {keys.pending(), keys.active(), keys.delayed(), keys.dead(), keys.waitList()};
        this.redriveKeys = new String[] {keys.dead(), keys.pending(), keys.seq(), keys.wake(), keys.waitList()};
        this.deadKey = new String[] {keys.dead()};
        this.statsKeys = new String[] {keys.pending(), keys.active(), keys.delayed(), keys.dead(), keys.stats(),
                keys.waitList()};
    }

    /** @return the queue name */
    public String name() {
        return keys.queue();
    }

    // ------------------------------------------------------------------ enqueue

    /**
     * Enqueues {@code text} (as UTF-8) with the default options.
     *
     * @return the new job's id
     * @throws IllegalArgumentException if text is null or over the payload limit
     * @throws io.echomq.RedisCommandException if Redis fails
     */
    public String enqueue(String text) {
        Checks.notNull(text, "payload");
        return enqueue(text.getBytes(StandardCharsets.UTF_8), EnqueueOptions.defaults()).id();
    }

    /**
     * Enqueues {@code payload} with the default options.
     *
     * @return the new job's id
     * @throws IllegalArgumentException if payload is null or over the payload limit
     * @throws io.echomq.RedisCommandException if Redis fails
     */
    public String enqueue(byte[] payload) {
        return enqueue(payload, EnqueueOptions.defaults()).id();
    }

    /**
     * Enqueues one job in one round trip.
     *
     * @return the id, and whether it was created (false: an idempotency key in its window named
     *     an existing job, whose id is returned)
     * @throws IllegalArgumentException if payload or options is null, or the payload is over the limit
     * @throws io.echomq.RedisCommandException if Redis fails; the job may or may not have been added
     */
    public EnqueueResult enqueue(byte[] payload, EnqueueOptions options) {
        return enqueueAll(List.of(new JobRequest(payload, options))).get(0);
    }

    /**
     * Enqueues many jobs in one round trip: chunks of 1000 jobs, each chunk one atomic script,
     * all chunks written before the first answer is awaited.
     *
     * @return one result per request, in order
     * @throws IllegalArgumentException if the list is null or empty, or any request is invalid;
     *     then nothing is sent
     * @throws io.echomq.RedisCommandException if Redis fails; earlier chunks may have been added
     */
    public List<EnqueueResult> enqueueAll(List<JobRequest> requests) {
        checkRequests(requests);
        return collectEnqueued(sendEnqueue(requests));
    }

    /** @throws IllegalArgumentException unless every request is valid; nothing is sent */
    void checkRequests(List<JobRequest> requests) {
        Checks.notNull(requests, "requests");
        if (requests.isEmpty()) {
            throw new IllegalArgumentException("requests must not be empty");
        }
        int limit = client.maxPayloadBytes();
        for (int i = 0; i < requests.size(); i++) {
            JobRequest r = requests.get(i);
            if (r == null || r.payload() == null || r.options() == null) {
                throw new IllegalArgumentException("request " + i + " must have a payload and options");
            }
            if (r.payload().length > limit) {
                throw new IllegalArgumentException("payload of request " + i + " is " + r.payload().length
                        + " bytes; the limit is " + limit + " bytes");
            }
        }
    }

    /** Sends checked requests, one script call per chunk, all written before any answer is awaited. */
    List<CompletableFuture<List<Object>>> sendEnqueue(List<JobRequest> requests) {
        List<CompletableFuture<List<Object>>> calls = new ArrayList<>();
        for (int from = 0; from < requests.size(); from += ENQUEUE_CHUNK) {
            List<JobRequest> chunk = requests.subList(from, Math.min(requests.size(), from + ENQUEUE_CHUNK));
            List<byte[]> args = new ArrayList<>(2 + chunk.size() * 9);
            args.add(prefix);
            args.add(EnqueueOptions.num(chunk.size()));
            for (JobRequest r : chunk) {
                r.options().appendArgs(r.payload(), args);
            }
            args.add(publish);
            calls.add(run(Scripts.ENQUEUE, ScriptOutputType.MULTI, enqueueKeys, args.toArray(new byte[0][])));
        }
        return calls;
    }

    /** Awaits the calls of {@link #sendEnqueue}, in order; ids are this queue's own (no partition prefix). */
    List<EnqueueResult> collectEnqueued(List<CompletableFuture<List<Object>>> calls) {
        List<EnqueueResult> out = new ArrayList<>();
        for (CompletableFuture<List<Object>> call : calls) {
            List<Object> reply = RedisEngine.await(call, Scripts.ENQUEUE.label(), name());
            for (int i = 0; i < reply.size(); i += 2) {
                out.add(new EnqueueResult(text(reply.get(i)), ((Long) reply.get(i + 1)) == 1L));
            }
        }
        return out;
    }

    // ------------------------------------------------------------------ claim

    /**
     * Claims the next job in claim order (highest priority first, oldest first within a priority;
     * docs/protocol.md, "Claim order"), if any.
     *
     * @param lease how long the claim holds without an extend, on the server clock
     * @return the job, or empty when none is pending
     * @throws IllegalArgumentException if the lease is null or outside {@link #MIN_LEASE}..{@link #MAX_LEASE}
     * @throws io.echomq.RedisCommandException if Redis fails; a job claimed in that call comes back by reaping
     */
    public Optional<Job> claim(Duration lease) {
        List<Job> jobs = claim(1, lease);
        return jobs.isEmpty() ? Optional.empty() : Optional.of(jobs.get(0));
    }

    /**
     * Claims up to {@code max} jobs in one script, in claim order.
     *
     * @throws IllegalArgumentException if max is outside 1..{@link #MAX_CLAIM} or the lease is invalid
     * @throws io.echomq.RedisCommandException if Redis fails
     */
    public List<Job> claim(int max, Duration lease) {
        checkRange(max, 1, MAX_CLAIM, "max");
        return claimBatch(max, checkLease(lease), null).jobs();
    }

    /**
     * Promotes due delayed jobs (delays, run-at times and retry backoffs) to pending. Workers do
     * this on every claim and in their maintenance; operators rarely need it.
     *
     * @param limit 1..{@link #MAX_BATCH}
     * @return how many were promoted
     * @throws IllegalArgumentException if limit is out of range
     * @throws io.echomq.RedisCommandException if Redis fails
     */
    public long promote(int limit) {
        checkRange(limit, 1, MAX_BATCH, "limit");
        List<Object> r = RedisEngine.await(promoteAsync(limit), Scripts.PROMOTE.label(), name());
        return (Long) r.get(0);
    }

    /**
     * Returns expired leases to pending (or to dead, for jobs that spent their attempts), at most
     * {@code limit} per call, on the server clock. Never touches a lease extended in time. Safe to
     * call from many processes at once.
     *
     * @throws IllegalArgumentException if limit is outside 1..{@link #MAX_BATCH}
     * @throws io.echomq.RedisCommandException if Redis fails
     */
    public ReapResult reap(int limit) {
        checkRange(limit, 1, MAX_BATCH, "limit");
        List<Object> r = RedisEngine.await(reapAsync(limit), Scripts.REAP.label(), name());
        return new ReapResult((Long) r.get(0), (Long) r.get(1));
    }

    CompletableFuture<List<Object>> reapAsync(int limit) {
        return run(Scripts.REAP, ScriptOutputType.MULTI, reapKeys, prefix, EnqueueOptions.num(limit), publish);
    }

    // ------------------------------------------------------------------ operators

    /**
     * Removes a job wherever it is (pending, active, delayed, dead, done), with its lock subkey
     * and idempotency key. A pending job of priority 0 (or an unknown id) costs an {@code LREM} of
     * the wait LIST, O(n) in its length on the server; any other job costs O(log n).
     *
     * @param force remove even while a worker holds the job's lock subkey
     * @return {@link RemoveOutcome#REMOVED}, {@link RemoveOutcome#LOCKED} (held, not forced) or
     *     {@link RemoveOutcome#MISSING}
     * @throws IllegalArgumentException if the id is null, empty, over 1024 bytes or holds ':'
     * @throws io.echomq.RedisCommandException if Redis fails
     */
    public RemoveOutcome remove(String id, boolean force) {
        Checks.jobId(id);
        long code = RedisEngine.await(run(Scripts.REMOVE, ScriptOutputType.INTEGER, removeKeys, prefix, bytes(id),
                force ? ONE : ZERO), Scripts.REMOVE.label(), name());
        return code == 1 ? RemoveOutcome.REMOVED : code == 0 ? RemoveOutcome.LOCKED : RemoveOutcome.MISSING;
    }

    /**
     * @return the counts, read in one atomic script
     * @throws io.echomq.RedisCommandException if Redis fails
     */
    public QueueStats stats() {
        List<Long> s = statsRaw();
        return new QueueStats(s.get(0), s.get(1), s.get(2), s.get(3), s.get(4), s.get(5), s.get(6));
    }

    private List<Long> statsRaw() {
        return RedisEngine.await(statsAsync(), Scripts.STATS.label(), name());
    }

    CompletableFuture<List<Long>> statsAsync() {
        return run(Scripts.STATS, ScriptOutputType.MULTI, statsKeys);
    }

    /**
     * Lists the oldest dead jobs with their reason and last error.
     *
     * @param limit 1..{@link #MAX_BATCH}
     * @throws IllegalArgumentException if limit is out of range
     * @throws io.echomq.RedisCommandException if Redis fails
     */
    public List<DeadJob> dead(int limit) {
        checkRange(limit, 1, MAX_BATCH, "limit");
        RedisClusterAsyncCommands<String, byte[]> async = RedisEngine.async(conn);
        List<ScoredValue<byte[]>> entries = RedisEngine.await(
                async.zrangeWithScores(keys.dead(), 0, limit - 1).toCompletableFuture(), "ZRANGE dead", name());
        List<CompletableFuture<List<io.lettuce.core.KeyValue<String, byte[]>>>> reads = new ArrayList<>();
        for (ScoredValue<byte[]> e : entries) {
            String id = text(e.getValue());
            if (id.indexOf(':') >= 0) {
                // its would-be key belongs to another job ("7:lock" is job 7's lock subkey): never read it
                reads.add(CompletableFuture.completedFuture(null));
                continue;
            }
            reads.add(async.hmget(keys.job(id), "attempts", "dead_reason", "last_error", "payload")
                    .toCompletableFuture()
                    .exceptionally(wrongType -> null));
        }
        List<DeadJob> out = new ArrayList<>(entries.size());
        for (int i = 0; i < entries.size(); i++) {
            String id = text(entries.get(i).getValue());
            long diedAt = (long) entries.get(i).getScore();
            List<io.lettuce.core.KeyValue<String, byte[]>> h = RedisEngine.await(reads.get(i), "HMGET", name());
            if (h == null) {
                String why = id.indexOf(':') >= 0 ? "job id contains ':'" : "job key is not a hash";
                out.add(new DeadJob(id, diedAt, 0, why, "", null));
                continue;
            }
            String reason = h.get(1).hasValue() ? text(h.get(1).getValue()) : "job hash is missing";
            out.add(new DeadJob(id, diedAt, h.get(0).hasValue() ? parseLong(text(h.get(0).getValue())) : 0,
                    reason, h.get(2).hasValue() ? text(h.get(2).getValue()) : "",
                    h.get(3).hasValue() ? h.get(3).getValue() : null));
        }
        return out;
    }

    /**
     * Moves up to {@code limit} of the oldest dead jobs back to pending, each with a fresh budget
     * of attempts. Entries with no payload stay dead.
     *
     * @return how many were moved
     * @throws IllegalArgumentException if limit is outside 1..{@link #MAX_BATCH}
     * @throws io.echomq.RedisCommandException if Redis fails
     */
    public long redrive(int limit) {
        checkRange(limit, 1, MAX_BATCH, "limit");
        return deadOp(Scripts.REDRIVE, redriveKeys, limit, List.of());
    }

    /**
     * Moves the named dead jobs back to pending with a fresh budget; ids not in the dead set are skipped.
     *
     * @return how many were moved
     * @throws IllegalArgumentException if ids is null, empty, over {@link #MAX_BATCH}, or holds an invalid id
     * @throws io.echomq.RedisCommandException if Redis fails
     */
    public long redrive(Collection<String> ids) {
        return deadOp(Scripts.REDRIVE, redriveKeys, 1, checkIds(ids));
    }

    /**
     * Deletes up to {@code limit} of the oldest dead jobs for good.
     *
     * @return how many were deleted
     * @throws IllegalArgumentException if limit is outside 1..{@link #MAX_BATCH}
     * @throws io.echomq.RedisCommandException if Redis fails
     */
    public long purgeDead(int limit) {
        checkRange(limit, 1, MAX_BATCH, "limit");
        return deadOp(Scripts.PURGE, deadKey, limit, List.of());
    }

    /**
     * Deletes the named dead jobs for good; ids not in the dead set are skipped.
     *
     * @return how many were deleted
     * @throws IllegalArgumentException if ids is null, empty, over {@link #MAX_BATCH}, or holds an invalid id
     * @throws io.echomq.RedisCommandException if Redis fails
     */
    public long purgeDead(Collection<String> ids) {
        return deadOp(Scripts.PURGE, deadKey, 1, checkIds(ids));
    }

    private long deadOp(LuaScript script, String[] k, int limit, List<String> ids) {
        int fixed = script == Scripts.REDRIVE ? 3 : 2;   // redrive also takes the publish mode
        byte[][] args = new byte[fixed + ids.size()][];
        args[0] = prefix;
        args[1] = EnqueueOptions.num(limit);
        if (script == Scripts.REDRIVE) {
            args[2] = publish;
        }
        for (int i = 0; i < ids.size(); i++) {
            args[fixed + i] = bytes(ids.get(i));
        }
        return RedisEngine.<Long>await(run(script, ScriptOutputType.INTEGER, k, args), script.label(), name());
    }

    /**
     * Reads one job's hash.
     *
     * @return the job, or empty when there is no hash under its key
     * @throws IllegalArgumentException if the id is invalid
     * @throws io.echomq.RedisCommandException if Redis fails, for example when the key is not a hash
     */
    public Optional<JobInfo> inspect(String id) {
        Checks.jobId(id);
        Map<String, byte[]> h = RedisEngine.await(RedisEngine.async(conn).hgetall(keys.job(id)).toCompletableFuture(),
                "HGETALL", name());
        if (h == null || h.isEmpty()) {
            return Optional.empty();
        }
        Map<String, byte[]> copy = new LinkedHashMap<>(h);
        String state = copy.containsKey("state") ? text(copy.get("state")) : "pending";
        long attempts = copy.containsKey("attempts") ? parseLong(text(copy.get("attempts"))) : 0;
        return Optional.of(new JobInfo(id, state, attempts, java.util.Collections.unmodifiableMap(copy)));
    }

    // ------------------------------------------------------------------ plumbing for Job and Worker

    /**
     * The decoded answer of claim-8: one ack code per job it completed (in the order given), and
     * the jobs it claimed.
     */
    record Claimed(List<Long> ackCodes, long nextDueMs, long deadCount, List<Job> jobs) {
    }

    Claimed claimBatch(int n, long leaseMs, Job ack) {
        return RedisEngine.await(settleAsync(ack == null ? List.of() : List.of(ack), n, leaseMs),
                Scripts.CLAIM.label(), name());
    }

    CompletableFuture<Claimed> claimAsync(int n, long leaseMs, Job ack) {
        return settleAsync(ack == null ? List.of() : List.of(ack), n, leaseMs);
    }

    /**
     * One claim-8 call: completes {@code acks} (at most {@link #MAX_ACKS}, each fenced by its own
     * attempt), then promotes and claims up to {@code n} jobs (no promotion when {@code n} is 0).
     */
    CompletableFuture<Claimed> settleAsync(List<Job> acks, int n, long leaseMs) {
        long start = client.clock().nanoTime();
        return claimRaw(n, leaseMs, n > 0 ? PROMOTE_PER_CLAIM : 0, acks).thenApply(r -> decode(r, leaseMs, start));
    }

    private CompletableFuture<List<Object>> claimRaw(int n, long leaseMs, int promote, List<Job> acks) {
        if (acks.size() > MAX_ACKS) {
            throw new IllegalArgumentException("at most " + MAX_ACKS + " acks per call, was " + acks.size());
        }
        byte[][] args = new byte[7 + 2 * acks.size()][];
        args[0] = prefix;
        args[1] = EnqueueOptions.num(leaseMs);
        args[2] = EnqueueOptions.num(n);
        args[3] = EnqueueOptions.num(promote);
        args[4] = EnqueueOptions.num(client.retainCompletedMillis());
        args[5] = publish;
        args[6] = EnqueueOptions.num(acks.size());
        for (int i = 0; i < acks.size(); i++) {
            Job ack = acks.get(i);
            args[7 + 2 * i] = bytes(ack.localId());
            args[8 + 2 * i] = bytes(ack.attemptText());
        }
        return run(Scripts.CLAIM, ScriptOutputType.MULTI, keys.claimKeys(), args);
    }

    @SuppressWarnings("unchecked")
    private Claimed decode(List<Object> r, long leaseMs, long start) {
        List<Job> jobs = new ArrayList<>((r.size() - 4) / 5);
        for (int i = 4; i + 4 < r.size(); i += 5) {
            jobs.add(new Job(this, text(r.get(i)), (byte[]) r.get(i + 1), (Long) r.get(i + 2), (Long) r.get(i + 3),
                    (Long) r.get(i + 4), leaseMs, start));
        }
        return new Claimed((List<Long>) r.get(0), (Long) r.get(1), (Long) r.get(2), jobs);
    }

    /** One promote-5 call: {promoted, next_due_ms}. */
    CompletableFuture<List<Object>> promoteAsync(int limit) {
        return run(Scripts.PROMOTE, ScriptOutputType.MULTI, promoteKeys, prefix, EnqueueOptions.num(limit), publish);
    }

    /**
     * Completes one job alone.
     *
     * @return its ack code (1, or a negative lease code)
     * @throws io.echomq.RedisCommandException if Redis fails, or the job key holds another type
     */
    long completeCode(Job job) {
        List<Long> codes = RedisEngine.await(run(Scripts.COMPLETE, ScriptOutputType.MULTI, completeKeys, prefix,
                EnqueueOptions.num(client.retainCompletedMillis()), ONE, bytes(job.localId()),
                bytes(job.attemptText())), Scripts.COMPLETE.label(), name());
        return checkAck(job, codes.get(0), Scripts.COMPLETE);
    }

    /** @return {@code code} of a claim-8 ack, unless it says the job key is not a hash: then the failure */
    long checkAck(Job job, long code) {
        return checkAck(job, code, Scripts.CLAIM);
    }

    /** @return {@code code}, unless it says the job key is not a hash: then the failure, as Redis's own */
    private long checkAck(Job job, long code, LuaScript script) {
        if (code == ACK_NOT_A_HASH) {
            throw new io.echomq.RedisCommandException(script.label(), name(), new io.lettuce.core.RedisCommandExecutionException(
                    "WRONGTYPE " + keys.job(job.localId()) + " is not a hash; nothing of it was changed"));
        }
        return code;
    }

    /** @param delayMs the retry's exact delay in ms, or -1 to let the script use the job's backoff (six ARGV, as before) */
    long failCode(Job job, String error, boolean retry, long delayMs) {
        byte[] jitter = Double.toString(ThreadLocalRandom.current().nextDouble()).getBytes(StandardCharsets.US_ASCII);
        byte[][] args = delayMs < 0
                ? new byte[][] {prefix, bytes(job.localId()), bytes(job.attemptText()), error.getBytes(StandardCharsets.UTF_8),
                        jitter, retry ? ONE : ZERO}
                : new byte[][] {prefix, bytes(job.localId()), bytes(job.attemptText()), error.getBytes(StandardCharsets.UTF_8),
                        jitter, retry ? ONE : ZERO, EnqueueOptions.num(delayMs)};
        List<Object> r = RedisEngine.await(run(Scripts.FAIL, ScriptOutputType.MULTI, failKeys, args),
                Scripts.FAIL.label(), name());
        return (Long) r.get(0);
    }

    List<Long> extendCodes(long leaseMs, List<Job> jobs) {
        return RedisEngine.await(extendAsync(leaseMs, jobs), Scripts.EXTEND.label(), name());
    }

    CompletableFuture<List<Long>> extendAsync(long leaseMs, List<Job> jobs) {
        byte[][] args = new byte[2 + 2 * jobs.size()][];
        args[0] = prefix;
        args[1] = EnqueueOptions.num(leaseMs);
        for (int i = 0; i < jobs.size(); i++) {
            args[2 + 2 * i] = bytes(jobs.get(i).localId());
            args[3 + 2 * i] = bytes(jobs.get(i).attemptText());
        }
        return run(Scripts.EXTEND, ScriptOutputType.MULTI, activeKey, args);
    }

    long progressCode(Job job, byte[] progress) {
        Checks.notNull(progress, "progress");
        if (progress.length > client.maxPayloadBytes()) {
            throw new IllegalArgumentException("progress is " + progress.length + " bytes; the limit is "
                    + client.maxPayloadBytes() + " bytes");
        }
        return RedisEngine.<Long>await(run(Scripts.PROGRESS, ScriptOutputType.INTEGER, activeKey, prefix,
                bytes(job.localId()), bytes(job.attemptText()), progress), Scripts.PROGRESS.label(), name());
    }

    long returnCode(Job job) {
        return RedisEngine.<Long>await(run(Scripts.RETURN, ScriptOutputType.INTEGER, returnKeys, prefix,
                bytes(job.localId()), bytes(job.attemptText()), publish), Scripts.RETURN.label(), name());
    }

    long clockNanos() {
        return client.clock().nanoTime();
    }

    QueueKeys keys() {
        return keys;
    }

    /** @return the name users know the queue by: a partition answers its sharded queue's name */
    String logicalName() {
        return logicalName;
    }

    /** @return what a partition puts before its jobs' ids ({@code "<partition>-"}), else "" */
    String idPrefix() {
        return idPrefix;
    }

    QueueClient client() {
        return client;
    }

    private <T> CompletableFuture<T> run(LuaScript script, ScriptOutputType type, String[] k, byte[]... args) {
        return engine.run(conn, script, type, k, args);
    }

    static long checkLease(Duration lease) {
        long ms = Checks.ttlMillis(lease, MAX_LEASE, "lease");
        if (ms < MIN_LEASE.toMillis()) {
            throw new IllegalArgumentException("lease must be at least " + MIN_LEASE.toMillis() + " ms, was " + lease);
        }
        return ms;
    }

    private static void checkRange(int v, int min, int max, String what) {
        if (v < min || v > max) {
            throw new IllegalArgumentException(what + " must be in " + min + ".." + max + ", was " + v);
        }
    }

    private static List<String> checkIds(Collection<String> ids) {
        Checks.notNull(ids, "ids");
        if (ids.isEmpty() || ids.size() > MAX_BATCH) {
            throw new IllegalArgumentException("ids must hold 1.." + MAX_BATCH + " ids, held " + ids.size());
        }
        List<String> out = new ArrayList<>(ids.size());
        for (String id : ids) {
            out.add(Checks.jobId(id));
        }
        return out;
    }

    static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    static String text(Object o) {
        return o == null ? null : new String((byte[]) o, StandardCharsets.UTF_8);
    }

    private static long parseLong(String s) {
        try {
            return Long.parseLong(s);
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    @Override
    public String toString() {
        return "Queue[" + name() + "]";
    }
}
