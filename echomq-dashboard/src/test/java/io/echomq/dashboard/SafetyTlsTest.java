package io.echomq.dashboard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.echomq.RedisCommandException;
import io.echomq.queue.QueueClient;
import io.echomq.server.TlsRedisServer;
import io.echomq.testkit.TestCertificates;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.SslOptions;
import java.net.http.HttpResponse;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * "Why it is safe" against a {@code rediss://} server with no plain port, whose certificate a CA
 * generated for this run signed: given that CA ({@code figures(url, ca)}, what {@code --redis-ca}
 * and {@code echomq.redis.trusted-certificates} pass), the acts' own connections trust it, with
 * the host name verified, and the race and the claim lease run; without it they are refused.
 */
@Timeout(120)
class SafetyTlsTest extends DashboardTestBase {
    static TestCertificates certs;
    static TlsRedisServer tls;
    static QueueClient tlsClient;
    static Dashboard trusting;

    @BeforeAll
    static void startTls() {
        certs = TestCertificates.generate("EchoMQ figures test CA");
        tls = TlsRedisServer.start(certs);
        tlsClient = QueueClient.builder().redisUrl(tls.url()).trustedCertificates(certs.ca()).build();
        trusting = Dashboard.builder(tlsClient).token(TOKEN).figures(tls.url(), certs.ca()).start();
    }

    @AfterAll
    static void stopTls() {
        if (trusting != null) {
            trusting.close();
        }
        if (tlsClient != null) {
            tlsClient.close();
        }
        if (tls != null) {
            tls.close();
        }
        certs.delete();
    }

    @Test
    void theRaceRunsOverTlsWithTheGivenCaAndLeavesNoKey() {
        HttpResponse<String> r = SafetyPageTest.run(trusting, "race");

        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        List<String> readouts = SafetyPageTest.readouts(r.body(), "race");
        assertThat(readouts).hasSize(4);
        assertThat(readouts.stream().filter(t -> t.contains(" → OK: "))).hasSize(1);
        assertThat(readouts.stream().filter(t -> t.contains(" → nil: the key is now present"))).hasSize(3);
        assertThat(keys("emq:figures:*")).isEmpty();
    }

    @Test
    void theClaimLeaseRunsOverTlsToo() {
        HttpResponse<String> r = SafetyPageTest.run(trusting, "claim-lease");

        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        assertThat(SafetyPageTest.verdicts(r.body(), "claim-lease")).contains("LEASE_LOST");
        assertThat(keys("*figures*")).isEmpty();
    }

    @Test
    void withoutTheCaTheActsAreRefusedAsTheCoresClientsAre() {
        assertThatThrownBy(() -> SafetyActs.open(tls.url(), "emq:figures:untrusted:"))
                .isInstanceOf(RedisCommandException.class);
        try (SafetyActs acts = SafetyActs.open(tls.url(), certs.ca(), "emq:figures:trusted:")) {
            assertThat(acts.pxWithoutNx().overwritten()).isTrue();
            assertThat(acts.deleteKeys()).isEqualTo(1);
        }
    }

    /** @return the TLS server's keys that match, read on a connection of the test's own */
    static List<String> keys(String pattern) {
        RedisClient c = RedisClient.create(tls.url());
        c.setOptions(ClientOptions.builder().sslOptions(SslOptions.builder().jdkSslProvider()
                .trustManager(certs.ca().toFile()).build()).build());
        try (var connection = c.connect()) {
            return connection.sync().keys(pattern);
        } finally {
            c.shutdown();
        }
    }
}
