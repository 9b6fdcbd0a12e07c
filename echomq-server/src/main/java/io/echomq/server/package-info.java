/**
 * Runs a real {@code redis-server} on a free loopback port, or a local Redis Cluster of them; used by
 * {@code emq server}, {@code emq demo}, the benchmarks and the test kit. It carries no test tool and depends on
 * nothing but the {@code embedded-redis} jar (for its binary).
 *
 * <ul>
 *   <li>{@link io.echomq.server.RedisServer} starts and stops one server process
 *       ({@code try (RedisServer redis = RedisServer.start()) { ... redis.url() ... }}).</li>
 *   <li>{@link io.echomq.server.RedisBinary} picks the executable: the one named by the environment variable
 *       {@code EMQ_REDIS_SERVER} (or system property {@code emq.redis.server}), else the binary embedded in the
 *       {@code com.github.codemonstur:embedded-redis} jar, extracted to {@code ${java.io.tmpdir}/echomq-redis}.</li>
 *   <li>{@link io.echomq.server.RawRedis} is a minimal RESP2 client, used to manage the servers and for
 *       assertions that must not depend on the client under test; {@link io.echomq.server.RawRedis#monitor()}
 *       returns a {@link io.echomq.server.CommandTap} recording every command the server executes.</li>
 *   <li>{@link io.echomq.server.RedisCluster} forms a real local Redis Cluster (three masters by default,
 *       optional replicas) from the same binary, with {@link io.echomq.server.RedisCluster#migrateSlot} for
 *       resharding and {@link io.echomq.server.RedisCluster#raw()}, a {@code RawRedis} that routes by slot.</li>
 *   <li>{@link io.echomq.server.TlsRedisServer} runs a TLS-only server from the PEM files of a
 *       {@link io.echomq.server.ServerCertificates}; this module reads certificates, it never makes them.</li>
 * </ul>
 */
package io.echomq.server;
