package io.echomq.queue;

import java.nio.charset.StandardCharsets;

/**
 * One entry of the dead set, as {@link Queue#dead(int)} lists it.
 *
 * @param id          the job id
 * @param diedAtMillis when it died, in server epoch ms
 * @param attempts    attempts granted over its life (the fence)
 * @param reason      why it is dead, for example {@code failed on attempt 3 of 3}, or a
 *                    malformed-hash reason
 * @param lastError   the last error recorded (a handler's stack trace, or a lease expiry), or empty
 * @param payload     the payload, or null when the hash is missing or malformed
 */
public record DeadJob(String id, long diedAtMillis, long attempts, String reason, String lastError, byte[] payload) {
    /** @return the payload as UTF-8 text, or empty when there is none */
    public String payloadUtf8() {
        return payload == null ? "" : new String(payload, StandardCharsets.UTF_8);
    }
}
