package io.echomq.queue;

import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Every field of one job hash, as {@link Queue#inspect(String)} reads it, with the documented
 * defaults for fields that are absent (see {@code docs/protocol.md}).
 *
 * <p>Three numbers describe a job's tries, and they are not the same thing:
 * <ul>
 *   <li>{@link #attempts()}: attempts <b>granted</b>, the job's <b>fence</b>. It rises by one with
 *       every claim and never goes down; {@link Job#attempt()} is this number for one claim.</li>
 *   <li>{@link #spent()}: attempts that count against {@link #maxAttempts()}. A graceful return
 *       gives one back and a redrive resets it, so it can be below {@code attempts}.</li>
 *   <li>{@link #maxAttempts()}: how many may be spent before the job goes to dead.</li>
 * </ul>
 *
 * <p>The typed accessors decode the fields as the protocol defines them. A field written by a
 * foreign client in another form is left to {@link #field(String)} and {@link #fields()}; a
 * typed accessor then throws {@link NumberFormatException}.
 *
 * @param id     the job id
 * @param state  {@code pending}, {@code active}, {@code delayed}, {@code done} or {@code dead}
 *               (as stored; a foreign client may have written something else)
 * @param attempts attempts granted (the fence)
 * @param fields the raw hash, field name to value bytes (including {@code payload})
 */
public record JobInfo(String id, String state, long attempts, Map<String, byte[]> fields) {
    /** Most characters of a field's text that {@link #toString()} shows. */
    private static final int SHOWN_CHARS = 80;

    /** @return the field as UTF-8 text, or null when absent */
    public String field(String name) {
        byte[] v = fields.get(name);
        return v == null ? null : new String(v, StandardCharsets.UTF_8);
    }

    /** @return a copy of the payload bytes; empty when the hash has none (a malformed job) */
    public byte[] payload() {
        byte[] v = fields.get("payload");
        return v == null ? new byte[0] : v.clone();
    }

    /** @return the payload decoded as UTF-8; empty when the hash has none */
    public String payloadUtf8() {
        return new String(payload(), StandardCharsets.UTF_8);
    }

    /**
     * @return attempts spent against {@link #maxAttempts()} (0 when absent)
     * @throws NumberFormatException if a foreign client wrote a non-integer
     */
    public long spent() {
        String v = field("spent");
        return v == null ? 0 : Long.parseLong(v);
    }

    /**
     * @return attempts that may be spent before the job goes to dead (3 when absent)
     * @throws NumberFormatException if a foreign client wrote a non-integer
     */
    public long maxAttempts() {
        String v = field("max_attempts");
        return v == null ? 3 : Long.parseLong(v);
    }

    /** @return the last failure's text (a stack trace, a command's stderr, or the lease expiry), if any */
    public Optional<String> lastError() {
        return Optional.ofNullable(field("last_error"));
    }

    /**
     * @return the errors of the job's last failed attempts (at most ten, oldest first, each cut after
     *     2048 bytes), from its {@code errors} field; empty when it has not failed, or when the field
     *     holds something other than what {@code fail-4} writes
     */
    public List<AttemptError> attemptErrors() {
        return AttemptErrorsField.parse(field("errors"));
    }

    /** @return why the job is dead, if it is */
    public Optional<String> deadReason() {
        return Optional.ofNullable(field("dead_reason"));
    }

    /**
     * @return the id, state, attempts and every field as text: UTF-8 when the bytes are valid
     *     UTF-8 without control characters (line breaks shown as {@code \n}), otherwise hex, each
     *     cut to 80 characters; never the {@code [B@…} of a byte array
     */
    @Override
    public String toString() {
        StringBuilder b = new StringBuilder("JobInfo[id=").append(id).append(", state=").append(state)
                .append(", attempts=").append(attempts);
        fields.forEach((name, value) -> b.append(", ").append(name).append('=').append(shown(value)));
        return b.append(']').toString();
    }

    private static String shown(byte[] value) {
        String text = new String(value, StandardCharsets.UTF_8);
        boolean readable = java.util.Arrays.equals(text.getBytes(StandardCharsets.UTF_8), value)
                && text.chars().allMatch(c -> c >= 0x20 || c == '\n' || c == '\t');
        String s = readable ? text.replace("\n", "\\n") : "0x" + HexFormat.of().formatHex(value);
        return s.length() <= SHOWN_CHARS ? s : s.substring(0, SHOWN_CHARS) + "…";
    }
}
