package io.echomq.audit;

import java.time.Instant;

/**
 * One record of the audit trail, as read back.
 *
 * @param id     the record's stream id ({@code <ms>-<seq>}), unique and increasing
 * @param at     when it was recorded, on the server's clock (the id's milliseconds)
 * @param action what was done: an {@link AuditAction}'s wire name, or any name a later version writes
 * @param target what it was done to
 * @param who    who did it, as the recording tool names them (for example {@code emq alice@web-1 pid 4242}
 *               or {@code dashboard from 10.0.0.7})
 * @param detail what it touched, in words (a count and the first ids, the new limit…); may be empty
 */
public record AuditEntry(String id, Instant at, String action, AuditTarget target, String who, String detail) {
}
