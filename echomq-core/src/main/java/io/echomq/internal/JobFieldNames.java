package io.echomq.internal;

import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.function.Consumer;
import java.util.regex.Pattern;

/**
 * Which names an extra job hash field may have (the fields a queue's instrumentation carries
 * from an enqueue to the handler): 1 to 64 of {@code a-z 0-9 _ -}, starting with a letter, and
 * none of the protocol's own fields, so that an extra field can never change how a job is run.
 * Stated once, for the enqueue's collector and for the names a worker reads back.
 */
public final class JobFieldNames {
    /** Most extra fields one enqueue call may add to each job (the queue instrumentation's {@code MAX_JOB_FIELDS}). */
    public static final int MAX_FIELDS = 8;
    /** Most bytes, names and values together, of one job's extra fields ({@code MAX_JOB_FIELD_BYTES}). */
    public static final int MAX_FIELD_BYTES = 2048;

    /**
     * The fields the protocol itself gives a job hash ({@code docs/protocol.md}, "Job hash fields";
     * {@code JobFieldNamesTest} checks the page against this list): never an extra field's name.
     */
    public static final Set<String> RESERVED = Set.of("payload", "attempts", "state", "spent", "max_attempts",
            "priority", "backoff_ms", "backoff_max_ms", "created_at", "claimed_at", "score", "last_error", "dead_reason",
            "finished_at", "progress", "cancel", "idem", "timeout_ms", "result", "group", "errors");

    private static final Pattern NAME = Pattern.compile("[a-z][a-z0-9_-]{0,63}");

    private JobFieldNames() {
    }

    /** @throws IllegalArgumentException unless {@code name} may be an extra field's name */
    public static void check(String name) {
        if (name == null || !NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("an extra job field's name is 1 to 64 of a-z 0-9 _ -, starting with a"
                    + " letter; was " + (name == null ? "null" : "'" + name + "'"));
        }
        if (RESERVED.contains(name)) {
            throw new IllegalArgumentException("'" + name + "' is a field of the protocol, not an extra job field");
        }
    }

    /**
     * @return the names of {@code names} that {@link #check} allows, at most
     *     {@link #MAX_FIELDS}, in order; {@code refused} hears each one left out
     */
    public static Set<String> allowed(Collection<String> names, Consumer<String> refused) {
        Set<String> out = new LinkedHashSet<>();
        for (String n : names) {
            try {
                check(n);
                if (out.size() < MAX_FIELDS) {
                    out.add(n);
                } else {
                    refused.accept(n + " (more than " + MAX_FIELDS + " fields)");
                }
            } catch (IllegalArgumentException e) {
                refused.accept(e.getMessage());
            }
        }
        return out;
    }
}
