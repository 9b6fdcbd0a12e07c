/**
 * Test support: runs a real {@code redis-server} on a free loopback port, never a mock.
 *
 * <ul>
 *   <li>{@link io.echomq.testkit.RedisServer} starts and stops one server process
 *       ({@code try (RedisServer redis = RedisServer.start()) { ... redis.url() ... }}).</li>
 *   <li>{@link io.echomq.testkit.RedisBinary} picks the executable: the one named by the environment variable
 *       {@code EMQ_REDIS_SERVER} (or system property {@code emq.redis.server}), else the binary embedded in the
 *       {@code com.github.codemonstur:embedded-redis} jar, extracted to {@code ${java.io.tmpdir}/echomq-redis}.</li>
 *   <li>{@link io.echomq.testkit.RawRedis} is a minimal RESP2 client for assertions that must not depend on the
 *       client under test; {@link io.echomq.testkit.RawRedis#monitor()} returns a
 *       {@link io.echomq.testkit.CommandTap} recording every command the server executes.</li>
 *   <li>{@link io.echomq.testkit.RedisCluster} forms a real local Redis Cluster (three masters by default, optional
 *       replicas) from the same binary, with {@link io.echomq.testkit.RedisCluster#migrateSlot} for resharding
 *       tests and {@link io.echomq.testkit.RedisCluster#raw()}, a {@code RawRedis} that routes by slot.</li>
 *   <li>{@link io.echomq.testkit.RedisExtension} is a JUnit 5 extension giving each test class its own server (or,
 *       with {@code EMQ_REDIS_MODE=cluster}, one shared cluster); it needs {@code junit-jupiter-api}, an optional
 *       dependency of this module.</li>
 * </ul>
 */
package io.echomq.testkit;
