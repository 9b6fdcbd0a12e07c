package io.echomq.lock;

import io.echomq.RedisCommandException;

/**
 * A {@link RedlockClient} operation could not get an answer from a quorum of masters (N/2+1), so
 * it cannot say what holds: too many masters were down, timed out or failed.
 *
 * <ul>
 *   <li>For an acquire, nothing is held: whatever was granted on the masters that answered was
 *       released again before this was thrown, and a grant on a master that did not answer expires
 *       by its ttl.</li>
 *   <li>For a renewal, the lease keeps its old local deadline and is not lost; it may be renewed
 *       again (the watchdog does) until that deadline passes.</li>
 *   <li>For a release, the keys on the masters that did not answer expire by their ttl.</li>
 * </ul>
 *
 * <p>A {@link RedisCommandException}, so code that handles Redis failures handles this one; the
 * {@link #command()} is {@code "REDLOCK acquire"}, {@code "REDLOCK renew"}, {@code "REDLOCK release"}
 * or {@code "REDLOCK inspect"}, and the cause is the first master's failure.
 */
public final class RedlockQuorumException extends RedisCommandException {
    private static final long serialVersionUID = 1L;

    private final int answered;
    private final int quorum;
    private final int masters;
    private final String failures;

    /**
     * @param command the operation, for example {@code "REDLOCK acquire"}
     * @param resource the lock resource
     * @param answered how many masters answered
     * @param quorum how many answers were needed
     * @param masters how many masters there are
     * @param failures each master that did not answer, and why, for the message
     * @param cause the first master's failure
     */
    RedlockQuorumException(String command, String resource, int answered, int quorum, int masters,
                           String failures, Throwable cause) {
        super(command, resource, cause);
        this.answered = answered;
        this.quorum = quorum;
        this.masters = masters;
        this.failures = failures;
    }

    /** @return how many masters answered */
    public int answered() {
        return answered;
    }

    /** @return how many answers a quorum needs: N/2+1 */
    public int quorum() {
        return quorum;
    }

    /** @return how many masters the client has (N) */
    public int masters() {
        return masters;
    }

    /** @return for example {@code "Redlock acquire of 'orders' failed: only 2 of 5 masters answered, a quorum is 3; …"} */
    @Override
    public String getMessage() {
        return "Redlock " + command().substring("REDLOCK ".length()) + " of '" + resource() + "' failed: only "
                + answered + " of " + masters + " masters answered, a quorum is " + quorum + "; failed: " + failures;
    }
}
