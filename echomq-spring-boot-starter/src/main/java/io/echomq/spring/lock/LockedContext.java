package io.echomq.spring.lock;

import io.echomq.lock.Lease;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Optional;

/**
 * The lease of the {@link Locked} method running on this thread, for code that did not receive it
 * as a parameter. Nested {@code @Locked} calls stack: the innermost lease is current.
 *
 * <p>Thread-bound: work handed to another thread does not see it (pass the {@link Lease} instead;
 * a lease may be used from any thread).
 */
public final class LockedContext {
    private static final ThreadLocal<Deque<Lease>> LEASES = ThreadLocal.withInitial(ArrayDeque::new);

    private LockedContext() {
    }

    /** @return the lease of the innermost {@code @Locked} method running on this thread, if any */
    public static Optional<Lease> current() {
        return Optional.ofNullable(LEASES.get().peek());
    }

    /**
     * Throws when the current lease has been lost: a long method calls it between steps, so that
     * it stops even where it does not block interruptibly.
     *
     * @throws LockLostException if the current lease is lost
     * @throws IllegalStateException if no {@code @Locked} method is running on this thread
     */
    public static void checkHeld() {
        Lease lease = current().orElseThrow(() -> new IllegalStateException("no @Locked method is running on this thread"));
        if (lease.isLost()) {
            throw new LockLostException(lease.resource(), lease.lossReason().orElseThrow(), null);
        }
    }

    static void push(Lease lease) {
        LEASES.get().push(lease);
    }

    static void pop() {
        Deque<Lease> leases = LEASES.get();
        leases.pop();
        if (leases.isEmpty()) {
            LEASES.remove();
        }
    }
}
