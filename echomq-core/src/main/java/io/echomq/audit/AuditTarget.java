package io.echomq.audit;

import io.echomq.Names;
import java.util.Objects;

/**
 * What an audited action was done to: a queue (a sharded queue by its own name) or a lock (by its
 * resource name).
 *
 * @param kind what sort of thing it is
 * @param name its name, checked by the same rule as the clients' ({@link Names#queue} for a queue,
 *             {@link Names#lockResource} for a lock)
 */
public record AuditTarget(Kind kind, String name) {
    /** The sorts of things an action is recorded against; each is the field name of a record on the wire. */
    public enum Kind {
        /** A queue: the record's field {@code queue}. */
        QUEUE("queue"),
        /** A lock: the record's field {@code lock}. */
        LOCK("lock");

        private final String field;

        Kind(String field) {
            this.field = field;
        }

        /** @return the record's field that names a target of this kind: {@code queue} or {@code lock} */
        public String field() {
            return field;
        }
    }

    /**
     * @throws NullPointerException     if kind is null
     * @throws IllegalArgumentException if the name is not a valid name of that kind
     */
    public AuditTarget {
        Objects.requireNonNull(kind, "kind");
        if (kind == Kind.QUEUE) {
            Names.queue(name);
        } else {
            Names.lockResource(name);
        }
    }

    /**
     * @param name a queue's name (a sharded queue's own, not a partition's)
     * @return that queue as a target
     * @throws IllegalArgumentException if the name is not a valid queue name
     */
    public static AuditTarget queue(String name) {
        return new AuditTarget(Kind.QUEUE, name);
    }

    /**
     * @param resource a lock's resource name
     * @return that lock as a target
     * @throws IllegalArgumentException if the name is not a valid resource name
     */
    public static AuditTarget lock(String resource) {
        return new AuditTarget(Kind.LOCK, resource);
    }

    /** @return {@code queue <name>} or {@code lock <name>} */
    @Override
    public String toString() {
        return kind.field + " " + name;
    }
}
