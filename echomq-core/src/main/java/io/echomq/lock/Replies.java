package io.echomq.lock;

import io.echomq.RedisCommandException;
import io.echomq.internal.RedisEngine;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * Turns one command's reply future into the lock client's answer in a single stage.
 *
 * <ol>
 *   <li>{@link #decode}: on a reply, the decoded value; on a failure, or a decoder that throws, a
 *       {@link RedisCommandException} naming the command and the resource.</li>
 * </ol>
 *
 * <p>Why one stage: every acquire and release of an uncontended lock pays for each
 * {@code CompletableFuture} stage it chains (a future, a completion node and a lambda), and a
 * {@code thenApply} followed by an {@code exceptionallyCompose} that translates the failure was
 * two stages for one decision. The failure seen by a caller is the same: {@code get()} throws an
 * {@code ExecutionException} whose cause is the {@link RedisCommandException}.
 */
final class Replies {
    private Replies() {
    }

    /**
     * @return a future of {@code decoder}'s value for {@code reply}'s, failed with a
     *     {@link RedisCommandException} naming {@code command} and {@code resource} when the reply
     *     failed or the decoder threw
     */
    static <S, T> CompletableFuture<T> decode(CompletableFuture<S> reply, Function<? super S, ? extends T> decoder,
                                              String command, String resource) {
        return reply.handle((value, error) -> {
            if (error != null) {
                throw RedisEngine.failure(error, command, resource);
            }
            try {
                return decoder.apply(value);
            } catch (RuntimeException e) {
                throw RedisEngine.failure(e, command, resource);
            }
        });
    }
}
