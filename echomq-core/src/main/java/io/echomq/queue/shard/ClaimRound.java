package io.echomq.queue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The claims of a {@link ShardedQueue}: one round over its partitions.
 *
 * <ol>
 *   <li>Asks the partitions in turn, each for what is still wanted, until {@code n} jobs are
 *       claimed or every partition has been asked once; each ask is one claim of that
 *       partition's own ({@link Claims}).</li>
 *   <li>Starts each round one partition further on, from a random start per instance, so that no
 *       partition starves: each is asked first at least once in every K rounds.</li>
 *   <li>Adds up the answers: the jobs, the earliest due time, and the malformed jobs moved to
 *       dead over all partitions.</li>
 * </ol>
 *
 * <p>Thread-safe; rounds may run at once (each keeps its own tally).
 */
final class ClaimRound {
    private final PartitionSpan span;
    private final AtomicInteger start = new AtomicInteger(ThreadLocalRandom.current().nextInt(1 << 20));

    ClaimRound(PartitionSpan span) {
        this.span = span;
    }

    /** One round of up to {@code n} jobs, each under a lease of {@code leaseMs}. */
    CompletableFuture<Claimed<Job>> claimAsync(int n, long leaseMs) {
        List<Partition> now = span.queues();
        int first = Math.floorMod(start.getAndIncrement(), now.size());
        CompletableFuture<Tally> chain = CompletableFuture.completedFuture(new Tally(n));
        for (int i = 0; i < now.size(); i++) {
            Partition p = now.get((first + i) % now.size());
            chain = chain.thenCompose(t -> t.wanted() == 0 ? CompletableFuture.completedFuture(t)
                    : p.claimAsync(t.wanted(), leaseMs).thenApply(t::add));
        }
        return chain.thenApply(Tally::result);
    }

    /** The partial result of one round. */
    private static final class Tally {
        private final int n;
        private final List<Job> jobs = new ArrayList<>();
        private long nextDueMs = -1;
        private long dead;

        Tally(int n) {
            this.n = n;
        }

        int wanted() {
            return n - jobs.size();
        }

        Tally add(Claimed<Job> c) {
            jobs.addAll(c.jobs());
            dead += c.deadCount();
            if (c.nextDueMs() >= 0 && (nextDueMs < 0 || c.nextDueMs() < nextDueMs)) {
                nextDueMs = c.nextDueMs();
            } else if (c.capped() && nextDueMs == -1) {
                nextDueMs = -3;   // a capped partition: this worker's own settles wake it
            }
            return this;
        }

        Claimed<Job> result() {
            return new Claimed<>(List.of(), nextDueMs, dead, jobs);
        }
    }
}
