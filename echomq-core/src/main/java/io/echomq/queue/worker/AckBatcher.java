package io.echomq.queue;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * The group commit of one worker's completes on one queue (or one partition of a sharded queue).
 *
 * <ol>
 *   <li>A complete that finds no call in flight is sent at once, alone: no added latency when
 *       the worker is quiet.</li>
 *   <li>Completes that arrive while a call is in flight wait; when its answer comes, the next
 *       call carries all of them (at most {@link Claims#MAX_COMPLETES}), each with its own id and
 *       attempt, together with the claims of the handler runs that asked for their next jobs.</li>
 *   <li>Each complete gets its own answer: its own complete code, fenced on the server exactly as a
 *       lone complete is, and at most one claimed job. A failed call fails every complete it
 *       carried, and none of them is settled.</li>
 *   <li>{@link #abandon()} sends nothing more, as for a killed process.</li>
 * </ol>
 *
 * <p>One call is in flight at a time, so the calls of one batcher reach the server in order.
 * Thread-safe.
 */
final class AckBatcher {
    /**
     * One complete's answer: its complete code, the attempts claimed for its run (the run wraps them in
     * the job handle), and how many it asked for (fewer given than asked says the queue had no more to give).
     */
    record Answer(long code, List<Attempt> next, int asked) {
    }

    private record Waiting(Attempt job, int claims, CompletableFuture<Answer> answer) {
    }

    private final JobLine line;
    private final long leaseMs;
    private final ArrayDeque<Waiting> waiting = new ArrayDeque<>();   // guarded by this
    private boolean inFlight;                                          // guarded by this
    private boolean abandoned;                                         // guarded by this

    /** @param leaseMs the lease of the jobs claimed for handlers */
    AckBatcher(JobLine line, long leaseMs) {
        this.line = line;
        this.leaseMs = leaseMs;
    }

    /**
     * Queues the complete of {@code job}, sending it at once when no call is in flight.
     *
     * @param claims how many jobs the call also claims for the complete's run (0 for none)
     * @return completes with the answer, or exceptionally when the call fails
     */
    CompletableFuture<Answer> complete(Attempt job, int claims) {
        Waiting w = new Waiting(job, claims, new CompletableFuture<>());
        List<Waiting> batch;
        synchronized (this) {
            if (abandoned) {
                w.answer().completeExceptionally(abandonedError());
                return w.answer();
            }
            waiting.add(w);
            if (inFlight) {
                return w.answer();
            }
            inFlight = true;
            batch = take();
        }
        send(batch);
        return w.answer();
    }

    /**
     * Sends nothing more, as a killed process would: the completes waiting for the call in flight
     * fail, unsent, and so does every later one. The call in flight is answered as usual.
     */
    void abandon() {
        List<Waiting> dropped;
        synchronized (this) {
            abandoned = true;
            dropped = new ArrayList<>(waiting);
            waiting.clear();
        }
        for (Waiting w : dropped) {
            w.answer().completeExceptionally(abandonedError());
        }
    }

    private static IllegalStateException abandonedError() {
        return new IllegalStateException("the worker was abandoned: this complete was not sent");
    }

    /**
     * @return up to {@link Claims#MAX_COMPLETES} waiting completes, oldest first, whose claims add up to at most
     *     {@link QueueLimits#MAX_CLAIM} (the first one always goes); caller holds the monitor
     */
    private List<Waiting> take() {
        int n = Math.min(waiting.size(), Claims.MAX_COMPLETES);
        List<Waiting> batch = new ArrayList<>(n);
        int claims = 0;
        for (int i = 0; i < n; i++) {
            claims += waiting.peek().claims();
            if (i > 0 && claims > QueueLimits.MAX_CLAIM) {
                break;
            }
            batch.add(waiting.poll());
        }
        return batch;
    }

    private void send(List<Waiting> batch) {
        List<Attempt> jobs = new ArrayList<>(batch.size());
        int claims = 0;
        for (Waiting w : batch) {
            jobs.add(w.job());
            claims += w.claims();
        }
        CompletableFuture<Claimed<Attempt>> call;
        try {
            call = line.claims().settleAsync(jobs, claims, leaseMs, Function.identity());
        } catch (RuntimeException e) {
            call = CompletableFuture.failedFuture(e);
        }
        call.whenComplete((claimed, failure) -> {
            // send what queued up meanwhile before answering, so the server is not left idle
            List<Waiting> next;
            synchronized (this) {
                next = waiting.isEmpty() || abandoned ? null : take();
                inFlight = next != null;
            }
            if (next != null) {
                send(next);
            }
            answer(batch, claimed, failure);
        });
    }

    private static void answer(List<Waiting> batch, Claimed<Attempt> claimed, Throwable failure) {
        if (failure != null) {
            for (Waiting w : batch) {
                w.answer().completeExceptionally(failure);
            }
            return;
        }
        List<Attempt> got = claimed.jobs();
        int given = 0;
        for (int i = 0; i < batch.size(); i++) {
            Waiting w = batch.get(i);
            int n = Math.min(w.claims(), got.size() - given);
            List<Attempt> next = n == 0 ? List.of() : List.copyOf(got.subList(given, given + n));
            given += n;
            w.answer().complete(new Answer(claimed.completeCodes().get(i), next, w.claims()));
        }
    }
}
