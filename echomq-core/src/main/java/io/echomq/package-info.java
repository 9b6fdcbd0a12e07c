/**
 * EchoMQ for Java: fenced locks (leases) and a claim-lease job queue on Redis or Valkey.
 *
 * <p>This package holds what both sides share: the exception types
 * ({@link io.echomq.EchoMQException}, {@link io.echomq.RedisCommandException}), the injected
 * {@link io.echomq.MonotonicClock}, the naming rules every key is built with ({@link io.echomq.Names}),
 * and the connection URLs with their redaction ({@link io.echomq.RedisUrl}). The lock API lives in
 * {@link io.echomq.lock}, the job queue in {@link io.echomq.queue}, the hook through which metrics
 * and tracing libraries watch both sides in {@link io.echomq.observe}. This package depends on none
 * of them, and the lock package not on the queue's.
 *
 * <p>Errors follow one rule everywhere: bad input is an {@link java.lang.IllegalArgumentException}
 * raised before Redis is touched; a failure of Redis itself is a
 * {@link io.echomq.RedisCommandException} naming the command and the resource; an expected
 * "no" (a lock that is held, a lease that was lost) is a typed return value, never an exception.
 */
package io.echomq;
