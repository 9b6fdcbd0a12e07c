package io.echomq.lock;

import io.echomq.MonotonicClock;
import io.echomq.RedisCommandException;
import io.echomq.internal.Checks;
import io.echomq.internal.LockKeys;

/**
 * The settings that every lock client's builder shares: the key namespace, the monotonic
 * clock and the instrumentation. Each setting is checked as it is given, with a message that names it. The builders
 * themselves are {@link LockClient.Builder} (one server) and {@link RedlockClient.Builder} (N
 * masters), which add how to connect.
 *
 * @param <B> the concrete builder, returned by every setter
 */
public abstract sealed class LocksBuilder<B extends LocksBuilder<B>> permits LockClient.Builder, RedlockClient.Builder {
    String namespace = LockKeys.DEFAULT_NAMESPACE;
    MonotonicClock clock = MonotonicClock.SYSTEM;
    LockInstrumentation instrumentation = LockInstrumentation.NONE;
    boolean markFencesForProtocol1;

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
     * @param instrumentation told of every acquire, held lease, loss and renewal (see
     *     {@link LockInstrumentation}, {@code io.echomq.observe.Instrumentation} and
     *     {@code echomq-micrometer}); default {@link LockInstrumentation#NONE}, which costs nothing,
     *     as does one that overrides none of the lock's methods. Whatever it throws is logged once
     *     per method and ignored.
     * @return this builder
     * @throws IllegalArgumentException if null
     */
    public B instrumentation(LockInstrumentation instrumentation) {
        this.instrumentation = GuardedLockInstrumentation.of(instrumentation);
        return self();
    }

    /**
     * The upgrade mode for fenced locks while a client of wire protocol 1 (the previous release)
     * may still take fenced locks in this namespace (docs/protocol.md, "How to upgrade from 1 to
     * 2"). When on, every fence this client grants (an acquire, a waiting acquire's try, a handoff,
     * Redlock's write-back) is stored as the mark {@code v2:<fence>} with no expiry, on which a
     * protocol-1 client's fenced acquire fails instead of counting from 1 once the lease ended.
     * When off (the default), the mark is stored only on a resource whose fence key already
     * holds a protocol-1 counter or a mark, and fence keys expire as usual; nothing is added to
     * any command. Each mark is one key per resource locked, kept until deleted.
     *
     * @param on whether every fenced grant stores the mark; default {@code false}
     * @return this builder
     */
    public B markFencesForProtocol1(boolean on) {
        this.markFencesForProtocol1 = on;
        return self();
    }

    /** @return the observations of a client built with these settings */
    LockObservations observations(boolean redlock) {
        return instrumentation == LockInstrumentation.NONE ? LockObservations.NONE
                : new LockObservations(instrumentation, clock, redlock);
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
