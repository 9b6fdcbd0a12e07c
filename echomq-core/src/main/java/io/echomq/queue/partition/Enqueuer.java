package io.echomq.queue;

import io.echomq.internal.Checks;
import io.echomq.internal.QueueKeys;
import io.echomq.internal.Scripts;
import io.lettuce.core.ScriptOutputType;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * The enqueue of one queue (or one partition): {@code enqueue-5.lua}'s ARGV and reply, and the
 * choice of its compact form {@code enqueue-compact-5.lua} ({@link CompactEnqueue}).
 *
 * <ol>
 *   <li>Checks a bulk before anything is sent ({@link #check}): not empty, every request whole,
 *       every payload within the client's limit.</li>
 *   <li>Encodes it as script calls of at most {@link #CHUNK} jobs, each one atomic script, and
 *       writes them all before any answer is awaited ({@link #send}). A call whose jobs all have
 *       the default options takes the compact form, any other the full one ({@link #full}); both
 *       write the same jobs.</li>
 *   <li>Decodes the replies, in order, into one result per job ({@link #collect}), and reports
 *       the jobs created to the client's instrumentation; then, when the client asks for it,
 *       waits for replicas to acknowledge them ({@link ReplicaWait}).</li>
 *   <li>Around one bulk, tells the instrumentation's trace calls its start and end, and sends the
 *       extra job fields they give after the publish mode ({@link #enqueue}); with none, the
 *       ARGV is what it was.</li>
 * </ol>
 *
 * <p>Sending and collecting are apart so that a {@link ShardedQueue} can write the calls of every
 * partition before it awaits the first.
 */
final class Enqueuer {
    /** Jobs per script call; the calls of one bulk are pipelined. */
    static final int CHUNK = 1000;

    private final int maxPayloadBytes;
    private final QueueWire wire;
    private final String[] keys;
    private final QueueObservations observations;
    private final ReplicaWait replicaWait;

    /** @param replicaWait the wait for replicas after each bulk, or null for none */
    Enqueuer(int maxPayloadBytes, QueueWire wire, QueueObservations observations, ReplicaWait replicaWait) {
        this.maxPayloadBytes = maxPayloadBytes;
        this.wire = wire;
        this.observations = observations;
        this.replicaWait = replicaWait;
        QueueKeys k = wire.keys();
        this.keys = new String[] {k.pending(), k.delayed(), k.seq(), k.wake(), k.waitList()};
    }

    /** @throws IllegalArgumentException unless every request is valid; nothing is sent */
    void check(List<JobRequest> requests) {
        Checks.notNull(requests, "requests");
        if (requests.isEmpty()) {
            throw new IllegalArgumentException("requests must not be empty");
        }
        int limit = maxPayloadBytes;
        for (int i = 0; i < requests.size(); i++) {
            JobRequest r = requests.get(i);
            if (r == null || r.payload() == null || r.options() == null) {
                throw new IllegalArgumentException("request " + i + " must have a payload and options");
            }
            if (r.payload().length > limit) {
                throw new IllegalArgumentException("payload of request " + i + " is " + r.payload().length
                        + " bytes; the limit is " + limit + " bytes");
            }
        }
    }

    /**
     * Sends checked requests, one script call per chunk, all written before any answer is awaited,
     * every created job also storing the extra fields of {@code fieldArgs} ({@link JobFields}). A
     * chunk whose jobs all qualify ({@link CompactEnqueue#qualifies}) takes the compact form.
     */
    List<EnqueueCall> send(List<JobRequest> requests, byte[][] fieldArgs) {
        List<EnqueueCall> calls = new ArrayList<>((requests.size() + CHUNK - 1) / CHUNK);
        for (int from = 0; from < requests.size(); from += CHUNK) {
            List<JobRequest> chunk = requests.subList(from, Math.min(requests.size(), from + CHUNK));
            calls.add(CompactEnqueue.qualifies(chunk) ? compact(chunk, fieldArgs) : full(chunk, fieldArgs));
        }
        return calls;
    }

    /** Sends checked requests, at most {@link #CHUNK}, as one {@code enqueue-compact-5.lua} call; they must qualify. */
    EnqueueCall compact(List<JobRequest> chunk, byte[][] fieldArgs) {
        byte[][] args = CompactEnqueue.args(wire.prefix(), wire.publish(), fieldArgs, chunk);
        return new EnqueueCall(wire.run(Scripts.ENQUEUE_COMPACT, ScriptOutputType.MULTI, keys, args), true);
    }

    /** Sends checked requests, at most {@link #CHUNK}, as one {@code enqueue-5.lua} call, whatever their options. */
    EnqueueCall full(List<JobRequest> chunk, byte[][] fieldArgs) {
        List<byte[]> args = new ArrayList<>(4 + chunk.size() * 11 + fieldArgs.length);
        args.add(wire.prefix());
        args.add(QueueWire.num(chunk.size()));
        for (JobRequest r : chunk) {
            r.options().appendArgs(r.payload(), args);
        }
        args.add(wire.publish());
        Collections.addAll(args, fieldArgs);
        appendGroupArgs(chunk, fieldArgs, args);
        return new EnqueueCall(wire.run(Scripts.ENQUEUE, ScriptOutputType.MULTI, keys, args.toArray(new byte[0][])),
                false);
    }

    /**
     * Awaits the calls of {@link #send}, in order; ids are this queue's own (no partition prefix).
     *
     * @throws EnqueueReplicaException if the client waits for replicas and too few acknowledged
     *     (the jobs exist; the exception holds their results)
     */
    List<EnqueueResult> collect(List<EnqueueCall> calls) {
        List<EnqueueResult> out = new ArrayList<>();
        for (EnqueueCall call : calls) {
            call.results(wire.await(call.reply(), (call.compact() ? Scripts.ENQUEUE_COMPACT : Scripts.ENQUEUE).label()),
                    out);
        }
        observations.enqueued(out);
        if (replicaWait != null) {
            replicaWait.confirm(wire, out);
        }
        return out;
    }

    /** Checks, sends and collects one bulk, told to the instrumentation's trace calls. */
    List<EnqueueResult> enqueue(List<JobRequest> requests) {
        check(requests);
        QueueObservations.EnqueueTrace trace = observations.enqueueStarting(requests.size());
        try {
            List<EnqueueResult> out = collect(send(requests, trace.fieldArgs()));
            observations.enqueueEnded(trace, out, null);
            return out;
        } catch (RuntimeException | Error e) {
            observations.enqueueEnded(trace, null, e);
            throw e;
        }
    }

    /**
     * Appends, after the extra fields' ARGV {@code fieldArgs} (or a {@code 0} for none), one group
     * key per request ({@code ''} for none); nothing when no request has a group.
     */
    static void appendGroupArgs(List<JobRequest> chunk, byte[][] fieldArgs, List<byte[]> args) {
        if (chunk.stream().noneMatch(r -> r.options().group != null)) {
            return;
        }
        if (fieldArgs.length == 0) {
            args.add(QueueWire.num(0));
        }
        for (JobRequest r : chunk) {
            String g = r.options().group;
            args.add(g == null ? new byte[0] : g.getBytes(StandardCharsets.US_ASCII));
        }
    }
}
