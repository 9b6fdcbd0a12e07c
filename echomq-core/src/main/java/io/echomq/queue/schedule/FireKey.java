package io.echomq.queue;

import java.time.Instant;
import java.util.Optional;

/**
 * The idempotency key a schedule gives each job it fires, {@code schedule:<id>:<fire time ms>}:
 * written by {@link ScheduleFirer} and read back by {@link Job#scheduledFor()}. The fire time is
 * the text after the last ':' (a schedule id may itself hold ':'), in epoch ms.
 */
final class FireKey {
    static final String PREFIX = "schedule:";

    private FireKey() {
    }

    /** @return the key of one fire of schedule {@code id} at {@code fireMs} (epoch ms) */
    static String of(String id, long fireMs) {
        return PREFIX + id + ":" + fireMs;
    }

    /**
     * @param key a job's stored idempotency key, or null when it has none
     * @return the fire time the key names, or empty when it is null or not of the schedule form
     */
    static Optional<Instant> fireTime(String key) {
        if (key == null || !key.startsWith(PREFIX)) {
            return Optional.empty();
        }
        int colon = key.lastIndexOf(':');
        if (colon <= PREFIX.length()) {
            return Optional.empty();   // no id between the prefix and the time
        }
        String ms = key.substring(colon + 1);
        if (ms.isEmpty() || ms.length() > 19) {
            return Optional.empty();
        }
        for (int i = 0; i < ms.length(); i++) {
            if (ms.charAt(i) < '0' || ms.charAt(i) > '9') {
                return Optional.empty();
            }
        }
        try {
            return Optional.of(Instant.ofEpochMilli(Long.parseLong(ms)));
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }
}
