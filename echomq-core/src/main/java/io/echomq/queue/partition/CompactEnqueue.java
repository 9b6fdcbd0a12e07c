package io.echomq.queue;

import java.util.List;

/**
 * The compact form of an enqueue call, {@code enqueue-compact-5.lua}: the usual bulk, whose jobs
 * all have the default options, sent as its payloads alone.
 *
 * <ol>
 *   <li>Tells whether a call's jobs qualify ({@link #qualifies}): every one with options that
 *       write nothing beyond {@code payload} and {@code created_at}, so that the compact script
 *       writes exactly the hashes {@code enqueue-5.lua} would.</li>
 *   <li>Encodes the call's ARGV in one array of its final size ({@link #args}): 4 + 2k + n values
 *       instead of the full form's 10 per job, which is most of the client's work and of the
 *       bytes sent.</li>
 *   <li>Reads its reply, {@code {first, n}}, into n results with the contiguous ids first..first + n - 1
 *       ({@link #results}).</li>
 * </ol>
 *
 * <p>Apart from {@link Enqueuer} so that the rule of what qualifies, the ARGV and the reply of
 * the compact script stay in one place, next to nothing else.
 */
final class CompactEnqueue {
    private static final byte[] NO_FIELDS = QueueWire.num(0);

    private CompactEnqueue() {
    }

    /**
     * @return whether every request of {@code chunk} has options that write no hash field: no
     *     priority, delay, run-at, attempts, backoff, timeout, idempotency key or group. An option
     *     set explicitly, even to its default value, is written by the full form, so it does not qualify.
     */
    static boolean qualifies(List<JobRequest> chunk) {
        for (JobRequest r : chunk) {
            EnqueueOptions o = r.options();
            if (o != EnqueueOptions.defaults() && (o.priority != 0 || o.delayMs != 0 || o.runAtMs != 0
                    || o.maxAttempts != 0 || o.backoffMs != 0 || o.backoffCapMs != 0 || !o.idempotencyKey.isEmpty()
                    || o.timeoutMs != 0 || o.group != null)) {
                return false;
            }
        }
        return true;
    }

    /**
     * @param fieldArgs the extra fields' ARGV from {@link JobFields.Collector#close}: k, then k pairs,
     *     or nothing for none
     * @return the ARGV of {@code enqueue-compact-5.lua}: prefix, n, publish mode, k, the k pairs, the n payloads
     */
    static byte[][] args(byte[] prefix, byte[] publish, byte[][] fieldArgs, List<JobRequest> chunk) {
        int pairs = fieldArgs.length == 0 ? 0 : fieldArgs.length - 1;
        byte[][] args = new byte[4 + pairs + chunk.size()][];
        args[0] = prefix;
        args[1] = QueueWire.num(chunk.size());
        args[2] = publish;
        args[3] = fieldArgs.length == 0 ? NO_FIELDS : fieldArgs[0];
        if (pairs > 0) {
            System.arraycopy(fieldArgs, 1, args, 4, pairs);
        }
        int at = 4 + pairs;
        for (JobRequest r : chunk) {
            args[at++] = r.payload();
        }
        return args;
    }

    /** Appends the results of a reply {@code {first, n}}: n created jobs, ids first..first + n - 1, in order. */
    static void results(List<Object> reply, List<EnqueueResult> out) {
        long first = (Long) reply.get(0);
        long n = (Long) reply.get(1);
        for (long i = 0; i < n; i++) {
            out.add(new EnqueueResult(Long.toString(first + i), true));
        }
    }
}
