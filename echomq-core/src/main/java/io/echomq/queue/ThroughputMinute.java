package io.echomq.queue;

import java.time.Instant;

/**
 * A queue's throughput in one minute of the server's clock ({@link ThroughputHistory}): the rise
 * of its counters between that minute's sample and the next minute's.
 *
 * @param minute    the minute's start (a whole minute, server time)
 * @param completed jobs completed in it
 * @param failed    failed attempts in it (each retry is one, as the counter counts them)
 */
public record ThroughputMinute(Instant minute, long completed, long failed) {
}
