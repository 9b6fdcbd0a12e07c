package io.echomq.queue;

/**
 * One consistent snapshot of a queue's counts, read in one script.
 *
 * @param pending   jobs ready to be claimed: the wait LIST (priority 0) and the pending ZSET together
 * @param active    jobs under a lease (including overdue ones)
 * @param delayed   jobs waiting for a delay, a run-at time or a retry backoff
 * @param dead      jobs in the dead set
 * @param completed completions accepted since the queue was created
 * @param failed    failures recorded since the queue was created (each retry counts)
 * @param overdue   active jobs whose lease deadline has passed, which the next reap returns
 * @param paused    whether claims are paused ({@link QueueOperations#pause()}); for a sharded queue,
 *                  whether any partition is
 */
public record QueueStats(long pending, long active, long delayed, long dead, long completed, long failed,
                         long overdue, boolean paused) {
    /** The counts of a queue that is not paused. */
    public QueueStats(long pending, long active, long delayed, long dead, long completed, long failed, long overdue) {
        this(pending, active, delayed, dead, completed, failed, overdue, false);
    }

    /** @return true when nothing is pending, active or delayed */
    public boolean drained() {
        return pending == 0 && active == 0 && delayed == 0;
    }
}
