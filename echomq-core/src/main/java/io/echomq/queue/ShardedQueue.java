package io.echomq.queue;

import io.echomq.internal.Checks;
import io.echomq.internal.QueueKeys;
import io.echomq.internal.RedisEngine;
import io.echomq.internal.Scripts;
import io.lettuce.core.ScriptOutputType;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.zip.CRC32;

/**
 * One logical queue split into K partitions, each an ordinary queue with its own hash tag
 * ({@code emq:{<q>#0}:…}, {@code emq:{<q>#1}:…}), so that on Redis Cluster its load spreads over
 * the masters. Every partition keeps the whole claim-lease protocol; nothing in a partition knows
 * about the others.
 *
 * <pre>{@code
 * ShardedQueue orders = client.shardedQueue("orders", 6);
 * String id = orders.enqueue("{\"sku\":7}");                       // round-robin: "4-17"
 * orders.enqueue("customer-42", payload, EnqueueOptions.defaults()); // same key, same partition, FIFO
 * try (Worker w = client.worker(orders, job -> ship(job.payloadUtf8())).start()) { ... }
 * }</pre>
 *
 * <ul>
 *   <li><b>Where a job goes.</b> With an idempotency key and no partition key, to partition
 *       {@code crc32(idempotency key) mod K}, so the key still enqueues once. With a partition key
 *       ({@link #enqueue(String, byte[], EnqueueOptions)}), to {@code crc32(partition key) mod K}:
 *       jobs sharing a key keep FIFO order. Otherwise round-robin, from a random start per
 *       instance.</li>
 *   <li><b>Ids</b> name the partition: {@code <partition>-<id>}, where {@code <id>} is the
 *       partition's own id. {@link #remove}, {@link #inspect}, {@link #redrive(Collection)} and
 *       {@link #purgeDead(Collection)} go straight to that partition; {@link Job#id()} has the same
 *       form.</li>
 *   <li><b>The partition count</b> is declared by each instance and recorded in
 *       {@code emq:{<q>}:partitions} as a high-water mark that never goes down. Enqueue spreads
 *       over this instance's own count; claims, stats, reaping and dead letters span the mark, so
 *       a job enqueued by a client that uses more partitions is never stranded. Workers re-read
 *       the mark at every maintenance run.</li>
 *   <li><b>Order.</b> FIFO (within one priority) holds within a partition, not across them.</li>
 *   <li><b>Sums.</b> {@link #stats()} adds up one atomic snapshot per partition; the sum is not
 *       one atomic snapshot. Limits ({@link #reap}, {@link #promote}) apply per partition.</li>
 * </ul>
 *
 * <p>Obtained from {@link QueueClient#shardedQueue(String, int)}; thread-safe.
 */
public final class ShardedQueue implements QueueOperations {
    /** Most partitions one queue may have. */
    public static final int MAX_PARTITIONS = 1024;

    private final QueueClient client;
    private final String name;
    private final String markKey;
    private final int declared;
    private final AtomicLong roundRobin = new AtomicLong(ThreadLocalRandom.current().nextInt(1 << 20));
    private final AtomicInteger claimStart = new AtomicInteger(ThreadLocalRandom.current().nextInt(1 << 20));
    private volatile List<Queue> partitions;   // spans the mark; only ever grows

    private ShardedQueue(QueueClient client, String name, int declared, int mark) {
        this.client = client;
        this.name = name;
        this.markKey = QueueKeys.ofUserName(name).partitionsMark();
        this.declared = declared;
        this.partitions = List.of();
        grow(Math.max(declared, mark));
    }

    /** Declares {@code partitions} in the mark (one round trip) and returns the queue. */
    static ShardedQueue open(QueueClient client, String name, int partitions) {
        QueueKeys.ofUserName(name);
        if (partitions < 1 || partitions > MAX_PARTITIONS) {
            throw new IllegalArgumentException("partitions must be in 1.." + MAX_PARTITIONS + ", was " + partitions);
        }
        String mark = QueueKeys.ofUserName(name).partitionsMark();
        int recorded = checkMark(RedisEngine.await(declare(client, mark, partitions), Scripts.PARTITIONS.label(), name),
                mark);
        return new ShardedQueue(client, name, partitions, recorded);
    }

    /** @return the stored partition count of {@code name}, 0 if none (one round trip, nothing written) */
    static int storedPartitions(QueueClient client, String name) {
        String mark = QueueKeys.ofUserName(name).partitionsMark();
        return checkMark(RedisEngine.await(declare(client, mark, 0), Scripts.PARTITIONS.label(), name), mark);
    }

    /** @return the queue with the count already read from its mark, declaring nothing */
    static ShardedQueue ofStored(QueueClient client, String name, int stored) {
        return new ShardedQueue(client, name, stored, stored);
    }

    private static CompletableFuture<Long> declare(QueueClient client, String mark, int count) {
        return client.engine().run(client.engine().binary(), Scripts.PARTITIONS, ScriptOutputType.INTEGER,
                new String[] {mark}, EnqueueOptions.num(count));
    }

    private static int checkMark(long mark, String key) {
        if (mark < 0 || mark > MAX_PARTITIONS) {
            throw new IllegalStateException(key + " does not hold a partition count in 1.." + MAX_PARTITIONS
                    + "; fix or delete it");
        }
        return (int) mark;
    }

    private synchronized void grow(int count) {
        List<Queue> now = partitions;
        if (count <= now.size()) {
            return;
        }
        List<Queue> next = new ArrayList<>(now);
        for (int i = now.size(); i < count; i++) {
            next.add(new Queue(client, QueueKeys.partition(name, i), client.engine(), name, i + "-"));
        }
        partitions = List.copyOf(next);
    }

    /**
     * Reads the mark again and spans any partitions another client added (workers do this at every
     * maintenance run).
     *
     * @return the number of partitions now spanned
     * @throws IllegalStateException if the mark holds something other than a count in 1..{@link #MAX_PARTITIONS}
     * @throws io.echomq.RedisCommandException if Redis fails
     */
    public int refresh() {
        return RedisEngine.await(refreshAsync(), Scripts.PARTITIONS.label(), name);
    }

    CompletableFuture<Integer> refreshAsync() {
        return declare(client, markKey, 0).thenApply(m -> {
            grow(checkMark(m, markKey));
            return partitions.size();
        });
    }

    /** @return the sharded queue's name (each partition is the queue {@code <name>#<i>}) */
    @Override
    public String name() {
        return name;
    }

    /** @return the partitions this instance enqueues into */
    public int declaredPartitions() {
        return declared;
    }

    /** @return the partitions claims, stats and dead letters span: the mark, at least the declared count */
    public int partitions() {
        return partitions.size();
    }

    List<Queue> partitionQueues() {
        return partitions;
    }

    QueueClient client() {
        return client;
    }

    // ------------------------------------------------------------------ enqueue

    /** Enqueues with the default options, round-robin; see {@link QueueOperations#enqueue(String)}. */
    @Override
    public String enqueue(String text) {
        Checks.notNull(text, "payload");
        return enqueue(text.getBytes(StandardCharsets.UTF_8), EnqueueOptions.defaults()).id();
    }

    /** Enqueues with the default options, round-robin; see {@link QueueOperations#enqueue(byte[])}. */
    @Override
    public String enqueue(byte[] payload) {
        return enqueue(payload, EnqueueOptions.defaults()).id();
    }

    /**
     * Enqueues one job in one round trip, to the partition its idempotency key hashes to, or
     * round-robin when it has none.
     *
     * @return the id ({@code <partition>-<id>}) and whether it was created
     * @throws IllegalArgumentException if payload or options is null, or the payload is over the limit
     * @throws io.echomq.RedisCommandException if Redis fails; the job may or may not have been added
     */
    @Override
    public EnqueueResult enqueue(byte[] payload, EnqueueOptions options) {
        return enqueueAll(List.of(new JobRequest(payload, options))).get(0);
    }

    /**
     * Enqueues one job to the partition {@code partitionKey} hashes to ({@code crc32 mod K}), so
     * that jobs sharing a key are claimed in enqueue order (within one priority). An idempotency
     * key then dedupes among the jobs of that partition key.
     *
     * @throws IllegalArgumentException if the key is null, empty or over 1024 bytes, or the job is invalid
     * @throws io.echomq.RedisCommandException if Redis fails; the job may or may not have been added
     */
    public EnqueueResult enqueue(String partitionKey, byte[] payload, EnqueueOptions options) {
        return enqueueAll(partitionKey, List.of(new JobRequest(payload, options))).get(0);
    }

    /**
     * Enqueues many jobs: each goes where {@link #enqueue(byte[], EnqueueOptions)} would send it,
     * the jobs of one partition in chunks of 1000 (one atomic script each), and every call is
     * written before the first answer is awaited.
     *
     * @return one result per request, in order
     * @throws IllegalArgumentException if the list is null or empty, or any request is invalid;
     *     then nothing is sent
     * @throws io.echomq.RedisCommandException if Redis fails; some jobs may have been added
     */
    @Override
    public List<EnqueueResult> enqueueAll(List<JobRequest> requests) {
        List<Queue> span = partitions;
        span.get(0).checkRequests(requests);
        int[] target = new int[requests.size()];
        for (int i = 0; i < requests.size(); i++) {
            String idem = requests.get(i).options().idempotencyKey();
            target[i] = idem.isEmpty() ? (int) Math.floorMod(roundRobin.getAndIncrement(), (long) declared)
                    : partitionOf(idem, declared);
        }
        return send(span, requests, target);
    }

    /**
     * Enqueues many jobs to the one partition {@code partitionKey} hashes to, keeping their order.
     *
     * @return one result per request, in order
     * @throws IllegalArgumentException if the key is invalid, the list is null or empty, or any
     *     request is invalid; then nothing is sent
     * @throws io.echomq.RedisCommandException if Redis fails; some jobs may have been added
     */
    public List<EnqueueResult> enqueueAll(String partitionKey, List<JobRequest> requests) {
        Checks.name(partitionKey, "partition key");
        List<Queue> span = partitions;
        span.get(0).checkRequests(requests);
        int[] target = new int[requests.size()];
        java.util.Arrays.fill(target, partitionOf(partitionKey, declared));
        return send(span, requests, target);
    }

    /**
     * @return the partition a partition key or idempotency key selects among {@code k}:
     *     the CRC-32 (IEEE, as {@link CRC32}) of its UTF-8 bytes, unsigned, modulo {@code k}
     * @throws IllegalArgumentException if the key is null or k is outside 1..{@link #MAX_PARTITIONS}
     */
    public static int partitionOf(String key, int k) {
        Checks.notNull(key, "key");
        if (k < 1 || k > MAX_PARTITIONS) {
            throw new IllegalArgumentException("k must be in 1.." + MAX_PARTITIONS + ", was " + k);
        }
        CRC32 crc = new CRC32();
        crc.update(key.getBytes(StandardCharsets.UTF_8));
        return (int) (crc.getValue() % k);
    }

    private List<EnqueueResult> send(List<Queue> span, List<JobRequest> requests, int[] target) {
        Map<Integer, List<Integer>> byPartition = new LinkedHashMap<>();
        for (int i = 0; i < target.length; i++) {
            byPartition.computeIfAbsent(target[i], p -> new ArrayList<>()).add(i);
        }
        Map<Integer, List<CompletableFuture<List<Object>>>> calls = new LinkedHashMap<>();
        for (Map.Entry<Integer, List<Integer>> e : byPartition.entrySet()) {
            List<JobRequest> mine = new ArrayList<>(e.getValue().size());
            for (int i : e.getValue()) {
                mine.add(requests.get(i));
            }
            calls.put(e.getKey(), span.get(e.getKey()).sendEnqueue(mine));
        }
        EnqueueResult[] out = new EnqueueResult[requests.size()];
        for (Map.Entry<Integer, List<Integer>> e : byPartition.entrySet()) {
            List<EnqueueResult> got = span.get(e.getKey()).collectEnqueued(calls.get(e.getKey()));
            String prefix = e.getKey() + "-";
            for (int j = 0; j < got.size(); j++) {
                out[e.getValue().get(j)] = new EnqueueResult(prefix + got.get(j).id(), got.get(j).created());
            }
        }
        return List.of(out);
    }

    // ------------------------------------------------------------------ claim

    /**
     * Claims one job from the first partition, in a rotating order, that has one.
     *
     * @throws IllegalArgumentException if the lease is invalid
     * @throws io.echomq.RedisCommandException if Redis fails
     */
    @Override
    public Optional<Job> claim(Duration lease) {
        List<Job> jobs = claim(1, lease);
        return jobs.isEmpty() ? Optional.empty() : Optional.of(jobs.get(0));
    }

    /**
     * Claims up to {@code max} jobs: from the partitions in turn, starting one partition further
     * on each call, until {@code max} are claimed or every partition has been asked once. So no
     * partition starves: each is asked first at least once in every K calls.
     *
     * @throws IllegalArgumentException if max is outside 1..{@link Queue#MAX_CLAIM} or the lease is invalid
     * @throws io.echomq.RedisCommandException if Redis fails
     */
    @Override
    public List<Job> claim(int max, Duration lease) {
        if (max < 1 || max > Queue.MAX_CLAIM) {
            throw new IllegalArgumentException("max must be in 1.." + Queue.MAX_CLAIM + ", was " + max);
        }
        long leaseMs = Queue.checkLease(lease);
        return RedisEngine.await(claimAsync(max, leaseMs), Scripts.CLAIM.label(), name).jobs();
    }

    /**
     * One claim round over every partition, the first one rotating: asks each in turn for what is
     * still wanted. Reports the earliest due time and the malformed jobs over all partitions.
     */
    CompletableFuture<Queue.Claimed> claimAsync(int n, long leaseMs) {
        List<Queue> span = partitions;
        int first = Math.floorMod(claimStart.getAndIncrement(), span.size());
        Round round = new Round(n);
        CompletableFuture<Round> chain = CompletableFuture.completedFuture(round);
        for (int i = 0; i < span.size(); i++) {
            Queue p = span.get((first + i) % span.size());
            chain = chain.thenCompose(r -> r.wanted() == 0 ? CompletableFuture.completedFuture(r)
                    : p.claimAsync(r.wanted(), leaseMs, null).thenApply(r::add));
        }
        return chain.thenApply(Round::result);
    }

    /** The partial result of one claim round. */
    private static final class Round {
        private final int n;
        private final List<Job> jobs = new ArrayList<>();
        private long nextDueMs = -1;
        private long dead;

        Round(int n) {
            this.n = n;
        }

        int wanted() {
            return n - jobs.size();
        }

        Round add(Queue.Claimed c) {
            jobs.addAll(c.jobs());
            dead += c.deadCount();
            if (c.nextDueMs() >= 0 && (nextDueMs < 0 || c.nextDueMs() < nextDueMs)) {
                nextDueMs = c.nextDueMs();
            }
            return this;
        }

        Queue.Claimed result() {
            return new Queue.Claimed(List.of(), nextDueMs, dead, jobs);
        }
    }

    // ------------------------------------------------------------------ operators

    /**
     * Promotes due delayed jobs in every partition, at most {@code limit} per partition.
     *
     * @return how many were promoted in all
     * @throws IllegalArgumentException if limit is outside 1..{@link Queue#MAX_BATCH}
     * @throws io.echomq.RedisCommandException if Redis fails
     */
    @Override
    public long promote(int limit) {
        checkLimit(limit);
        List<CompletableFuture<List<Object>>> calls = new ArrayList<>();
        for (Queue p : partitions) {
            calls.add(p.promoteAsync(limit));
        }
        long total = 0;
        for (CompletableFuture<List<Object>> c : calls) {
            total += (Long) RedisEngine.await(c, Scripts.PROMOTE.label(), name).get(0);
        }
        return total;
    }

    /**
     * Reaps every partition, at most {@code limit} expired leases per partition.
     *
     * @return the sums over the partitions
     * @throws IllegalArgumentException if limit is outside 1..{@link Queue#MAX_BATCH}
     * @throws io.echomq.RedisCommandException if Redis fails
     */
    @Override
    public ReapResult reap(int limit) {
        checkLimit(limit);
        List<CompletableFuture<List<Object>>> calls = new ArrayList<>();
        for (Queue p : partitions) {
            calls.add(p.reapAsync(limit));
        }
        long back = 0;
        long dead = 0;
        for (CompletableFuture<List<Object>> c : calls) {
            List<Object> r = RedisEngine.await(c, Scripts.REAP.label(), name);
            back += (Long) r.get(0);
            dead += (Long) r.get(1);
        }
        return new ReapResult(back, dead);
    }

    /**
     * Removes the job {@code <partition>-<id>} from its partition; see {@link Queue#remove}.
     *
     * @return REMOVED, LOCKED, or MISSING (also for a partition beyond the mark)
     * @throws IllegalArgumentException if the id is not of the form {@code <partition>-<id>}
     * @throws io.echomq.RedisCommandException if Redis fails
     */
    @Override
    public RemoveOutcome remove(String id, boolean force) {
        Located at = locate(id);
        return at == null ? RemoveOutcome.MISSING : at.partition.remove(at.localId, force);
    }

    /**
     * Reads one job's hash from its partition.
     *
     * @return the job (its {@link JobInfo#id()} in the {@code <partition>-<id>} form), or empty
     * @throws IllegalArgumentException if the id is not of the form {@code <partition>-<id>}
     * @throws io.echomq.RedisCommandException if Redis fails
     */
    @Override
    public Optional<JobInfo> inspect(String id) {
        Located at = locate(id);
        if (at == null) {
            return Optional.empty();
        }
        return at.partition.inspect(at.localId).map(i -> new JobInfo(id, i.state(), i.attempts(), i.fields()));
    }

    /**
     * Sums the partitions' counts. Each partition's counts are one atomic snapshot, read in
     * parallel; the sum is not one snapshot.
     *
     * @throws io.echomq.RedisCommandException if Redis fails
     */
    @Override
    public QueueStats stats() {
        long[] sum = new long[7];
        for (QueueStats s : partitionStats()) {
            sum[0] += s.pending();
            sum[1] += s.active();
            sum[2] += s.delayed();
            sum[3] += s.dead();
            sum[4] += s.completed();
            sum[5] += s.failed();
            sum[6] += s.overdue();
        }
        return new QueueStats(sum[0], sum[1], sum[2], sum[3], sum[4], sum[5], sum[6]);
    }

    /**
     * @return each partition's counts, index i for partition i, read in parallel
     * @throws io.echomq.RedisCommandException if Redis fails
     */
    public List<QueueStats> partitionStats() {
        List<Queue> span = partitions;
        List<CompletableFuture<List<Long>>> calls = new ArrayList<>();
        for (Queue p : span) {
            calls.add(p.statsAsync());
        }
        List<QueueStats> out = new ArrayList<>(span.size());
        for (CompletableFuture<List<Long>> c : calls) {
            List<Long> s = RedisEngine.await(c, Scripts.STATS.label(), name);
            out.add(new QueueStats(s.get(0), s.get(1), s.get(2), s.get(3), s.get(4), s.get(5), s.get(6)));
        }
        return out;
    }

    /**
     * Lists the oldest dead jobs over all partitions, oldest death first, ids in the
     * {@code <partition>-<id>} form.
     *
     * @param limit 1..{@link Queue#MAX_BATCH}, in all
     * @throws IllegalArgumentException if limit is out of range
     * @throws io.echomq.RedisCommandException if Redis fails
     */
    @Override
    public List<DeadJob> dead(int limit) {
        checkLimit(limit);
        List<DeadJob> all = new ArrayList<>();
        List<Queue> span = partitions;
        for (int i = 0; i < span.size(); i++) {
            for (DeadJob d : span.get(i).dead(limit)) {
                all.add(new DeadJob(i + "-" + d.id(), d.diedAtMillis(), d.attempts(), d.reason(), d.lastError(),
                        d.payload()));
            }
        }
        all.sort(Comparator.comparingLong(DeadJob::diedAtMillis));
        return all.size() > limit ? List.copyOf(all.subList(0, limit)) : all;
    }

    /**
     * Redrives up to {@code limit} dead jobs in all, partition after partition.
     *
     * @return how many were moved
     * @throws IllegalArgumentException if limit is outside 1..{@link Queue#MAX_BATCH}
     * @throws io.echomq.RedisCommandException if Redis fails
     */
    @Override
    public long redrive(int limit) {
        checkLimit(limit);
        long moved = 0;
        for (Queue p : partitions) {
            if (moved >= limit) {
                break;
            }
            moved += p.redrive((int) (limit - moved));
        }
        return moved;
    }

    /**
     * Redrives the named dead jobs ({@code <partition>-<id>}), one call per partition.
     *
     * @return how many were moved
     * @throws IllegalArgumentException if ids is null, empty, over {@link Queue#MAX_BATCH}, or holds
     *     an id not of the form {@code <partition>-<id>}
     * @throws io.echomq.RedisCommandException if Redis fails
     */
    @Override
    public long redrive(Collection<String> ids) {
        long moved = 0;
        for (Map.Entry<Queue, List<String>> e : group(ids).entrySet()) {
            moved += e.getKey().redrive(e.getValue());
        }
        return moved;
    }

    /**
     * Purges up to {@code limit} dead jobs in all, partition after partition.
     *
     * @return how many were deleted
     * @throws IllegalArgumentException if limit is outside 1..{@link Queue#MAX_BATCH}
     * @throws io.echomq.RedisCommandException if Redis fails
     */
    @Override
    public long purgeDead(int limit) {
        checkLimit(limit);
        long gone = 0;
        for (Queue p : partitions) {
            if (gone >= limit) {
                break;
            }
            gone += p.purgeDead((int) (limit - gone));
        }
        return gone;
    }

    /**
     * Purges the named dead jobs ({@code <partition>-<id>}), one call per partition.
     *
     * @return how many were deleted
     * @throws IllegalArgumentException if ids is null, empty, over {@link Queue#MAX_BATCH}, or holds
     *     an id not of the form {@code <partition>-<id>}
     * @throws io.echomq.RedisCommandException if Redis fails
     */
    @Override
    public long purgeDead(Collection<String> ids) {
        long gone = 0;
        for (Map.Entry<Queue, List<String>> e : group(ids).entrySet()) {
            gone += e.getKey().purgeDead(e.getValue());
        }
        return gone;
    }

    // ------------------------------------------------------------------ ids

    private record Located(Queue partition, String localId) {
    }

    /** @return where the id lives, or null for a partition beyond the mark */
    private Located locate(String id) {
        Checks.name(id, "job id");
        int dash = id.indexOf('-');
        if (dash < 1 || dash > 4 || dash == id.length() - 1 || !id.substring(0, dash).chars().allMatch(Character::isDigit)) {
            throw new IllegalArgumentException("job id '" + id + "' is not of the form <partition>-<id>, "
                    + "as the ids of a sharded queue are");
        }
        int index = Integer.parseInt(id.substring(0, dash));
        List<Queue> span = partitions;
        if (index >= span.size()) {
            return null;
        }
        return new Located(span.get(index), id.substring(dash + 1));
    }

    private Map<Queue, List<String>> group(Collection<String> ids) {
        Checks.notNull(ids, "ids");
        if (ids.isEmpty() || ids.size() > Queue.MAX_BATCH) {
            throw new IllegalArgumentException("ids must hold 1.." + Queue.MAX_BATCH + " ids, held " + ids.size());
        }
        Map<Queue, List<String>> out = new LinkedHashMap<>();
        List<Located> found = new ArrayList<>(ids.size());
        for (String id : ids) {
            found.add(locate(id));
        }
        for (Located at : found) {
            if (at != null) {
                out.computeIfAbsent(at.partition, q -> new ArrayList<>()).add(at.localId);
            }
        }
        return out;
    }

    private static void checkLimit(int limit) {
        if (limit < 1 || limit > Queue.MAX_BATCH) {
            throw new IllegalArgumentException("limit must be in 1.." + Queue.MAX_BATCH + ", was " + limit);
        }
    }

    @Override
    public String toString() {
        return "ShardedQueue[" + name + ", " + partitions.size() + " partitions]";
    }
}
