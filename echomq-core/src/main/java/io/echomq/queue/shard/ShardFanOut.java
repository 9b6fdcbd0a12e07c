package io.echomq.queue;

import io.echomq.internal.RedisEngine;
import io.echomq.internal.Scripts;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiFunction;
import java.util.function.Function;

/**
 * The calls of a {@link ShardedQueue} that go to many partitions, and how their answers combine.
 *
 * <ol>
 *   <li>Enqueue ({@link #enqueue}): the jobs of each partition in its own calls, every call
 *       written before the first answer is awaited; results back in request order, ids as
 *       {@code <partition>-<id>}.</li>
 *   <li>Sums ({@link #promote}, {@link #reap}, {@link #stats}, {@link #partitionStats}): one call
 *       per partition, all sent before any is awaited, the limit applying per partition.</li>
 *   <li>The dead ({@link #dead}): every partition's oldest, merged by time of death.</li>
 *   <li>Redrive and purge: a limit spent over the partitions in order ({@link #spend}), or named
 *       ids sent to their partitions, one call each ({@link #perPartition}).</li>
 * </ol>
 *
 * <p>Each partition's own calls are its {@link Queue}'s; here is only where they go and how
 * their answers add up. Arguments are checked by the caller.
 */
final class ShardFanOut {
    private final String name;
    private final PartitionSpan span;
    private final ShardRouting routing;

    ShardFanOut(String name, PartitionSpan span, ShardRouting routing) {
        this.name = name;
        this.span = span;
        this.routing = routing;
    }

    /**
     * @param route each request's partition, asked once every request is checked
     * @return one result per request, in order
     * @throws IllegalArgumentException if any request is invalid; then nothing is sent
     */
    List<EnqueueResult> enqueue(List<JobRequest> requests, Function<List<JobRequest>, int[]> route) {
        List<Partition> now = span.queues();
        now.get(0).enqueuer().check(requests);
        int[] target = route.apply(requests);
        Map<Integer, List<Integer>> byPartition = new LinkedHashMap<>();
        for (int i = 0; i < target.length; i++) {
            byPartition.computeIfAbsent(target[i], p -> new ArrayList<>()).add(i);
        }
        // one trace for the whole call, under the sharded queue's name, whatever partitions it spans
        QueueObservations observations = now.get(0).observations();
        QueueObservations.EnqueueTrace trace = observations.enqueueStarting(requests.size());
        try {
            List<EnqueueResult> out = enqueue(requests, now, byPartition, trace.fieldArgs());
            observations.enqueueEnded(trace, out, null);
            return out;
        } catch (RuntimeException | Error e) {
            observations.enqueueEnded(trace, null, e);
            throw e;
        }
    }

    private static List<EnqueueResult> enqueue(List<JobRequest> requests, List<Partition> now,
                                               Map<Integer, List<Integer>> byPartition, byte[][] fieldArgs) {
        Map<Integer, List<EnqueueCall>> calls = new LinkedHashMap<>();
        for (Map.Entry<Integer, List<Integer>> e : byPartition.entrySet()) {
            List<JobRequest> mine = new ArrayList<>(e.getValue().size());
            for (int i : e.getValue()) {
                mine.add(requests.get(i));
            }
            calls.put(e.getKey(), now.get(e.getKey()).enqueuer().send(mine, fieldArgs));
        }
        EnqueueResult[] out = new EnqueueResult[requests.size()];
        for (Map.Entry<Integer, List<Integer>> e : byPartition.entrySet()) {
            Partition p = now.get(e.getKey());
            List<EnqueueResult> got = p.enqueuer().collect(calls.get(e.getKey()));
            for (int j = 0; j < got.size(); j++) {
                out[e.getValue().get(j)] = new EnqueueResult(p.idPrefix() + got.get(j).id(), got.get(j).created());
            }
        }
        return List.of(out);
    }

    /** @return how many were promoted in all */
    long promote(int limit) {
        long total = 0;
        for (List<Object> r : awaitAll(Sweeps::promoteAsync, limit, Scripts.PROMOTE.label())) {
            total += Sweeps.promoted(r);
        }
        return total;
    }

    /** @return the sums over the partitions */
    ReapResult reap(int limit) {
        long back = 0;
        long dead = 0;
        for (List<Object> r : awaitAll(Sweeps::reapAsync, limit, Scripts.REAP.label())) {
            ReapResult one = Sweeps.result(r);
            back += one.returned();
            dead += one.dead();
        }
        return new ReapResult(back, dead);
    }

    /** One sweep of every partition, all sent before any is awaited. */
    private List<List<Object>> awaitAll(BiFunction<Sweeps, Integer, CompletableFuture<List<Object>>> sweep,
                                        int limit, String label) {
        List<CompletableFuture<List<Object>>> calls = new ArrayList<>();
        for (Partition p : span.queues()) {
            calls.add(sweep.apply(p.sweeps(), limit));
        }
        List<List<Object>> out = new ArrayList<>(calls.size());
        for (CompletableFuture<List<Object>> c : calls) {
            out.add(RedisEngine.await(c, label, name));
        }
        return out;
    }

    QueueStats stats() {
        long[] sum = new long[7];
        boolean paused = false;
        for (QueueStats s : partitionStats()) {
            paused |= s.paused();
            sum[0] += s.pending();
            sum[1] += s.active();
            sum[2] += s.delayed();
            sum[3] += s.dead();
            sum[4] += s.completed();
            sum[5] += s.failed();
            sum[6] += s.overdue();
        }
        return new QueueStats(sum[0], sum[1], sum[2], sum[3], sum[4], sum[5], sum[6], paused);
    }

    /** @return each partition's counts, index i for partition i, read in parallel */
    List<QueueStats> partitionStats() {
        List<CompletableFuture<List<Long>>> calls = new ArrayList<>();
        for (Partition p : span.queues()) {
            calls.add(p.reads().statsAsync());
        }
        List<QueueStats> out = new ArrayList<>(calls.size());
        for (CompletableFuture<List<Long>> c : calls) {
            out.add(QueueReads.statsOf(RedisEngine.await(c, Scripts.STATS.label(), name)));
        }
        return out;
    }

    /** @return the {@code limit} oldest dead jobs over all partitions, oldest death first */
    List<DeadJob> dead(int limit) {
        List<DeadJob> all = new ArrayList<>();
        for (Partition p : span.queues()) {
            for (DeadJob d : p.dead(limit)) {
                all.add(new DeadJob(p.idPrefix() + d.id(), d.diedAtMillis(), d.attempts(), d.reason(), d.lastError(),
                        d.payload()));
            }
        }
        all.sort(Comparator.comparingLong(DeadJob::diedAtMillis));
        return all.size() > limit ? List.copyOf(all.subList(0, limit)) : all;
    }

    /** @return the sum of {@code op} over the partitions in order, each given what is left of {@code limit} */
    long spend(int limit, BiFunction<Partition, Integer, Long> op) {
        long done = 0;
        for (Partition p : span.queues()) {
            if (done >= limit) {
                break;
            }
            done += op.apply(p, (int) (limit - done));
        }
        return done;
    }

    /** @return the sum of {@code op} over the partitions the ids name, each given its own ids */
    long perPartition(Collection<String> ids, BiFunction<Partition, List<String>, Long> op) {
        long done = 0;
        for (Map.Entry<Partition, List<String>> e : routing.group(ids).entrySet()) {
            done += op.apply(e.getKey(), e.getValue());
        }
        return done;
    }
}
