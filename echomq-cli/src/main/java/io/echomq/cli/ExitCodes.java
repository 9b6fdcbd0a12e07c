package io.echomq.cli;

/**
 * The exit codes of every {@code emq} command, and the usage-help footer that lists them.
 */
final class ExitCodes {
    /** Success, or an answer: RELEASED, NOT_OWNER, EXPIRED, RENEWED, held, free, a job id, REMOVED. */
    static final int OK = 0;
    /**
     * The lock is held ({@code nil}), a {@code --wait} ran out, a job could not be removed
     * ({@code LOCKED}, {@code MISSING}) or inspected (no such job), or a demo act failed.
     */
    static final int NO = 1;
    /** Bad input: a missing or invalid option or argument, a malformed URL. */
    static final int BAD_INPUT = 2;
    /** Redis failed: unreachable, a command or script error, or the server did not start. */
    static final int REDIS_FAILURE = 3;
    /** A bug: an exception nobody expected; the stack trace is printed. */
    static final int INTERNAL_ERROR = 4;

    /** Heading of the footer. */
    static final String FOOTER_HEADING = "%nExit codes:%n";
    /** The footer listing every exit code. */
    static final String[] FOOTER = {
        "  0  success, or an answer (RELEASED, NOT_OWNER, EXPIRED, RENEWED, held, free,",
        "     REMOVED, an enqueued job's id); worker: it stopped cleanly",
        "  1  the lock is held: acquire printed nil (also when --wait ran out);",
        "     queue remove printed LOCKED or MISSING; queue inspect found no such job;",
        "     demo: an act did not behave as the seed says",
        "  2  bad input: a missing or invalid option or argument, a malformed URL",
        "  3  Redis failure: unreachable, a command failed, or redis-server did not start",
        "  4  unexpected internal error (a bug; the stack trace is printed)",
    };

    private ExitCodes() {
    }
}
