package io.echomq.queue;

import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * One script call of an enqueue, sent and not yet awaited: its reply and which form it took, so
 * that it is read the way its script answers.
 *
 * @param reply   the script's reply, as Lettuce gives it
 * @param compact true for {@code enqueue-compact-5.lua} ({@link CompactEnqueue}), false for {@code enqueue-5.lua}
 */
record EnqueueCall(CompletableFuture<List<Object>> reply, boolean compact) {
    /**
     * Appends one result per job of the call, in order.
     *
     * @param answer the value of {@link #reply}: {@code {first, n}} for the compact form,
     *     {@code {id1, created1, id2, created2, ...}} for the full one
     */
    void results(List<Object> answer, List<EnqueueResult> out) {
        if (compact) {
            CompactEnqueue.results(answer, out);
            return;
        }
        for (int i = 0; i < answer.size(); i += 2) {
            out.add(new EnqueueResult(QueueWire.text(answer.get(i)), ((Long) answer.get(i + 1)) == 1L));
        }
    }
}
