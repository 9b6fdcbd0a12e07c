package io.echomq.spring.lock;

/** What a {@link Locked} method does when another holder has its lock. */
public enum WhenBusy {
    /**
     * Try once; when the lock is held, do not run the method and return at once: {@code null} for
     * a reference type, {@code Optional.empty()} (and the empty {@code OptionalInt},
     * {@code OptionalLong}, {@code OptionalDouble}) for those types, {@code false} for
     * {@code boolean}, zero for the other primitives, nothing for {@code void}. The choice of a
     * {@code @Scheduled} task that must run on one node only.
     */
    SKIP,
    /** Try once; when the lock is held, throw {@link LockBusyException} without running the method. */
    THROW,
    /**
     * Wait up to {@link Locked#maxWait()} for the holder to release the lock or for its ttl to run
     * out, then run the method; when the wait runs out (or the thread is interrupted while
     * waiting), throw {@link LockBusyException} without running the method.
     */
    WAIT
}
