package io.echomq.queue;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * One live worker of a queue, as its last heartbeat recorded it ({@link WorkerDirectory}). Times
 * are the server's. A field a foreign client left out or wrote in another form reads as empty
 * text, 0, or the epoch.
 *
 * @param id          the worker's id in the records: {@code <host>-<pid>-<n>} for a Java worker
 * @param host        the machine's name
 * @param pid         the process id
 * @param name        the worker's name in its process (its log lines and threads)
 * @param concurrency its handlers at most
 * @param inHand      the jobs it ran at its last beat
 * @param startedAt   its first beat on this queue
 * @param lastBeat    its last beat
 * @param expiresAt   when its record expires without another beat
 * @param sinceBeat   how long ago the last beat was, by the server's clock when it was read
 * @param jobIds      the ids of the jobs it held at its last beat, sorted, at most 100 of its {@code inHand}
 *     (a job claimed since then is listed at its next beat); unmodifiable
 * @param paused      whether its last claim before that beat found the queue paused: it claims nothing
 */
public record WorkerInfo(String id, String host, long pid, String name, int concurrency, int inHand,
                         Instant startedAt, Instant lastBeat, Instant expiresAt, Duration sinceBeat,
                         List<String> jobIds, boolean paused) {
    /**
     * @throws NullPointerException if jobIds is null
     */
    public WorkerInfo {
        jobIds = List.copyOf(Objects.requireNonNull(jobIds, "jobIds"));
    }

    /**
     * A record with no job ids listed and not paused, as a heartbeat without those fields reads.
     */
    public WorkerInfo(String id, String host, long pid, String name, int concurrency, int inHand,
                      Instant startedAt, Instant lastBeat, Instant expiresAt, Duration sinceBeat) {
        this(id, host, pid, name, concurrency, inHand, startedAt, lastBeat, expiresAt, sinceBeat, List.of(), false);
    }

    /**
     * @return the worker's unique name for people: {@code <name>@<id>}, for example
     *     {@code billing@web-1-4242-1}: two workers of one name read apart by their host, pid and count
     */
    public String label() {
        return name + "@" + id;
    }

    /**
     * @param jobId a job's id, as the queue (a sharded queue: its logical id) names it
     * @return whether the worker listed that job at its last beat
     */
    public boolean holds(String jobId) {
        return jobIds.contains(jobId);
    }
}
