package io.echomq.queue;

import java.time.Duration;
import java.time.Instant;

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
 */
public record WorkerInfo(String id, String host, long pid, String name, int concurrency, int inHand,
                         Instant startedAt, Instant lastBeat, Instant expiresAt, Duration sinceBeat) {
}
