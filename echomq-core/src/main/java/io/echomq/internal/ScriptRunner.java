package io.echomq.internal;

import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * How one Lua script is sent to the server.
 *
 * <ol>
 *   <li>Checks the caller's keys against the script's declared key count.</li>
 *   <li>Sends {@code EVALSHA} on the locally computed SHA; on {@code NOSCRIPT} (a new or flushed
 *       server) one {@code EVAL} of the body, which also loads it into the server's cache.</li>
 *   <li>On a cluster, sends again after a growing pause (2 ms, doubling, at most 100 ms) while the
 *       answer is {@code TRYAGAIN} (the keys are split by a slot migration; nothing ran), until the
 *       command timeout.</li>
 * </ol>
 *
 * <p>Together because each is a rule for the same call: which command carries the script, and
 * when sending it again is safe (only when the server ran nothing). The futures fail with the raw
 * Lettuce exception, unwrapped; callers translate it with {@link RedisEngine#failure}.
 */
final class ScriptRunner {
    private static final long TRYAGAIN_FIRST_PAUSE_MS = 2;
    private static final long TRYAGAIN_MAX_PAUSE_MS = 100;

    private final boolean cluster;
    private final long commandTimeoutMs;

    ScriptRunner(boolean cluster, long commandTimeoutMs) {
        this.cluster = cluster;
        this.commandTimeoutMs = commandTimeoutMs;
    }

    /** See {@link RedisEngine#run(StatefulConnection, LuaScript, ScriptOutputType, String[], Object[])}. */
    <V, T> CompletableFuture<T> run(StatefulConnection<String, V> connection, LuaScript script,
                                    ScriptOutputType type, String[] keys, V[] args) {
        if (keys.length != script.numKeys()) {
            throw new IllegalStateException(script + " declares " + script.numKeys() + " keys, caller passed "
                    + keys.length);
        }
        CompletableFuture<T> first = runOnce(connection, script, type, keys, args);
        if (!cluster) {
            return first;
        }
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(commandTimeoutMs);
        return retryUnstable(first, () -> {
            CompletableFuture<T> again = runOnce(connection, script, type, keys, args);
            connection.flushCommands();   // the pipelined connection does not flush by itself
            return again;
        }, deadline, TRYAGAIN_FIRST_PAUSE_MS);
    }

    private <V, T> CompletableFuture<T> runOnce(StatefulConnection<String, V> connection, LuaScript script,
                                                ScriptOutputType type, String[] keys, V[] args) {
        RedisClusterAsyncCommands<String, V> async = EngineConnections.async(connection);
        CompletableFuture<T> first = async.<T>evalsha(script.sha(), type, keys, args).toCompletableFuture();
        return first.exceptionallyCompose(e -> {
            if (RedisFutures.unwrap(e) instanceof RedisNoScriptException) {
                CompletableFuture<T> retry = async.<T>eval(script.body(), type, keys, args).toCompletableFuture();
                connection.flushCommands();
                return retry;
            }
            return CompletableFuture.failedFuture(RedisFutures.unwrap(e));
        });
    }

    /** Sends again, after a growing pause, while the cluster answers TRYAGAIN and the deadline allows. */
    private static <T> CompletableFuture<T> retryUnstable(CompletableFuture<T> attempt, Supplier<CompletableFuture<T>> again,
                                                         long deadlineNanos, long pauseMs) {
        return attempt.exceptionallyCompose(e -> {
            Throwable cause = RedisFutures.unwrap(e);
            if (!isTryAgain(cause) || System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(pauseMs) - deadlineNanos > 0) {
                return CompletableFuture.failedFuture(cause);
            }
            return CompletableFuture.supplyAsync(() -> null,
                            CompletableFuture.delayedExecutor(pauseMs, TimeUnit.MILLISECONDS))
                    .thenCompose(ignored -> retryUnstable(again.get(), again, deadlineNanos,
                            Math.min(TRYAGAIN_MAX_PAUSE_MS, pauseMs * 2)));
        });
    }

    /** @return whether {@code e} is the cluster's {@code TRYAGAIN}: a multi-key command met a slot in migration */
    static boolean isTryAgain(Throwable e) {
        return e instanceof RedisCommandExecutionException && e.getMessage() != null
                && e.getMessage().startsWith("TRYAGAIN");
    }
}
