package io.echomq.dashboard;

import io.echomq.queue.JobState;
import io.echomq.queue.QueueOperations;
import io.echomq.queue.QueueRetention;
import io.echomq.queue.QueueStats;
import java.util.Optional;

/**
 * Why a queue's list of one state is empty when its settings make it so, and how to change that.
 *
 * <p>An empty list may be a quiet queue or a setting: a queue that keeps no completed jobs (no
 * stored retention, or {@code done-max 0}), keeps no dead jobs ({@code dead-max 0}), is paused or
 * held by its flow control. The page says which, with the command that changes it, so that an
 * operator does not read "no jobs" as "nothing happened". It answers only from the settings and
 * counts read for the page; a list empty for no setting gets no reason.
 */
final class EmptyReason {
    private EmptyReason() {
    }

    /**
     * @param q the queue
     * @param s its counts, read for the page
     * @param state the empty list's state
     * @return the reason, as text, or empty when no setting explains it
     */
    static Optional<String> of(QueueOperations q, QueueStats s, JobState state) {
        return switch (state) {
            case DONE -> done(q.name(), q.retention(), s);
            case DEAD -> q.retention().filter(r -> r.deadMax() == 0).map(r -> "This queue keeps no dead jobs "
                    + "(retention dead-max 0): a job that runs out of attempts is deleted. Set emq queue retention "
                    + q.name() + " --dead-max <n> to keep them.");
            case ACTIVE -> s.paused() && s.pending() + s.delayed() > 0
                    ? Optional.of("The queue is paused: no job is claimed until it is resumed (emq queue resume "
                            + q.name() + ", or the Resume button above).") : Optional.empty();
            default -> Optional.empty();
        };
    }

    private static Optional<String> done(String queue, Optional<QueueRetention> retention, QueueStats s) {
        if (retention.isEmpty()) {
            return Optional.of("This queue keeps no completed jobs: it stores no retention settings, so a job's hash "
                    + "is deleted when it completes" + (s.completed() > 0 ? " (" + Html.count(s.completed())
                    + " completed so far)" : "") + ". Set emq queue retention " + queue + " --done-max <n> --done-age <ms> "
                    + "to keep and list them.");
        }
        if (retention.get().doneMax() == 0 || retention.get().doneAge().isZero()) {
            return Optional.of("This queue keeps no completed jobs (retention " + (retention.get().doneMax() == 0
                    ? "done-max 0" : "done-age 0") + "). Set emq queue retention " + queue + " --done-max <n> "
                    + "--done-age <ms> to keep them.");
        }
        return Optional.empty();
    }
}
