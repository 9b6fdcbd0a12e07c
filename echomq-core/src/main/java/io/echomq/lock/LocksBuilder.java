package io.echomq.lock;

import io.echomq.MonotonicClock;
import io.echomq.RedisCommandException;
import io.echomq.internal.Checks;
import io.echomq.internal.LockKeys;

/**
 * The settings that every lock client's builder shares: the key namespace and the monotonic
 * clock. Each setting is checked as it is given, with a message that names it. The builders
 * themselves are {@link LockClient.Builder} (one server) and {@link RedlockClient.Builder} (N
 * masters), which add how to connect.
 *
 * @param <B> the concrete builder, returned by every setter
 */
public abstract sealed class LocksBuilder<B extends LocksBuilder<B>> permits LockClient.Builder, RedlockClient.Builder {
    String namespace = LockKeys.DEFAULT_NAMESPACE;
    MonotonicClock clock = MonotonicClock.SYSTEM;

    LocksBuilder() {
    }

    /**
     * @param namespace prefix of every key (on every master, for Redlock), default
     *     {@code emq:lock:}; may be empty
     * @return this builder
     * @throws IllegalArgumentException if null or containing '{' or '}'
     */
    public B namespace(String namespace) {
        new LockKeys(namespace);
        this.namespace = namespace;
        return self();
    }

    /**
     * @param clock the monotonic clock for local lease deadlines (and, for Redlock, the validity
     *     of a grant), default {@link System#nanoTime()}
     * @return this builder
     * @throws IllegalArgumentException if null
     */
    public B clock(MonotonicClock clock) {
        this.clock = Checks.notNull(clock, "clock");
        return self();
    }

    /**
     * Connects.
     *
     * @return the client
     * @throws IllegalArgumentException if a required setting is missing or settings conflict
     * @throws RedisCommandException if the server (or a quorum of masters) cannot be reached
     */
    public abstract Locks build();

    @SuppressWarnings("unchecked")
    private B self() {
        return (B) this;
    }
}
