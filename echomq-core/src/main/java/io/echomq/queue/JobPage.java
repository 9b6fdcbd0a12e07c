package io.echomq.queue;

import java.util.List;
import java.util.Optional;

/**
 * One page of a listing ({@link QueueOperations#list}).
 *
 * @param jobs the jobs, in the state's order; at most the limit asked for. A page of
 *             {@link JobState#DONE} may hold fewer while a cursor still follows: an entry whose
 *             hash expired is skipped
 * @param next the cursor of the next page, or empty when the walk is over. It is opaque text: pass
 *             it back as it is, to a listing of the same queue and state
 */
public record JobPage(List<JobSummary> jobs, Optional<String> next) {
    /** Copies the list. */
    public JobPage {
        jobs = List.copyOf(jobs);
    }
}
