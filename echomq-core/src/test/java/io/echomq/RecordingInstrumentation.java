package io.echomq;

import io.echomq.lock.Lease;
import io.echomq.lock.LossReason;
import io.echomq.observe.Instrumentation;
import io.echomq.queue.SettleOutcome;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * An {@link Instrumentation} for tests: every call as one line of text, in arrival order, and the
 * raw numbers where a test checks them. With {@code fail} set, each method records and then throws.
 */
public final class RecordingInstrumentation implements Instrumentation {
    public final List<String> calls = new CopyOnWriteArrayList<>();
    public final List<Long> acquireNanos = new CopyOnWriteArrayList<>();
    public final List<Long> waits = new CopyOnWriteArrayList<>();
    public final List<Long> settleNanos = new CopyOnWriteArrayList<>();
    private final boolean fail;

    public RecordingInstrumentation() {
        this(false);
    }

    public RecordingInstrumentation(boolean fail) {
        this.fail = fail;
    }

    /** @return the calls that start with {@code prefix} */
    public List<String> calls(String prefix) {
        return calls.stream().filter(c -> c.startsWith(prefix)).toList();
    }

    private void record(String call) {
        calls.add(call);
        if (fail) {
            throw new IllegalStateException("instrumentation failure in " + call);
        }
    }

    @Override
    public void lockAcquire(LockMode mode, AcquireOutcome outcome, long nanos) {
        acquireNanos.add(nanos);
        record("acquire " + mode + " " + outcome);
    }

    @Override
    public Object leaseHeld(LockMode mode, Lease lease) {
        record("held " + mode);
        return "handle-" + lease.token();
    }

    @Override
    public void leaseEnded(Object handle) {
        record("ended " + (handle.toString().startsWith("handle-")));
    }

    @Override
    public void leaseLost(LockMode mode, LossReason reason) {
        record("lost " + mode + " " + reason);
    }

    @Override
    public void leaseRenewal(LockMode mode, RenewalResult result) {
        record("renewal " + mode + " " + result);
    }

    @Override
    public void jobsEnqueued(String queue, int count) {
        record("enqueued " + queue + " " + count);
    }

    @Override
    public void jobWaited(String queue, long millis) {
        waits.add(millis);
        record("waited " + queue);
    }

    @Override
    public void jobSettled(String queue, SettleOutcome outcome, long nanos) {
        settleNanos.add(nanos);
        record("settled " + queue + " " + outcome);
    }

    @Override
    public void leasesReaped(String queue, long returned, long dead) {
        record("reaped " + queue + " " + returned + " " + dead);
    }
}
