package io.echomq;

import java.nio.charset.StandardCharsets;

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
 *   <li>a queue: at most {@link #MAX_QUEUE_BYTES} bytes, no '{', '}', whitespace or control character (the
 *       queue is the hash tag of its keys, and its keys stay readable in the CLI), and no trailing
 *       {@code #<digits>}, which names a partition of a sharded queue;</li>
 *   <li>a job id: no ':', which would alias another job's keys.</li>
 * </ul>
 * These are the checks the clients make themselves: this class states each rule once, and the
 * clients call it.
 */
public final class Names {
    /** Longest name accepted, in UTF-8 bytes. */
    public static final int MAX_BYTES = 1024;
    /** Longest queue name accepted (a partition's {@code <queue>#<index>} included), in UTF-8 bytes. */
    public static final int MAX_QUEUE_BYTES = 256;

    private Names() {
    }

    /**
     * @param name any name
     * @param what how to call it in a message, for example {@code "consumer"}
     * @return {@code name}, once known to follow the rules every name follows
     * @throws IllegalArgumentException otherwise, naming {@code what}
     */
    public static String check(String name, String what) {
        if (name == null || name.isEmpty()) {
            throw new IllegalArgumentException(what + " must not be null or empty");
        }
        checkUtf16(name, what);
        if (name.length() <= MAX_BYTES / 3) {
            return name;   // a char is at most 3 bytes of UTF-8 (a surrogate pair 4 for 2), so it fits: no encoding needed
        }
        int bytes = name.getBytes(StandardCharsets.UTF_8).length;
        if (bytes > MAX_BYTES) {
            throw new IllegalArgumentException(what + " is " + bytes + " bytes long; the maximum is "
                    + MAX_BYTES + " bytes");
        }
        return name;
    }

    /**
     * The resource becomes the hash tag of its keys ({@code <ns>{<resource>}:lock}), so it may not
     * hold a brace: a '}' would end the tag early (a leading one empties it, and then the lock and
     * its fence land in different cluster slots), and a '{' makes the key ambiguous to read.
     *
     * @param resource a lock resource name
     * @return {@code resource}, once known to be a valid name without '{' or '}'
     * @throws IllegalArgumentException otherwise
     */
    public static String lockResource(String resource) {
        check(resource, "resource");
        for (int i = 0; i < resource.length(); i++) {
            char c = resource.charAt(i);
            if (c == '{' || c == '}') {
                throw new IllegalArgumentException("resource must not contain '{' or '}' (it is the hash tag of the "
                        + "lock's keys); found '" + c + "' at index " + i);
            }
        }
        return resource;
    }

    /**
     * @param queue a queue name as a user gives it (a sharded queue's logical name, not one partition's)
     * @return {@code queue}, once known to be a valid queue name
     * @throws IllegalArgumentException otherwise
     */
    public static String queue(String queue) {
        queueOrPartition(queue);
        int hash = queue.lastIndexOf('#');
        if (hash >= 0 && hash < queue.length() - 1 && queue.substring(hash + 1).chars().allMatch(Names::isDigit)) {
            throw new IllegalArgumentException("queue name must not end with '#<digits>' (found '"
                    + queue.substring(hash) + "'): that suffix names a partition of a sharded queue");
        }
        return queue;
    }

    /**
     * The rule every name a queue's keys are built with follows: a queue's own, or one partition's
     * of a sharded queue ({@code <queue>#<index>}), which {@link #queue} refuses from a user.
     *
     * @param name a queue's or a partition's name
     * @return {@code name}, once known to be non-null, non-empty, well-formed UTF-16, at most
     *     {@link #MAX_QUEUE_BYTES} bytes of UTF-8 and free of '{', '}', whitespace and control characters
     * @throws IllegalArgumentException otherwise
     */
    public static String queueOrPartition(String name) {
        if (name == null || name.isEmpty()) {
            throw new IllegalArgumentException("queue name must not be null or empty");
        }
        checkUtf16(name, "queue name");
        int bytes = name.getBytes(StandardCharsets.UTF_8).length;
        if (bytes > MAX_QUEUE_BYTES) {
            throw new IllegalArgumentException("queue name is " + bytes + " bytes long; the maximum is "
                    + MAX_QUEUE_BYTES + " bytes");
        }
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (c == '{' || c == '}' || Character.isWhitespace(c) || Character.isISOControl(c)) {
                throw new IllegalArgumentException("queue name must not contain '{', '}', whitespace or control "
                        + "characters; found " + describe(c) + " at index " + i);
            }
        }
        return name;
    }

    /**
     * @param id a job id chosen by a caller
     * @return {@code id}, once known to be a valid name without ':'
     * @throws IllegalArgumentException otherwise
     */
    public static String jobId(String id) {
        check(id, "job id");
        int colon = id.indexOf(':');
        if (colon >= 0) {
            throw new IllegalArgumentException("job id must not contain ':' (it would alias another job's keys); "
                    + "found at index " + colon);
        }
        return id;
    }

    /**
     * Refuses a string holding an unpaired surrogate. It has no UTF-8 form: the encoder writes
     * '?' in its place, so {@code "a\uD800"} and {@code "a?"} would name the same key.
     */
    private static void checkUtf16(String s, String what) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
                i++;
            } else if (Character.isSurrogate(c)) {
                throw new IllegalArgumentException(what + " holds an unpaired surrogate U+"
                        + String.format("%04X", (int) c) + " at index " + i + "; it has no UTF-8 form");
            }
        }
    }

    private static boolean isDigit(int c) {
        return c >= '0' && c <= '9';
    }

    private static String describe(char c) {
        return Character.isISOControl(c) || Character.isWhitespace(c)
                ? String.format("U+%04X", (int) c) : "'" + c + "'";
    }
}
