package io.echomq.docs;

import static org.assertj.core.api.Assertions.assertThat;

import io.echomq.testkit.TestCertificates;
import io.echomq.server.TlsRedisServer;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The TLS program of docs/security.md, read out of the page and run exactly as it stands against a server that
 * speaks TLS only, with a CA generated for the run: the URL and the CA's PEM file are its arguments.
 */
class SecurityDocsExamplesTest {

    @Test
    void bothClientsWorkOverTlsWithThePrivateCa() throws Exception {
        TestCertificates certs = TestCertificates.generate("EchoMQ docs CA");
        try (TlsRedisServer redis = TlsRedisServer.start(certs)) {
            String out = ProgramRunner.start(Snippets.named("TlsClients").get(0), redis.url(),
                    certs.ca().toString()).await(Duration.ofSeconds(60));
            DocsExamplesTest.fences(out, "locked over TLS, fence (\\d+)\nenqueued job 1 over TLS\n", "TlsClients");
        } finally {
            certs.delete();
        }
    }
}
