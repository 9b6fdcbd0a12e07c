package io.echomq.internal;

/**
 * Key naming for locks. The resource is the hash tag, so a lock, its fence key and its
 * release channel always share one cluster slot: {@code <ns>{<resource>}:lock},
 * {@code <ns>{<resource>}:fence}, {@code <ns>{<resource>}:released}, and the mark that someone
 * may be waiting, {@code <ns>{<resource>}:waiting}.
 *
 * <p>No two resources can produce the same key: the suffixes differ in their last characters, and
 * the part before the suffix is the namespace plus the resource verbatim.
 */
public final class LockKeys {
    /** The namespace used when none is configured. */
    public static final String DEFAULT_NAMESPACE = "emq:lock:";

    private final String namespace;

    /**
     * @param namespace prefix of every key; may be empty, must not contain '{' or '}'
     * @throws IllegalArgumentException if the namespace is null or contains a brace, which would
     *     move the hash tag off the resource
     */
    public LockKeys(String namespace) {
        if (namespace == null) {
            throw new IllegalArgumentException("namespace must not be null (use \"\" for none)");
        }
        if (namespace.indexOf('{') >= 0 || namespace.indexOf('}') >= 0) {
            throw new IllegalArgumentException("namespace '" + namespace
                    + "' must not contain '{' or '}': the hash tag belongs to the resource");
        }
        this.namespace = namespace;
    }

    /** @return the namespace prefix */
    public String namespace() {
        return namespace;
    }

    /** @return {@code <ns>{<resource>}:lock}, the STRING holding the holder's token */
    public String lock(String resource) {
        return namespace + '{' + resource + "}:lock";
    }

    /** @return {@code <ns>{<resource>}:fence}, the STRING holding the last fence granted, with an expiry */
    public String fence(String resource) {
        return namespace + '{' + resource + "}:fence";
    }

    /** @return {@code <ns>{<resource>}:released}, the pub/sub channel woken on release */
    public String channel(String resource) {
        return namespace + '{' + resource + "}:released";
    }

    /**
     * @return {@code <ns>{<resource>}:waiting}, the STRING that exists while a waiting acquire may
     *     still be waiting; a release publishes only while it exists (or its caller has waiters)
     */
    public String waiting(String resource) {
        return namespace + '{' + resource + "}:waiting";
    }
}
