package io.echomq.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.echomq.RedisCommandException;
import io.echomq.lock.LockClient;
import io.echomq.queue.QueueClient;
import io.echomq.server.RedisServer;
import io.echomq.testkit.TestCertificates;
import io.echomq.server.TlsRedisServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code rediss://} against a redis-server that has no plain port at all ({@code --port 0}) and a
 * certificate signed by a CA generated for this run. With that CA trusted
 * ({@code trustedCertificates}), every lock, queue and worker path works with full peer
 * verification; without it, with another CA, or over plain TCP, connecting fails with a
 * {@link RedisCommandException}; and misconfiguration fails before anything connects.
 */
@Timeout(120)
class TlsTest {
    private static final Duration SHORT = Duration.ofSeconds(3);
    private static TestCertificates certs;
    private static TestCertificates otherCa;
    private static TlsRedisServer redis;
    private static String server;

    @BeforeAll
    static void start() {
        certs = TestCertificates.generate("EchoMQ test CA");
        otherCa = TestCertificates.generate("Some other CA");
        redis = TlsRedisServer.start(certs);
        // The TLS server runs the same binary as a plain test server; ask a plain one what it is.
        try (RedisServer plain = RedisServer.start()) {
            server = plain.product() + " " + plain.version();
        }
    }

    @AfterAll
    static void stop() {
        if (redis != null) {
            redis.close();
        }
        certs.delete();
        otherCa.delete();
    }

    @Test
    void everyFlowRunsOverTlsWithTheTrustedCa() throws Exception {
        try (LockClient locks = LockClient.builder().redisUrl(redis.url()).trustedCertificates(certs.ca()).build()) {
            Flows.locks(locks, server);
        }
        try (QueueClient queues = QueueClient.builder().redisUrl(redis.url()).trustedCertificates(certs.ca()).build()) {
            Flows.queues(queues, server);
        }
    }

    @Test
    void theHostNameIsVerifiedToo() {
        // the certificate names 127.0.0.1 and localhost: any other name for the same server is refused
        String otherName = "rediss://127.0.0.2:" + redis.port();
        assertThatThrownBy(() -> LockClient.builder().redisUrl(otherName).trustedCertificates(certs.ca())
                .commandTimeout(SHORT).build()).isInstanceOf(RedisCommandException.class);
        try (LockClient byName = LockClient.builder().redisUrl("rediss://localhost:" + redis.port())
                .trustedCertificates(certs.ca()).build()) {
            assertThat(byName.tryAcquire("by-name", Duration.ofSeconds(5))).isPresent();
        }
    }

    @Test
    void anUntrustedServerIsRefused() {
        assertThatThrownBy(() -> LockClient.builder().redisUrl(redis.url()).commandTimeout(SHORT).build())
                .as("the JVM's default trust store does not know the test CA")
                .isInstanceOf(RedisCommandException.class).hasMessageContaining("CONNECT rediss://127.0.0.1");
        assertThatThrownBy(() -> QueueClient.builder().redisUrl(redis.url()).trustedCertificates(otherCa.ca())
                .commandTimeout(SHORT).build())
                .isInstanceOf(RedisCommandException.class);
    }

    @Test
    void plainTcpToTheTlsPortIsRefused() {
        assertThatThrownBy(() -> LockClient.builder().redisUrl("redis://127.0.0.1:" + redis.port())
                .commandTimeout(SHORT).build().inspect("x"))
                .isInstanceOf(RedisCommandException.class);
    }

    @Test
    void misconfiguredTrustFailsBeforeConnecting() throws Exception {
        assertThatThrownBy(() -> LockClient.builder().redisUrl("redis://127.0.0.1:" + redis.port())
                .trustedCertificates(certs.ca()).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not rediss://");
        Path notPem = Files.createTempFile("not-a-cert", ".pem");
        try {
            Files.writeString(notPem, "hello");
            assertThatThrownBy(() -> QueueClient.builder().trustedCertificates(notPem))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("trustedCertificates");
        } finally {
            Files.delete(notPem);
        }
        assertThatThrownBy(() -> LockClient.builder().trustedCertificates(Path.of("/no/such/ca.pem")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not a readable file");
        assertThatThrownBy(() -> LockClient.builder().trustedCertificates(null))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
