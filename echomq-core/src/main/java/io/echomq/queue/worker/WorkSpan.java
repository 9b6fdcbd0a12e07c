package io.echomq.queue;

import io.echomq.internal.ChannelSignals;
import io.echomq.internal.LockKeys;
import io.echomq.internal.RedisEngine;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The queues a worker claims from (one, or every partition of a sharded queue), with a wake
 * subscription and a maintenance lock key for each.
 */
record WorkSpan(List<Partition> queues, List<ChannelSignals.Waiter> wakes, List<String> maintenanceKeys) {
    /** @return this span plus the queues of {@code all} beyond it, each subscribed to its wake channel */
    WorkSpan with(ChannelSignals signals, List<Partition> all) {
        List<Partition> q = new ArrayList<>(queues);
        List<ChannelSignals.Waiter> w = new ArrayList<>(wakes);
        List<String> m = new ArrayList<>(maintenanceKeys);
        LockKeys lockKeys = new LockKeys(LockKeys.DEFAULT_NAMESPACE);
        for (Partition added : all.subList(queues.size(), all.size())) {
            q.add(added);
            w.add(signals.join(added.keys().wake()));
            m.add(lockKeys.lock(added.keys().maintenanceResource()));
        }
        return new WorkSpan(List.copyOf(q), List.copyOf(w), List.copyOf(m));
    }

    /** Waits for the subscriptions from index {@code from} on. */
    void awaitSubscribed(int from, String queueName) {
        for (int i = from; i < wakes.size(); i++) {
            RedisEngine.await(wakes.get(i).subscribed(), "SUBSCRIBE " + queues.get(i).keys().wake(), queueName);
        }
    }

    /** @return completes on the next wake message of any of the queues */
    CompletableFuture<?> signal() {
        if (wakes.size() == 1) {
            return wakes.get(0).signal();
        }
        CompletableFuture<?>[] all = new CompletableFuture<?>[wakes.size()];
        for (int i = 0; i < all.length; i++) {
            all[i] = wakes.get(i).signal();
        }
        return CompletableFuture.anyOf(all);
    }

    void close() {
        for (ChannelSignals.Waiter w : wakes) {
            w.close();
        }
    }
}
