package io.echomq;

import java.util.List;

/**
 * The ACL user of a client's connection may not run some of the commands the client's scripts run.
 * A client checks this once, when it is built, and refuses to start: otherwise a script would stop at
 * the first refused command and keep what it wrote before it (Redis checks a script's commands one
 * call at a time), for example a job counted as pending that no claim can take.
 *
 * <p>The message names each missing command and the rule that grants it ({@code +sadd}); see
 * {@code docs/security.md} for the whole ACL line.
 */
public class MissingPermissionsException extends RedisCommandException {
    private static final long serialVersionUID = 1L;

    private final List<String> missing;

    /**
     * @param command the check that found the commands missing, for example {@code "EVALSHA permissions-1"}
     * @param keyPattern the key and channel prefix the check ran under, for example {@code "emq:"}
     * @param missing the commands refused, lowercase, never empty
     * @throws IllegalArgumentException if {@code missing} is empty
     */
    public MissingPermissionsException(String command, String keyPattern, List<String> missing) {
        super(command, null, new IllegalStateException(describe(keyPattern, missing)));
        this.missing = List.copyOf(missing);
    }

    /** @return the commands the ACL user may not run, lowercase, in name order */
    public List<String> missingCommands() {
        return missing;
    }

    private static String describe(String keyPattern, List<String> missing) {
        if (missing.isEmpty()) {
            throw new IllegalArgumentException("no missing command");
        }
        StringBuilder grant = new StringBuilder();
        for (String c : missing) {
            grant.append(grant.length() == 0 ? "" : " ").append('+').append(c);
        }
        return "NOPERM the ACL user may not run " + String.join(", ", missing) + " on keys and channels under '"
                + keyPattern + "', which EchoMQ's scripts run; nothing was written. Grant " + grant
                + " (and ~" + keyPattern + "* &" + keyPattern + "*), see docs/security.md";
    }
}
