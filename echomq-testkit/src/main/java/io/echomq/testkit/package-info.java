/**
 * Test support over {@code echomq-server} (which runs the real {@code redis-server}s; never a mock). Nothing
 * shipped depends on this package at compile scope.
 *
 * <ul>
 *   <li>{@link io.echomq.testkit.RedisExtension} is a JUnit 5 extension giving each test class its own server (or,
 *       with {@code EMQ_REDIS_MODE=cluster}, one shared cluster); it needs {@code junit-jupiter-api}, an optional
 *       dependency of this module.</li>
 *   <li>{@link io.echomq.testkit.FaultProxy} and {@link io.echomq.testkit.ReplicaPair} inject network and
 *       replication faults; {@link io.echomq.testkit.ChildJvm} runs a client in a JVM that can be killed.</li>
 *   <li>{@link io.echomq.testkit.Garbage} generates hostile inputs; {@link io.echomq.testkit.LockHistory} and
 *       {@link io.echomq.testkit.QueueHistory} check recorded histories for safety violations.</li>
 *   <li>{@link io.echomq.testkit.TestCertificates} generates a throw-away CA and server certificate with
 *       BouncyCastle (optional dependency) for {@code io.echomq.server.TlsRedisServer}.</li>
 * </ul>
 */
package io.echomq.testkit;
