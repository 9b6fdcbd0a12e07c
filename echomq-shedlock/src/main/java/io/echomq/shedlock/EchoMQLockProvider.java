package io.echomq.shedlock;

import io.echomq.RedisCommandException;
import io.echomq.lock.Lease;
import io.echomq.lock.LockClient;
import io.echomq.lock.Locks;
import io.echomq.lock.ReleaseOutcome;
import io.echomq.lock.RenewOutcome;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Optional;
import java.util.OptionalLong;
import net.javacrumbs.shedlock.core.AbstractSimpleLock;
import net.javacrumbs.shedlock.core.ClockProvider;
import net.javacrumbs.shedlock.core.ExtensibleLockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * ShedLock's {@link ExtensibleLockProvider} over an EchoMQ {@link Locks} client: each
 * {@code @SchedulerLock} run holds a fenced {@link Lease} on the resource
 * {@code <prefix><lock name>} (prefix {@value #DEFAULT_PREFIX} unless given).
 *
 * <pre>{@code
 * @Bean
 * LockProvider lockProvider(LockClient locks) {
 *     return new EchoMQLockProvider(locks);
 * }
 * }</pre>
 *
 * <ol>
 *   <li><b>lock</b>: one {@code tryAcquire} with a ttl that runs to {@code lockAtMostUntil}
 *       (so {@code lockAtMostFor} from when ShedLock made the configuration). Held by anyone,
 *       this JVM included, is an empty {@link Optional}, as ShedLock's contract says.</li>
 *   <li><b>unlock</b> before {@code lockAtLeastUntil} sets the lease's ttl to the time left until
 *       then, by a token-checked renew: the lock stays until {@code lockAtLeastFor} has passed and
 *       then expires by itself. After it, a token-checked release. Neither ever sends a blind
 *       {@code DEL}: a lock that has since expired and gone to another node is left alone (logged
 *       at WARN, since the task outran {@code lockAtMostFor}), and unlock does not throw then.</li>
 *   <li><b>extend</b> renews the same lease, by token, to the new {@code lockAtMostFor} and
 *       answers a new {@link SimpleLock}, or empty if the lease was already lost or expired. As
 *       ShedLock's {@link AbstractSimpleLock} says, the old lock object is spent either way:
 *       unlocking or extending it again throws {@link IllegalStateException}.</li>
 * </ol>
 *
 * <p>There is no watchdog: {@code lockAtMostFor} is ShedLock's safety bound and is kept. For
 * renewal, wrap this provider in ShedLock's {@code KeepAliveLockProvider}, which works through
 * {@code extend}: it renews the same lease every half {@code lockAtMostFor}, so the fence stays.
 *
 * <p>The task reads the fence of the lock it holds with {@link #currentFence()}: ShedLock runs a
 * {@code @SchedulerLock} task on the thread that called {@code lock} and unlocks on that thread,
 * also through {@code KeepAliveLockProvider}.
 *
 * <p>Thread-safe; it holds no state beyond the client, which it does not close, and the calling
 * thread's holds for {@link #currentFence()}.
 */
public final class EchoMQLockProvider implements ExtensibleLockProvider {
    /** The prefix of the resource of each ShedLock lock name, unless another is given. */
    public static final String DEFAULT_PREFIX = "shedlock:";

    private static final Logger log = LoggerFactory.getLogger(EchoMQLockProvider.class);

    /**
     * The leases that the thread's own {@code lock} calls took and that it has not unlocked yet,
     * innermost first: ShedLock lets a task take other lock names on the same thread, and a lock
     * and its unlock happen on the same thread, so each thread sees only its own holds.
     */
    private static final ThreadLocal<Deque<Lease>> HELD = ThreadLocal.withInitial(ArrayDeque::new);

    private final Locks locks;
    private final String prefix;

    /**
     * @param locks the client (a {@link LockClient} or a {@code RedlockClient}); not closed here
     * @throws IllegalArgumentException if {@code locks} is null
     */
    public EchoMQLockProvider(Locks locks) {
        this(locks, DEFAULT_PREFIX);
    }

    /**
     * @param locks          the client; not closed here
     * @param resourcePrefix put before each lock name to make its resource; may be empty
     * @throws IllegalArgumentException if either is null, or the prefix holds '{' or '}'
     */
    public EchoMQLockProvider(Locks locks, String resourcePrefix) {
        if (locks == null) {
            throw new IllegalArgumentException("locks must not be null");
        }
        if (resourcePrefix == null || resourcePrefix.indexOf('{') >= 0 || resourcePrefix.indexOf('}') >= 0) {
            throw new IllegalArgumentException("resourcePrefix must not be null nor hold '{' or '}': " + resourcePrefix);
        }
        this.locks = locks;
        this.prefix = resourcePrefix;
    }

    /**
     * Tries once to take the lock named in {@code config}, for its {@code lockAtMostFor}.
     *
     * @return the lock, or empty while anyone holds it (also this JVM, also within
     *     {@code lockAtLeastFor} of an earlier unlock)
     * @throws IllegalArgumentException if the name makes an invalid resource (empty, over 1024
     *     bytes, holding a brace), or {@code lockAtMostFor} is over {@link LockClient#MAX_TTL}
     * @throws RedisCommandException if Redis fails; whether the lock was taken is then unknown,
     *     and an unknown grant expires by {@code lockAtMostFor}
     */
    @Override
    public Optional<SimpleLock> lock(LockConfiguration config) {
        String resource = resource(config.getName());
        Duration ttl = ttlUntil(config.getLockAtMostUntil(), config.getName());
        return locks.tryAcquire(resource, ttl).map(lease -> {
            HELD.get().push(lease);
            return new ShedLease(config, lease);
        });
    }

    /**
     * The fence of the lock that the calling thread's task holds, to pass to a guarded store
     * ({@code UPDATE … WHERE fence <= ?}) so that a task that outran its lock is refused.
     *
     * <p>Present from a successful {@code lock} (of any {@code EchoMQLockProvider}, also wrapped
     * in {@code KeepAliveLockProvider}) until that lock's {@code unlock}, on the thread that called
     * {@code lock}, which is where ShedLock runs the task. It rises between consecutive holds of a
     * resource (see {@link Lease#fence()}) and does not change while {@code extend} or
     * {@code KeepAliveLockProvider} renew the hold. With nested tasks of other lock names it is the
     * fence of the innermost. It says what was granted, not that the lock is still held: the
     * guarded store is what refuses a stale holder.
     *
     * @return the fence, or empty outside a task that holds a lock from this provider (another
     *     thread, before {@code lock}, after {@code unlock}), or if the lease carries no fence
     */
    public static OptionalLong currentFence() {
        Lease lease = HELD.get().peek();
        if (lease == null) {
            HELD.remove();
            return OptionalLong.empty();
        }
        return lease.isFenced() ? OptionalLong.of(lease.fence()) : OptionalLong.empty();
    }

    /** Forgets {@code lease} on this thread; a hold unlocked on another thread is not on this one. */
    private static void forget(Lease lease) {
        Deque<Lease> held = HELD.get();
        held.removeFirstOccurrence(lease);
        if (held.isEmpty()) {
            HELD.remove();
        }
    }

    /**
     * @param lockName a ShedLock lock name
     * @return the EchoMQ resource that holds it: the prefix, then the name
     */
    public String resource(String lockName) {
        return prefix + lockName;
    }

    /** @return the time from now until {@code until}, at least 1 ms; a ShedLock lock always gets a ttl */
    private static Duration ttlUntil(Instant until, String name) {
        long ms = Math.max(1, Duration.between(ClockProvider.now(), until).toMillis());
        if (ms > LockClient.MAX_TTL.toMillis()) {
            throw new IllegalArgumentException("lockAtMostFor of lock '" + name + "' is " + ms
                    + " ms, over EchoMQ's longest lease, " + LockClient.MAX_TTL
                    + ": use a shorter one, and KeepAliveLockProvider to extend it while the task runs");
        }
        return Duration.ofMillis(ms);
    }

    /** One ShedLock hold: a lease, and the configuration it was taken or extended with. */
    private static final class ShedLease extends AbstractSimpleLock {
        private final Lease lease;

        ShedLease(LockConfiguration config, Lease lease) {
            super(config);
            this.lease = lease;
        }

        @Override
        protected void doUnlock() {
            try {
                unlockLease();
            } finally {
                forget(lease);
            }
        }

        private void unlockLease() {
            long keepMs = Duration.between(ClockProvider.now(), lockConfiguration.getLockAtLeastUntil()).toMillis();
            if (keepMs > 0) {
                // lockAtLeastFor: shorten the ttl to the time left, only while the lock is still ours.
                RenewOutcome kept = lease.renew(Duration.ofMillis(keepMs));
                if (kept != RenewOutcome.RENEWED) {
                    warnGone(kept.name());
                }
                return;
            }
            ReleaseOutcome released = lease.release();
            if (released != ReleaseOutcome.RELEASED) {
                warnGone(released.name());
            }
        }

        @Override
        protected Optional<SimpleLock> doExtend(LockConfiguration extended) {
            Duration ttl = ttlUntil(extended.getLockAtMostUntil(), extended.getName());
            if (lease.renew(ttl) == RenewOutcome.RENEWED) {
                return Optional.of(new ShedLease(extended, lease));
            }
            return Optional.empty();
        }

        private void warnGone(String outcome) {
            log.warn("ShedLock lock '{}' was no longer held at unlock ({}): the task outran lockAtMostFor {};"
                    + " nothing was deleted", lockConfiguration.getName(), outcome, lockConfiguration.getLockAtMostFor());
        }
    }
}
