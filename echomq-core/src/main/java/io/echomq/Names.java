package io.echomq;

import io.echomq.internal.Checks;
import io.echomq.internal.QueueKeys;

/**
 * The naming rules of lock resources, queues and job ids, as the clients apply them, for callers that want to
 * refuse bad input before connecting (the {@code emq} command does, to exit 2 without touching Redis).
 *
 * <p>Every method returns its argument when it is valid and otherwise throws
 * {@link IllegalArgumentException} with a message that names the rule broken. The rules:
 * <ul>
 *   <li>every name: not {@code null} or empty, well-formed UTF-16 (an unpaired surrogate has no UTF-8 form, so
 *       two names would share a key), at most {@link #MAX_BYTES} bytes of UTF-8;</li>
 *   <li>a lock resource: no '{' or '}', because the resource is the hash tag of the lock's keys;</li>
 *   <li>a queue: no trailing {@code #<digits>}, which names a partition of a sharded queue;</li>
 *   <li>a job id: no ':', which would alias another job's keys.</li>
 * </ul>
 * These are the checks the clients make themselves; this class only exposes them.
 */
public final class Names {
    /** Longest name accepted, in UTF-8 bytes. */
    public static final int MAX_BYTES = Checks.MAX_NAME_BYTES;

    private Names() {
    }

    /**
     * @param name any name
     * @param what how to call it in a message, for example {@code "consumer"}
     * @return {@code name}, once known to follow the rules every name follows
     * @throws IllegalArgumentException otherwise, naming {@code what}
     */
    public static String check(String name, String what) {
        return Checks.name(name, what);
    }

    /**
     * @param resource a lock resource name
     * @return {@code resource}, once known to be a valid name without '{' or '}'
     * @throws IllegalArgumentException otherwise
     */
    public static String lockResource(String resource) {
        return Checks.resource(resource);
    }

    /**
     * @param queue a queue name as a user gives it (a sharded queue's logical name, not one partition's)
     * @return {@code queue}, once known to be a valid queue name
     * @throws IllegalArgumentException otherwise
     */
    public static String queue(String queue) {
        QueueKeys.ofUserName(queue);
        return queue;
    }

    /**
     * @param id a job id chosen by a caller
     * @return {@code id}, once known to be a valid name without ':'
     * @throws IllegalArgumentException otherwise
     */
    public static String jobId(String id) {
        return Checks.jobId(id);
    }
}
