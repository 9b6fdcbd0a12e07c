package io.echomq.spring.observe;

import io.echomq.lock.Lease;
import io.echomq.lock.LossReason;
import io.echomq.observe.Instrumentation;
import io.echomq.queue.EnqueueResult;
import io.echomq.queue.Job;
import io.echomq.queue.SettleOutcome;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Several instrumentations as one, for a client builder that takes one.
 *
 * <ol>
 *   <li>Every event goes to every part, in order. A part's failure is caught here, logged at WARN
 *       the first time for that part and method (at DEBUG after), and does not keep the event
 *       from the parts after it: one library's bug must not blind the other.</li>
 *   <li>A call that returns a handle ({@code leaseHeld}, {@code enqueueStarting},
 *       {@code jobStarting}) returns one handle per part, or null when every part returned null; the
 *       matching end goes to each part that gave a non-null handle, with its own handle, as the
 *       hook's contract promises each of them.</li>
 *   <li>{@code handlerReturned} goes to the parts in reverse order: what {@code jobStarting} bound
 *       to the thread (a tracing scope) is undone innermost first.</li>
 *   <li>{@code jobFields} is the union of the parts' fields; each part then sees in
 *       {@code jobStarting} only the fields it asked for.</li>
 * </ol>
 */
final class CombinedInstrumentation implements Instrumentation {
    private static final Logger LOG = LoggerFactory.getLogger(CombinedInstrumentation.class);

    private final Instrumentation[] parts;
    private final List<Set<String>> fieldsOf;
    private final Set<String> fields;
    private final Set<String> warned = ConcurrentHashMap.newKeySet();

    CombinedInstrumentation(List<Instrumentation> parts) {
        this.parts = parts.toArray(Instrumentation[]::new);
        Set<String> all = new LinkedHashSet<>();
        List<Set<String>> each = new ArrayList<>();
        for (Instrumentation p : this.parts) {
            Set<String> f = Set.of();
            try {
                f = Set.copyOf(p.jobFields());
            } catch (RuntimeException e) {
                failed(p, "jobFields", e);
            }
            each.add(f);
            all.addAll(f);
        }
        this.fieldsOf = List.copyOf(each);
        this.fields = Set.copyOf(all);
    }

    private void each(String method, Consumer<Instrumentation> call) {
        for (Instrumentation p : parts) {
            try {
                call.accept(p);
            } catch (RuntimeException e) {
                failed(p, method, e);
            }
        }
    }

    private Object handles(String method, Function<Integer, Object> start) {
        Object[] handles = new Object[parts.length];
        boolean any = false;
        for (int i = 0; i < parts.length; i++) {
            try {
                handles[i] = start.apply(i);
                any |= handles[i] != null;
            } catch (RuntimeException e) {
                failed(parts[i], method, e);
            }
        }
        return any ? handles : null;
    }

    private void ends(String method, Object handle, boolean reverse, BiConsumer<Instrumentation, Object> end) {
        if (!(handle instanceof Object[] handles) || handles.length != parts.length) {
            return;
        }
        for (int k = 0; k < parts.length; k++) {
            int i = reverse ? parts.length - 1 - k : k;
            if (handles[i] != null) {
                try {
                    end.accept(parts[i], handles[i]);
                } catch (RuntimeException e) {
                    failed(parts[i], method, e);
                }
            }
        }
    }

    private void failed(Instrumentation part, String method, RuntimeException e) {
        if (warned.add(System.identityHashCode(part) + "#" + method)) {
            LOG.warn("echomq: instrumentation {} failed in {}; it is ignored: {}", part, method, e.toString());
        } else {
            LOG.debug("echomq: instrumentation {} failed in {}", part, method, e);
        }
    }

    // ------------------------------------------------------------------ locks

    @Override
    public void lockAcquire(LockMode mode, AcquireOutcome outcome, long nanos) {
        each("lockAcquire", p -> p.lockAcquire(mode, outcome, nanos));
    }

    @Override
    public Object leaseHeld(LockMode mode, Lease lease) {
        return handles("leaseHeld", i -> parts[i].leaseHeld(mode, lease));
    }

    @Override
    public void leaseEnded(Object handle) {
        ends("leaseEnded", handle, false, Instrumentation::leaseEnded);
    }

    @Override
    public void leaseLost(LockMode mode, LossReason reason) {
        each("leaseLost", p -> p.leaseLost(mode, reason));
    }

    @Override
    public void leaseRenewal(LockMode mode, RenewalResult result) {
        each("leaseRenewal", p -> p.leaseRenewal(mode, result));
    }

    // ------------------------------------------------------------------ queues

    @Override
    public void jobsEnqueued(String queue, int count) {
        each("jobsEnqueued", p -> p.jobsEnqueued(queue, count));
    }

    @Override
    public void jobWaited(String queue, long millis) {
        each("jobWaited", p -> p.jobWaited(queue, millis));
    }

    @Override
    public void jobSettled(String queue, SettleOutcome outcome, long nanos) {
        each("jobSettled", p -> p.jobSettled(queue, outcome, nanos));
    }

    @Override
    public void jobTimedOut(String queue, SettleOutcome outcome) {
        each("jobTimedOut", p -> p.jobTimedOut(queue, outcome));
    }

    @Override
    public void leasesReaped(String queue, long returned, long dead) {
        each("leasesReaped", p -> p.leasesReaped(queue, returned, dead));
    }

    @Override
    public Object enqueueStarting(String queue, int count, BiConsumer<String, String> fields) {
        return handles("enqueueStarting", i -> parts[i].enqueueStarting(queue, count, fields));
    }

    @Override
    public void enqueueEnded(Object handle, List<EnqueueResult> results, Throwable error) {
        ends("enqueueEnded", handle, false, (p, h) -> p.enqueueEnded(h, results, error));
    }

    @Override
    public Set<String> jobFields() {
        return fields;
    }

    @Override
    public Object jobStarting(String queue, Job job, Map<String, String> fields) {
        return handles("jobStarting", i -> parts[i].jobStarting(queue, job, only(fields, fieldsOf.get(i))));
    }

    private static Map<String, String> only(Map<String, String> fields, Set<String> asked) {
        if (asked.isEmpty()) {
            return Map.of();
        }
        if (asked.containsAll(fields.keySet())) {
            return fields;
        }
        Map<String, String> mine = new HashMap<>();
        fields.forEach((k, v) -> {
            if (asked.contains(k)) {
                mine.put(k, v);
            }
        });
        return mine;
    }

    @Override
    public void handlerReturned(Object handle, Throwable error) {
        ends("handlerReturned", handle, true, (p, h) -> p.handlerReturned(h, error));
    }

    @Override
    public void jobEnded(Object handle, SettleOutcome outcome, Throwable error) {
        ends("jobEnded", handle, false, (p, h) -> p.jobEnded(h, outcome, error));
    }

    @Override
    public String toString() {
        return "CombinedInstrumentation" + List.of(parts);
    }
}
