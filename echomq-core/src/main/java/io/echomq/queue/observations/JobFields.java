package io.echomq.queue;

import io.echomq.internal.JobFieldNames;
import io.lettuce.core.KeyValue;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;

/**
 * The extra job hash fields an {@link QueueInstrumentation} carries from an enqueue to the handler (a
 * tracing hook's {@code traceparent} and {@code tracestate}).
 *
 * <ol>
 *   <li>Collects one enqueue call's fields within {@link QueueInstrumentation#MAX_JOB_FIELDS} and
 *       {@link QueueInstrumentation#MAX_JOB_FIELD_BYTES} ({@link Collector}) and encodes them as
 *       {@code enqueue-5.lua}'s trailing ARGV (which {@code enqueue-compact-5.lua} takes before its
 *       payloads, with {@code 0} for none); none gives no ARGV at all.</li>
 *   <li>Reads them back from a claimed job's hash with one {@code HMGET} ({@link #read}).</li>
 * </ol>
 *
 * <p>Which names are allowed is {@link JobFieldNames}'s rule. Apart from the enqueue and the
 * worker so that a client with no such fields sends and reads nothing extra.
 */
final class JobFields {
    /** The trailing ARGV of an enqueue without extra fields: nothing. */
    static final byte[][] NO_ARGS = new byte[0][];

    private JobFields() {
    }

    /**
     * @return the fields {@code names} of the hash of the job {@code localId} that are present, by
     *     one {@code HMGET} on the job's queue (or partition)
     * @throws io.echomq.RedisCommandException if Redis fails
     */
    static Map<String, String> read(QueueWire wire, String localId, String[] names) {
        List<KeyValue<String, byte[]>> got =
                wire.await(wire.async().hmget(wire.keys().job(localId), names).toCompletableFuture(), "HMGET");
        Map<String, String> out = new LinkedHashMap<>();
        for (KeyValue<String, byte[]> kv : got) {
            if (kv.hasValue()) {
                out.put(kv.getKey(), new String(kv.getValue(), StandardCharsets.UTF_8));
            }
        }
        return out;
    }

    /**
     * The fields one {@link QueueInstrumentation#enqueueStarting} call gives. A bad field, or one past a
     * bound, is refused with an {@link IllegalArgumentException} and spoils the whole call: then no
     * extra field is written, so that a job never carries half a context. Valid only until
     * {@link #close}.
     */
    static final class Collector implements BiConsumer<String, String> {
        private final Map<String, byte[]> fields = new LinkedHashMap<>();
        private int bytes;
        private boolean spoiled;
        private boolean closed;

        @Override
        public void accept(String name, String value) {
            if (closed) {
                throw new IllegalStateException("the extra job fields are taken only during enqueueStarting");
            }
            try {
                JobFieldNames.check(name);
                if (value == null) {
                    throw new IllegalArgumentException("extra job field '" + name + "' has a null value");
                }
                byte[] v = value.getBytes(StandardCharsets.UTF_8);
                byte[] before = fields.get(name);
                int now = bytes + v.length + (before == null ? name.length() : -before.length);
                if (before == null && fields.size() == QueueInstrumentation.MAX_JOB_FIELDS) {
                    throw new IllegalArgumentException("more than " + QueueInstrumentation.MAX_JOB_FIELDS
                            + " extra job fields");
                }
                if (now > QueueInstrumentation.MAX_JOB_FIELD_BYTES) {
                    throw new IllegalArgumentException("extra job fields past " + QueueInstrumentation.MAX_JOB_FIELD_BYTES
                            + " bytes (field '" + name + "')");
                }
                fields.put(name, v);
                bytes = now;
            } catch (IllegalArgumentException e) {
                spoiled = true;
                throw e;
            }
        }

        /** @return {@code enqueue-5.lua}'s trailing ARGV: k, then k pairs name, value; none when empty or spoiled */
        byte[][] close() {
            closed = true;
            if (spoiled || fields.isEmpty()) {
                return NO_ARGS;
            }
            List<byte[]> args = new ArrayList<>(1 + 2 * fields.size());
            args.add(QueueWire.num(fields.size()));
            for (Map.Entry<String, byte[]> f : fields.entrySet()) {
                args.add(f.getKey().getBytes(StandardCharsets.US_ASCII));
                args.add(f.getValue());
            }
            return args.toArray(new byte[0][]);
        }
    }
}
