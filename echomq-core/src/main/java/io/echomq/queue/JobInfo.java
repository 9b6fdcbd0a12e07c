package io.echomq.queue;

import java.util.Map;

/**
 * Every field of one job hash, as {@link Queue#inspect(String)} reads it, with the documented
 * defaults for fields that are absent (see {@code docs/protocol.md}).
 *
 * @param id     the job id
 * @param state  {@code pending}, {@code active}, {@code delayed}, {@code done} or {@code dead}
 *               (as stored; a foreign client may have written something else)
 * @param attempts attempts granted (the fence)
 * @param fields the raw hash, field name to value bytes (including {@code payload})
 */
public record JobInfo(String id, String state, long attempts, Map<String, byte[]> fields) {
    /** @return the field as UTF-8 text, or null when absent */
    public String field(String name) {
        byte[] v = fields.get(name);
        return v == null ? null : new String(v, java.nio.charset.StandardCharsets.UTF_8);
    }
}
