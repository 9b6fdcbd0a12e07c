package io.echomq.spring.queue;

import io.echomq.queue.EnqueueResult;
import io.echomq.queue.JobRequest;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Sends jobs after the caller's Spring transaction commits, so a rolled-back transaction leaves no
 * job acting on rows that never existed. Outside a transaction (no
 * {@link TransactionSynchronizationManager#isSynchronizationActive() synchronization active} on the
 * calling thread) it sends at once, as {@link EnqueueDispatcher#immediate()} does.
 *
 * <p>Deferred jobs are sent in the committing thread, in {@code afterCommit}, in the order they
 * were given. A send that fails then cannot undo the commit: it is logged at WARN with the queue
 * and the cause, and the returned future completes exceptionally with that cause. When the
 * transaction does not commit the jobs are dropped and the future is cancelled.
 *
 * <p>Needs spring-tx on the class path; {@link EnqueueDispatcher#afterCommitAvailable(ClassLoader)} tells,
 * without loading this class (whose verification needs spring-tx). Thread-safe.
 */
public final class AfterCommitEnqueueDispatcher implements EnqueueDispatcher {
    private static final Logger LOG = LoggerFactory.getLogger(AfterCommitEnqueueDispatcher.class);
    /** Needs spring-tx: check {@link EnqueueDispatcher#afterCommitAvailable(ClassLoader)} first. */
    public AfterCommitEnqueueDispatcher() {
    }

    /**
     * Sends at once outside a transaction; inside one, registers the send to run after the commit.
     *
     * @return a complete future when sent at once; else a future completed after the commit,
     *     exceptionally if the send fails then, cancelled if the transaction rolls back
     * @throws RuntimeException whatever {@code send} throws when it runs at once
     */
    @Override
    public CompletableFuture<List<EnqueueResult>> dispatch(String queue, List<JobRequest> jobs,
                                                          Function<List<JobRequest>, List<EnqueueResult>> send) {
        if (!TransactionSynchronizationManager.isSynchronizationActive()) {
            return CompletableFuture.completedFuture(send.apply(jobs));
        }
        CompletableFuture<List<EnqueueResult>> result = new CompletableFuture<>();
        TransactionSynchronizationManager.registerSynchronization(new AfterCommit(queue, jobs, send, result));
        return result;
    }

    /** One deferred send, bound to the transaction it was registered in. */
    private record AfterCommit(String queue, List<JobRequest> jobs,
                               Function<List<JobRequest>, List<EnqueueResult>> send,
                               CompletableFuture<List<EnqueueResult>> result) implements TransactionSynchronization {
        @Override
        public void afterCommit() {
            try {
                result.complete(send.apply(jobs));
            } catch (RuntimeException e) {
                // The commit stands whatever happens here: report, never throw into the committer.
                // an EnqueueReplicaException's jobs were enqueued, unacknowledged: its message says so
                LOG.warn("EchoMQ: the send of {} job(s) for queue '{}' after the transaction committed failed: {}",
                        jobs.size(), queue, e.toString(), e);
                result.completeExceptionally(e);
            }
        }

        @Override
        public void afterCompletion(int status) {
            if (status != STATUS_COMMITTED) {
                result.cancel(false);
            }
        }
    }
}
