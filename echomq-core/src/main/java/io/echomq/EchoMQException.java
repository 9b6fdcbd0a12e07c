package io.echomq;

/**
 * Base of every exception this library throws for a failure at run time (as opposed to bad
 * input, which is always an {@link IllegalArgumentException} raised before Redis is touched).
 *
 * <p>Unchecked, so that it travels through lambdas and {@code CompletableFuture}s unchanged.
 */
public class EchoMQException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /**
     * @param message what failed, naming the operation and the resource where there is one
     * @param cause the underlying failure, or {@code null}
     */
    public EchoMQException(String message, Throwable cause) {
        super(message, cause);
    }

    /** @param message what failed, naming the operation and the resource where there is one */
    public EchoMQException(String message) {
        super(message);
    }
}
