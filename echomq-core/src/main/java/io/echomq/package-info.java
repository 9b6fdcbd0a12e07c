/**
 * EchoMQ for Java: leases, fenced locks and (later) a claim-lease job queue on Redis or Valkey.
 *
 * <p>This package holds what every part of the library shares: the exception types
 * ({@link io.echomq.EchoMQException}, {@link io.echomq.RedisCommandException}) and the injected
 * {@link io.echomq.MonotonicClock}. The lock API lives in {@link io.echomq.lock}.
 *
 * <p>Errors follow one rule everywhere: bad input is an {@link java.lang.IllegalArgumentException}
 * raised before Redis is touched; a failure of Redis itself is a
 * {@link io.echomq.RedisCommandException} naming the command and the resource; an expected
 * "no" (a lock that is held, a lease that was lost) is a typed return value, never an exception.
 */
package io.echomq;
