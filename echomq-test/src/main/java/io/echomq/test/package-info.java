/**
 * Test support for an application's own tests, on a real server (never a mock), published as
 * {@code io.echomq:echomq-test} for test scope.
 *
 * <ul>
 *   <li>{@link io.echomq.test.TestRedis}: the JVM's one test server, the embedded {@code redis-server} or one named
 *       by {@code -Dechomq.test.redis-url} / {@code EMQ_TEST_REDIS_URL}.</li>
 *   <li>{@link io.echomq.test.EchoMQTest} and {@link io.echomq.test.EchoMQExtension}: a JUnit 5 extension that
 *       empties the server before each test and gives it a {@code QueueClient} and a {@code LockClient}.</li>
 *   <li>{@link io.echomq.test.QueueDrain}: runs a queue's jobs inline with a handler until none is left.</li>
 *   <li>{@link io.echomq.test.QueueAssert}: assertions on what a queue holds to run.</li>
 *   <li>{@code io.echomq.test.spring}: the same for a Spring Boot application, with its own handlers.</li>
 * </ul>
 */
package io.echomq.test;
