package io.echomq.spring.queue;

import io.echomq.queue.EnqueueResult;
import io.echomq.queue.JobRequest;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * When {@link EchoMQTemplate} sends the jobs it was given: at once, or later, for example after the
 * caller's transaction commits ({@link AfterCommitEnqueueDispatcher}, the starter's default when
 * spring-tx is on the class path). The template has already encoded and checked the jobs; a
 * dispatcher only decides when {@code send} runs, and an application's own bean of this type
 * replaces the starter's (one that stores the jobs in the caller's own transaction and relays them
 * later would be one).
 */
@FunctionalInterface
public interface EnqueueDispatcher {
    /**
     * Runs {@code send} at once or arranges for it to run later.
     *
     * @param queue the queue the jobs go to, for logs
     * @param jobs the encoded jobs, not empty, in order
     * @param send enqueues the jobs it is given and returns one result per job, in order
     * @return a future of {@code send}'s results: already complete when {@code send} ran at once;
     *     else completed when it runs, exceptionally with its exception if it fails, and cancelled if
     *     it never will (a rolled-back transaction)
     * @throws RuntimeException whatever {@code send} throws when it runs at once (nothing is deferred then)
     */
    CompletableFuture<List<EnqueueResult>> dispatch(String queue, List<JobRequest> jobs,
                                                   Function<List<JobRequest>, List<EnqueueResult>> send);

    /**
     * Whether spring-tx is on the class path, so that an {@link AfterCommitEnqueueDispatcher} can be made. Asked
     * here, by the class's name, because calling into that class would load and verify it, and its verification
     * needs spring-tx's classes: an application without spring-tx would fail at startup.
     *
     * @param loader the class loader the application's classes come from, or null for this interface's
     * @return whether spring-tx's transaction synchronization is there
     */
    static boolean afterCommitAvailable(ClassLoader loader) {
        return org.springframework.util.ClassUtils.isPresent(
                "org.springframework.transaction.support.TransactionSynchronizationManager", loader);
    }

    /** @return a dispatcher that always sends at once, in the calling thread */
    static EnqueueDispatcher immediate() {
        return (queue, jobs, send) -> CompletableFuture.completedFuture(send.apply(jobs));
    }
}
