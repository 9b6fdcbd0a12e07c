package io.echomq.lock;

import io.echomq.internal.Checks;
import io.echomq.internal.RedisEngine;
import io.echomq.internal.Scripts;
import io.lettuce.core.KeyValue;
import io.lettuce.core.ScriptOutputType;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * A store guarded by fencing tokens, kept in Redis: "set only if the fence is not older". Each
 * guarded key is a HASH with the fields {@code value} and {@code fence}, written only by
 * {@code fenced-write-1.lua}.
 *
 * <p>A write is accepted when its fence is at least the fence of the last accepted write, so a
 * holder may write many times under one lease, and a stale holder whose lease moved on (its
 * fence is lower than the new holder's) is refused once the new holder has written. The same
 * rule in SQL is {@code UPDATE t SET v = ?, fence = ? WHERE id = ? AND fence <= ?}; see
 * {@code docs/locks.md}.
 *
 * <p>Obtained from {@link LockClient#fencedStore()}; thread-safe.
 */
public final class FencedStore {
    private final RedisEngine engine;

    FencedStore(RedisEngine engine) {
        this.engine = engine;
    }

    /**
     * Stores {@code value} under {@code key} if {@code fence} is not older than the stored fence.
     *
     * @param key the guarded key (not namespaced: the caller names it)
     * @param fence the writer's fence, from {@link Lease#fence()}
     * @param value the value to store
     * @return {@link FencedWriteOutcome#WRITTEN} or {@link FencedWriteOutcome#STALE}
     * @throws IllegalArgumentException if the key is invalid, the fence is not positive or the
     *     value is null
     * @throws io.echomq.RedisCommandException if Redis fails, for example {@code WRONGTYPE} when the
     *     key holds something other than a guarded hash
     */
    public FencedWriteOutcome write(String key, long fence, String value) {
        Checks.name(key, "key");
        if (fence < 1) {
            throw new IllegalArgumentException("fence must be positive, was " + fence);
        }
        Checks.notNull(value, "value");
        CompletableFuture<List<Object>> f = engine.run(Scripts.FENCED_WRITE, ScriptOutputType.MULTI,
                new String[] {key}, Long.toString(fence), value);
        List<Object> reply = RedisEngine.await(f, Scripts.FENCED_WRITE.label(), key);
        return (Long) reply.get(0) == 1 ? FencedWriteOutcome.WRITTEN : FencedWriteOutcome.STALE;
    }

    /**
     * @return the stored value and its fence, or empty if nothing was written
     * @throws IllegalArgumentException if the key is invalid
     * @throws io.echomq.RedisCommandException if Redis fails
     */
    public Optional<FencedValue> read(String key) {
        Checks.name(key, "key");
        CompletableFuture<List<KeyValue<String, String>>> f =
                engine.commands().hmget(key, "value", "fence").toCompletableFuture();
        List<KeyValue<String, String>> reply = RedisEngine.await(f, "HMGET", key);
        if (!reply.get(0).hasValue() || !reply.get(1).hasValue()) {
            return Optional.empty();
        }
        return Optional.of(new FencedValue(reply.get(0).getValue(), Long.parseLong(reply.get(1).getValue())));
    }
}
