package io.echomq.internal;

import io.echomq.ProtocolVersionException;
import io.echomq.RedisCommandException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/**
 * How a command's future becomes a value or the library's exception.
 *
 * <ol>
 *   <li>Waits for a future, interruptibly or not ({@link #await}, {@link #awaitInterruptibly}).</li>
 *   <li>Translates a failure into a {@link RedisCommandException} naming the command and the
 *       resource ({@link #failure}), after unwrapping the executor's wrappers ({@link #unwrap}).</li>
 * </ol>
 *
 * <p>Together because every wait ends in that translation, so there is one rule for what a caller
 * of the engine sees when Redis fails. {@link RedisEngine} exposes these as its own statics.
 */
final class RedisFutures {
    private RedisFutures() {
    }

    /** See {@link RedisEngine#await}. */
    static <T> T await(CompletableFuture<T> future, String command, String resource) {
        try {
            return awaitInterruptibly(future, command, resource);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new RedisCommandException(command, resource, e);
        }
    }

    /** See {@link RedisEngine#awaitUninterruptibly}. */
    static <T> T awaitUninterruptibly(CompletableFuture<T> future, String command, String resource) {
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    return awaitInterruptibly(future, command, resource);
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** See {@link RedisEngine#awaitInterruptibly}. */
    static <T> T awaitInterruptibly(CompletableFuture<T> future, String command, String resource)
            throws InterruptedException {
        try {
            return future.get();
        } catch (ExecutionException e) {
            throw failure(e, command, resource);
        }
    }

    /**
     * @return {@code e}, unwrapped, as a {@link RedisCommandException} naming the command: a
     *     {@link ProtocolVersionException} when a script refused a later protocol's data
     */
    static RedisCommandException failure(Throwable e, String command, String resource) {
        Throwable cause = unwrap(e);
        if (cause instanceof RedisCommandException rce) {
            return rce;
        }
        if (ProtocolVersionException.isRefusal(cause)) {
            return new ProtocolVersionException(command, resource, cause);
        }
        return new RedisCommandException(command, resource, cause);
    }

    /** @return the first cause that is not a {@link CompletionException} or {@link ExecutionException} */
    static Throwable unwrap(Throwable e) {
        Throwable t = e;
        while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }
}
