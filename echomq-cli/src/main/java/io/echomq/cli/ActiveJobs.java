package io.echomq.cli;

import io.echomq.queue.JobSummary;
import io.echomq.queue.QueueClient;
import io.echomq.queue.WorkerDirectory;
import io.echomq.queue.WorkerInfo;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * Who runs the active jobs {@code emq queue list --state active} prints, and for how long: the
 * queue's live workers' heartbeats, read once per command, joined to each job by its id, and the
 * server's clock, read once, against each job's {@code claimed_at}. Reads no job of its own.
 */
final class ActiveJobs {
    private final Map<String, WorkerInfo> holders;
    private final Instant now;

    private ActiveJobs(Map<String, WorkerInfo> holders, Instant now) {
        this.holders = holders;
        this.now = now;
    }

    /**
     * @return the holders of {@code queue}'s jobs and the server's time now
     * @throws io.echomq.RedisCommandException if Redis fails
     */
    static ActiveJobs read(QueueClient client, String queue) {
        WorkerDirectory directory = WorkerDirectory.of(client);
        return new ActiveJobs(WorkerDirectory.holders(directory.list(queue)), directory.serverTime());
    }

    /** @return {@code jobs} sorted by their last claim, oldest first (a job with no claim time last) */
    static List<JobSummary> longestFirst(List<JobSummary> jobs) {
        return jobs.stream().sorted(Comparator.comparingLong(j -> j.claimedAt().orElse(Long.MAX_VALUE))).toList();
    }

    /** @return {@code \trunning_for=<s>s\tworker=<name>@<id>}, with {@code -} for what is not known */
    String columns(JobSummary j) {
        String running = j.claimedAt().isPresent()
                ? String.format(java.util.Locale.ROOT, "%.1fs",
                        Math.max(0, now.toEpochMilli() - j.claimedAt().getAsLong()) / 1000.0)
                : "-";
        WorkerInfo w = holders.get(j.id());
        return "\trunning_for=" + running + "\tworker=" + (w == null ? "-" : w.label());
    }
}
