package io.echomq.queue;

import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Where a worker's dispatcher claims from: the fetch strategy, as Sidekiq's fetch is one. One
 * implementation works a plain queue, the other every partition of a sharded queue;
 * the worker's parts only ever see this interface, so none of them asks which kind it works.
 *
 * <ol>
 *   <li>Claims a round of up to {@code n} jobs in claim order ({@link #claimAsync}).</li>
 *   <li>Names the queues the worker spans ({@link #queues()}): their wake channels, maintenance
 *       locks and group commits. The list only grows.</li>
 *   <li>Learns of partitions other clients added ({@link #refreshAsync()}), at each maintenance
 *       run.</li>
 *   <li>Says whether a handler may claim its next job with its complete ({@link #chainsClaims()}):
 *       a chain stays on the job's own queue, which starves the other partitions of a sharded
 *       queue.</li>
 * </ol>
 *
 * <p>Built by {@link #of(Partition)} and {@link #of(String, PartitionSpan, ClaimRound)}, which only
 * delegate: the claim itself stays in the queue's own scripts. Implementations are thread-safe.
 */
interface ClaimSource {
    /** @return the name users know the queue by (a sharded queue's own name) */
    String name();

    /**
     * One claim round of up to {@code n} jobs, each under a lease of {@code leaseMs}: one claim
     * script per queue asked, as before this interface existed.
     *
     * @return the claimed jobs, the earliest due time and the malformed jobs moved to dead
     */
    CompletableFuture<Claimed<Job>> claimAsync(int n, long leaseMs);

    /** @return the queues (or partitions) claims span now, in a stable order that only grows */
    List<Partition> queues();

    /** @return completes when the spanned queues are known afresh; fails if that read fails */
    CompletableFuture<?> refreshAsync();

    /** @return whether a handler's complete may also claim its next job, on the job's own queue */
    boolean chainsClaims();

    /** @return the claims of one plain queue */
    static ClaimSource of(Partition queue) {
        List<Partition> one = List.of(queue);
        CompletableFuture<Void> known = CompletableFuture.completedFuture(null);
        return new ClaimSource() {
            @Override
            public String name() {
                return queue.name();
            }

            @Override
            public CompletableFuture<Claimed<Job>> claimAsync(int n, long leaseMs) {
                return queue.claimAsync(n, leaseMs);
            }

            @Override
            public List<Partition> queues() {
                return one;
            }

            @Override
            public CompletableFuture<?> refreshAsync() {
                return known;
            }

            @Override
            public boolean chainsClaims() {
                return true;
            }

            @Override
            public String toString() {
                return queue.toString();
            }
        };
    }

    /**
     * @return the claims of a sharded queue: each round asks the partitions in turn, one partition
     *     further on each round, until it has what it wants
     */
    static ClaimSource of(String name, PartitionSpan span, ClaimRound round) {
        return new ClaimSource() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public CompletableFuture<Claimed<Job>> claimAsync(int n, long leaseMs) {
                return round.claimAsync(n, leaseMs);
            }

            @Override
            public List<Partition> queues() {
                return span.queues();
            }

            @Override
            public CompletableFuture<?> refreshAsync() {
                return span.refreshAsync();
            }

            @Override
            public boolean chainsClaims() {
                return false;
            }

            @Override
            public String toString() {
                return "ShardedQueue[" + name + "]";
            }
        };
    }
}
