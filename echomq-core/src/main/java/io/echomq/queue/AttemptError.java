package io.echomq.queue;

import java.time.Instant;
import java.util.Objects;

/**
 * One failed attempt's error as its job keeps it ({@link JobInfo#attemptErrors()}): the job's
 * hash keeps the last ten attempts' errors, each cut after 2048 bytes ({@code docs/protocol.md},
 * "Attempt errors"); {@link JobInfo#lastError()} keeps the last one whole.
 *
 * @param attempt the attempt that failed (the job's fence when it was granted)
 * @param at      when it failed, server time
 * @param error   the error text as kept: cut after 2048 bytes it ends in {@code " (truncated)"}
 */
public record AttemptError(long attempt, Instant at, String error) {
    /**
     * @throws NullPointerException if at or error is null
     */
    public AttemptError {
        Objects.requireNonNull(at, "at");
        Objects.requireNonNull(error, "error");
    }
}
