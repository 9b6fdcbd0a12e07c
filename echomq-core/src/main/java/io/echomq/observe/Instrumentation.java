package io.echomq.observe;

import io.echomq.lock.LockInstrumentation;
import io.echomq.queue.QueueInstrumentation;

/**
 * The hook through which a metrics or tracing library watches locks and queues: the lock's
 * {@link LockInstrumentation} and the queue's {@link QueueInstrumentation} in one type, so that one
 * implementation is set on every client. Every method has an empty default, so an implementation
 * overrides only what it records. Set one on a client's builder:
 * {@code LockClient.builder().instrumentation(x)}, the same on {@code RedlockClient.builder()},
 * and {@code QueueClient.builder().instrumentation(x)}; each client calls only the methods of its
 * own side. {@code echomq-micrometer} is the ready implementation; {@code docs/observability.md}
 * lists what each call means, and the two interfaces state the guard, the threads and the
 * cardinality every call keeps to.
 *
 * <p>The nested types ({@code Instrumentation.LockMode}, {@code AcquireOutcome},
 * {@code RenewalResult}) and the constants ({@code MAX_JOB_FIELDS}, {@code MAX_JOB_FIELD_BYTES})
 * are those of the two interfaces, reachable through this one.
 *
 * <p>It lives above both sides, not in {@code io.echomq}, so that the lock package compiles
 * without the queue package: the lock's code sees only {@link LockInstrumentation}.
 */
public interface Instrumentation extends LockInstrumentation, QueueInstrumentation {

    /** The implementation that records nothing; what a client holds when none was set. */
    Instrumentation NONE = new Instrumentation() {
        @Override
        public String toString() {
            return "Instrumentation.NONE";
        }
    };
}
