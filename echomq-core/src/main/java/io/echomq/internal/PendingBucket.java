package io.echomq.internal;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The value a pending bucket holds for a job that waits with no hash of its own: the LIST layout's
 * jobs with the default options keep their payload in the field {@code <id>} of the HASH
 * {@code emq:{<q>}:pb:<id / 128>} ({@link QueueKeys#bucket}) until their first claim writes their hash
 * ({@code includes/buckets.lua}, docs/protocol.md "Pending buckets"). The value is
 * {@code <created_at>:<payload>}, created_at in server milliseconds.
 *
 * <p>A reader that looks for a job in both places sends the bucket's read <em>before</em> the
 * hash's, pipelined on one connection. A claim moves the job from its bucket to its hash in one
 * script, so a bucket read first and a hash read second see it in at least one of the two; the
 * other order can fall between them and find it in neither. The hash, when present, is the
 * newer and wins.
 */
public final class PendingBucket {
    /** The ids one bucket holds: ids {@code 128n .. 128n + 127} share bucket {@code n}. */
    public static final int IDS = 128;

    private PendingBucket() {
    }

    /**
     * @return the fields the job's hash would hold while it waits: {@code payload} and {@code created_at};
     *     only {@code payload}, the whole value, when the value is not {@code <created_at>:<payload>} (a
     *     claim sends such a job to dead with that payload)
     * @throws NullPointerException if {@code value} is null
     */
    public static Map<String, byte[]> fields(byte[] value) {
        Map<String, byte[]> out = new LinkedHashMap<>();
        int colon = -1;
        for (int i = 0; i < value.length && i <= 15; i++) {
            if (value[i] == ':') {
                colon = i;
                break;
            }
            if (value[i] < '0' || value[i] > '9') {
                break;
            }
        }
        if (colon <= 0) {
            out.put("payload", value);
            return out;
        }
        out.put("payload", Arrays.copyOfRange(value, colon + 1, value.length));
        out.put("created_at", Arrays.copyOfRange(value, 0, colon));
        return out;
    }
}
