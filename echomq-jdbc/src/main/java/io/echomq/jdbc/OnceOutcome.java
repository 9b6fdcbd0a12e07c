package io.echomq.jdbc;

/** What an {@link OnceByJobId#claim} found. */
public enum OnceOutcome {
    /** This call recorded the job id: the caller performs the effect. */
    FIRST,
    /** The job id was already recorded (by an earlier attempt, or a concurrent one): the caller skips the effect. */
    ALREADY_DONE
}
