package io.echomq.queue;

import java.time.Instant;
import java.util.Optional;

/**
 * A stored schedule as listed: its definition, its next fire time and its version.
 *
 * @param schedule the definition
 * @param nextFire the next fire time stored for it (the earliest not yet fired; in the past while a
 *     fire is due), or empty when it never fires again
 * @param version  raised by every upsert; a scheduler that read an older version does not move the
 *     next fire time
 */
public record ScheduleInfo(Schedule schedule, Optional<Instant> nextFire, long version) {
}
